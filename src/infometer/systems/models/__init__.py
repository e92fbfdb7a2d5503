"""Information in models: Fisher information, classifier CMI, DJIP, Koopman, IE-CL.

Importing this package registers the ``classifier_cmi`` quantity (numpy only).  Everything
that needs torch (extra ``torch``) is imported on first use:

* :func:`fisher_information`: exact and Hutchinson Fisher information of classifiers, the
  bounds ``F_LR ⪯ F ⪯ F_DG``; :func:`core_matrix`, :func:`core_spectrum`: the core-space
  matrix ``diag(p) − ppᵀ`` and its spectrum;
* :func:`classifier_cond_mutual_info`: ``I(X;Ŷ|Y)`` of a classifier;
* :class:`DiffJPEG`, :func:`fit_djip`, :func:`distill`: differentiable JPEG input
  perturbation and distillation;
* :class:`KoopmanAE`, :func:`fit_koopman`: entropy-regularised Koopman autoencoders;
* :func:`entropy_increment`: entropy increment of a transformation;
* :func:`texture_images`, :func:`pendulum`, :func:`lorenz63`, :func:`linear_system`:
  generated images and simulated dynamical systems;
* :mod:`~infometer.systems.models.activations`: FleS self-gated activations, swapping, gate
  information.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from infometer.core._lazy import attach

from ._cmi import classifier_cond_mutual_info, classifier_cond_mutual_info_per_class
from ._core import core_matrix, core_spectrum
from ._iecl import entropy_increment, linear_entropy_increment
from ._synthetic import linear_system, lorenz63, pendulum, texture_images

if TYPE_CHECKING:
    from infometer.core._torch import predict_proba

    from ._djip import DiffJPEG, distill, fit_djip
    from ._fisher import FisherInformation, fisher_information
    from ._koopman import KoopmanAE, fit_koopman
    from .activations import make_activation, swap_activations

__getattr__, __dir__ = attach(
    __name__,
    {
        "predict_proba": "infometer.core._torch",  # the ground floor's torch helpers
        "make_activation": ".activations",
        "swap_activations": ".activations",
        "DiffJPEG": "._djip",
        "distill": "._djip",
        "fit_djip": "._djip",
        "FisherInformation": "._fisher",
        "fisher_information": "._fisher",
        "KoopmanAE": "._koopman",
        "fit_koopman": "._koopman",
    },
)

__all__ = [
    "classifier_cond_mutual_info",
    "classifier_cond_mutual_info_per_class",
    "entropy_increment",
    "linear_entropy_increment",
    "core_matrix",
    "core_spectrum",
    "texture_images",
    "pendulum",
    "lorenz63",
    "linear_system",
    "fisher_information",
    "FisherInformation",
    "predict_proba",
    "DiffJPEG",
    "fit_djip",
    "distill",
    "KoopmanAE",
    "fit_koopman",
    "make_activation",
    "swap_activations",
]
