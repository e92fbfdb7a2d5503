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

from typing import TYPE_CHECKING

from infometer.core._lazy import attach

from . import cmi, core, iecl, synthetic
from .cmi import classifier_cond_mutual_info, classifier_cond_mutual_info_per_class
from .iecl import entropy_increment, linear_entropy_increment

if TYPE_CHECKING:
    from infometer.core._torch import predict_proba

    from . import djip as djip
    from . import fisher as fisher
    from . import koopman as koopman
    from .activations import make_activation, swap_activations
    from .djip import DiffJPEG, distill, fit_djip
    from .fisher import FisherInformation, fisher_information
    from .koopman import KoopmanAE, fit_koopman

__getattr__, __dir__ = attach(
    __name__,
    {
        "predict_proba": "infometer.core._torch",  # the ground floor's torch helpers
        "make_activation": ".activations",
        "swap_activations": ".activations",
        "DiffJPEG": ".djip",
        "distill": ".djip",
        "fit_djip": ".djip",
        "FisherInformation": ".fisher",
        "fisher_information": ".fisher",
        "KoopmanAE": ".koopman",
        "fit_koopman": ".koopman",
    },
    modules={"djip": ".djip", "fisher": ".fisher", "koopman": ".koopman"},
)

__all__ = [
    "cmi",
    "core",
    "iecl",
    "synthetic",
    "classifier_cond_mutual_info",
    "classifier_cond_mutual_info_per_class",
    "entropy_increment",
    "linear_entropy_increment",
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
