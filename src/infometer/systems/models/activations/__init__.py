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

from typing import TYPE_CHECKING

from infometer.core._lazy import attach

from ._modules import FLES_KINDS, KINDS, FleS, FleSProto, kind_of, make_activation
from ._swap import find_activations, gate_values, is_activation, swap_activations

if TYPE_CHECKING:
    from ._information import (
        batch_dependence,
        gate_bits,
        gate_entropy,
        layer_curves,
        plot_layer_curves,
    )
    from ._nets import PatchTransformer, SmallResNet, tiny_bert
    from ._tasks import accuracy, context_task, digits_patches, split, train_classifier
    from ._theory import convergence_threshold, negative_gate_ratio, negative_gate_ratio_mc

__getattr__, __dir__ = attach(
    __name__,
    {
        "batch_dependence": "._information",
        "gate_bits": "._information",
        "plot_layer_curves": "._information",
        "gate_entropy": "._information",
        "layer_curves": "._information",
        "PatchTransformer": "._nets",
        "SmallResNet": "._nets",
        "tiny_bert": "._nets",
        "accuracy": "._tasks",
        "context_task": "._tasks",
        "split": "._tasks",
        "digits_patches": "._tasks",
        "train_classifier": "._tasks",
        "convergence_threshold": "._theory",
        "negative_gate_ratio": "._theory",
        "negative_gate_ratio_mc": "._theory",
    },
)

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
    "PatchTransformer",
    "SmallResNet",
    "tiny_bert",
    "convergence_threshold",
    "negative_gate_ratio",
    "negative_gate_ratio_mc",
    "layer_curves",
    "gate_entropy",
    "batch_dependence",
    "gate_bits",
    "plot_layer_curves",
    "digits_patches",
    "context_task",
    "train_classifier",
    "accuracy",
    "split",
]
