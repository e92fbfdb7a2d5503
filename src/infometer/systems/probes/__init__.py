"""Information probes: decoders, embeddings, attention and images, measured as information.

Like the rest of the library they report nats by default (``unit="bits"`` for the bits of
the papers they reproduce) and no interval unless ``ci=`` is given.

Five probes, one module each, loaded on first use (``import infometer`` imports none of
them, and none imports torch, scikit-learn or matplotlib at module level except
:mod:`~infometer.systems.probes.flow`, which is torch-only):

* :mod:`~infometer.systems.probes.decoding` -- decodability to bits: Fano and cross-entropy
  lower bounds on I(signal; label) from a decoder's accuracy or predicted probabilities,
  with binomial / bootstrap intervals and a permutation test;
* :mod:`~infometer.systems.probes.alignment` -- embedding alignment: sqrt-JSD between
  dimension-softmax distributions, an InfoNCE lower bound, Max@R, Comp@k, inclination rate;
* :mod:`~infometer.systems.probes.flow` -- causal information flow in transformers: attention
  knockout (Δp, Δbits, KL), logit lens, pruning to kept edges (extra ``torch``);
* :mod:`~infometer.systems.probes.imagemaps` -- image information maps: patch entropy with any
  registered discrete entropy estimator, local variance, information-ordered traversals;
* :mod:`~infometer.systems.probes.clib` -- calibrated information-bottleneck clustering (CLIB):
  redundancy-based pseudo-label selection, ACC / NMI / ECE, the multi-view model.

See docs/probes.md.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["decoding", "alignment", "flow", "imagemaps", "clib"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ImportError as exc:  # e.g. flow without torch: name the extra
            from infometer.core._extras import missing_extra

            named = missing_extra(exc, f"infometer.systems.probes.{name}")
            if named is None:
                raise
            raise named from exc
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
