"""Information extraction, measured: SCRIBES scripts, LiveWeb-IE/VGS grounding, LiteCoST.

Generated sites and documents with exact ground truth (:func:`make_sites`,
:func:`make_group`, :func:`make_corpus`), the papers' metrics (:func:`fuzzy_f1`,
:func:`set_prf`), the three systems at CPU size (:mod:`.scribes`, :mod:`.liveweb`,
:mod:`.litecost`), the bridge to information (:mod:`.bridge`) and the benchmark
(:mod:`.bench`).
Needs the extra ``extract`` (lxml, rapidfuzz); nothing is imported until used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from infometer.core._lazy import attach

if TYPE_CHECKING:
    from ._documents import make_corpus
    from ._metrics import fuzzy_f1, normalize_triple, set_prf
    from ._sites import (
        drift,
        layout_signature,
        make_group,
        make_layout,
        make_sites,
        template_extractor,
        version_clock,
    )

__getattr__, __dir__ = attach(
    __name__,
    {
        "make_corpus": "._documents",
        "fuzzy_f1": "._metrics",
        "normalize_triple": "._metrics",
        "set_prf": "._metrics",
        "drift": "._sites",
        "layout_signature": "._sites",
        "make_group": "._sites",
        "make_layout": "._sites",
        "make_sites": "._sites",
        "template_extractor": "._sites",
        "version_clock": "._sites",
    },
)

__all__ = [
    "drift",
    "fuzzy_f1",
    "layout_signature",
    "make_corpus",
    "make_group",
    "make_layout",
    "make_sites",
    "normalize_triple",
    "set_prf",
    "template_extractor",
    "version_clock",
]
