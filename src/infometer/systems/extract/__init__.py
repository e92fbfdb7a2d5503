"""Information extraction, measured: SCRIBES scripts, LiveWeb-IE/VGS grounding, LiteCoST.

Generated sites and documents with exact ground truth (:mod:`.sites`, :mod:`.documents`),
the papers' metrics (:mod:`.metrics`), the three systems at CPU size (:mod:`.scribes`,
:mod:`.liveweb`, :mod:`.litecost`) and the bridge to information (:mod:`.bridge`).
Needs the extra ``extract`` (lxml, rapidfuzz); nothing is imported until used.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "make_sites": "sites",
    "make_group": "sites",
    "make_layout": "sites",
    "drift": "sites",
    "version_clock": "sites",
    "template_extractor": "sites",
    "layout_signature": "sites",
    "normalize_triple": "metrics",
    "fuzzy_f1": "metrics",
    "set_prf": "metrics",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError(f"module 'infometer.systems.extract' has no attribute {name!r}")
    return getattr(importlib.import_module(f".{mod}", __name__), name)
