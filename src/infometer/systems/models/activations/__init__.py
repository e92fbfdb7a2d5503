"""FleS: flexible self-gated activations, and the information their gates let through
(needs torch, extra ``torch``).

* :mod:`.modules`: :class:`FleSProto`, :class:`FleS` (and its DG / P&N ablations),
  :func:`make_activation` (``gelu``, ``silu``, ``relu``, ``fles_proto``, ``fles``,
  ``fles_dg``, ``fles_pn``);
* :mod:`.swap`: :func:`swap_activations`, :func:`find_activations`, :func:`gate_values`;
* :mod:`.nets`: :class:`PatchTransformer`, :class:`SmallResNet`, :func:`tiny_bert`;
* :mod:`.theory`: the convergence limitation (Theorem 3.1) and Proposition 4.1 in numbers;
* :mod:`.information`: I(T_l;Y), I(X;T_l), gate entropy and batch dependence in bits;
* :mod:`.tasks`: the digits-as-patches and synthetic context tasks, training.

See docs/activations.md for what is faithful to the paper and what is inferred.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from .modules import FLES_KINDS, KINDS, FleS, FleSProto, kind_of, make_activation
from .swap import find_activations, gate_values, is_activation, swap_activations

_LAZY = {
    "PatchTransformer": "nets",
    "SmallResNet": "nets",
    "tiny_bert": "nets",
    "convergence_threshold": "theory",
    "negative_gate_ratio": "theory",
    "negative_gate_ratio_mc": "theory",
    "layer_curves": "information",
    "gate_entropy": "information",
    "batch_dependence": "information",
    "digits_patches": "tasks",
    "context_task": "tasks",
    "train_classifier": "tasks",
}

__all__ = [
    "KINDS",
    "FLES_KINDS",
    "FleS",
    "FleSProto",
    "make_activation",
    "kind_of",
    "swap_activations",
    "find_activations",
    "gate_values",
    "is_activation",
    *_LAZY,
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
