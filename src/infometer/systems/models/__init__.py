"""Information in models: Fisher information, classifier CMI, DJIP, Koopman, IE-CL.

Importing this package registers the ``classifier_cmi`` quantity (numpy only).  Everything
that needs torch (extra ``torch``) lives in submodules imported on first use:

* :mod:`~infometer.systems.models.fisher`: exact and Hutchinson Fisher information of classifiers,
  the bounds ``F_LR ⪯ F ⪯ F_DG`` (:func:`fisher_information`);
* :mod:`~infometer.systems.models.core`: the core-space matrix ``diag(p) − ppᵀ`` and its spectrum;
* :mod:`~infometer.systems.models.cmi`: ``I(X;Ŷ|Y)`` of a classifier
  (:func:`classifier_cond_mutual_info`);
* :mod:`~infometer.systems.models.djip`: differentiable JPEG input perturbation and distillation;
* :mod:`~infometer.systems.models.koopman`: entropy-regularised Koopman autoencoders;
* :mod:`~infometer.systems.models.iecl`: entropy increment of a transformation;
* :mod:`~infometer.systems.models.synthetic`: generated images and simulated dynamical systems;
* :mod:`~infometer.systems.models.activations`: FleS self-gated activations, swapping, gate
  information.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from . import cmi, core, iecl, synthetic
from .cmi import (
    classifier_cmi,  # noqa: F401  (deprecated alias, not in __all__)
    classifier_cmi_per_class,  # noqa: F401  (deprecated alias)
    classifier_cond_mutual_info,
    classifier_cond_mutual_info_per_class,
)
from .iecl import entropy_increment, linear_entropy_increment

_LAZY = {
    "fisher_information": "fisher",
    "FisherInformation": "fisher",
    "predict_proba": "..core._torch",  # infometer.core._torch (the ground-floor torch helpers)
    "DiffJPEG": "djip",
    "fit_djip": "djip",
    "distill": "djip",
    "KoopmanAE": "koopman",
    "fit_koopman": "koopman",
    "make_activation": "activations",
    "swap_activations": "activations",
}

__all__ = [
    "cmi",
    "core",
    "iecl",
    "synthetic",
    "classifier_cond_mutual_info",
    "classifier_cond_mutual_info_per_class",
    "entropy_increment",
    "linear_entropy_increment",
    *_LAZY,
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    if name in ("fisher", "djip", "koopman"):
        return import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
