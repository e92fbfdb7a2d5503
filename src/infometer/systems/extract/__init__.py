"""Information extraction, measured: SCRIBES scripts, LiveWeb-IE/VGS grounding, LiteCoST.

Generated sites and documents with exact ground truth (:mod:`.sites`, :mod:`.documents`),
the papers' metrics (:mod:`.metrics`), the three systems at CPU size (:mod:`.scribes`,
:mod:`.liveweb`, :mod:`.litecost`) and the bridge to information (:mod:`.bridge`).
Needs the extra ``extract`` (lxml, rapidfuzz); nothing is imported until used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from infometer.core._lazy import attach

if TYPE_CHECKING:
    from .metrics import fuzzy_f1, normalize_triple, set_prf
    from .sites import (
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
        "fuzzy_f1": ".metrics",
        "normalize_triple": ".metrics",
        "set_prf": ".metrics",
        "drift": ".sites",
        "layout_signature": ".sites",
        "make_group": ".sites",
        "make_layout": ".sites",
        "make_sites": ".sites",
        "template_extractor": ".sites",
        "version_clock": ".sites",
    },
)

__all__ = [
    "drift",
    "fuzzy_f1",
    "layout_signature",
    "make_group",
    "make_layout",
    "make_sites",
    "normalize_triple",
    "set_prf",
    "template_extractor",
    "version_clock",
]
