"""infometer: measure information in data and models, and how far to trust each number.

>>> import infometer as im
>>> est = im.entropy([0, 1, 0, 1], method="plugin", unit="bits")
>>> round(est.value, 6)
1.0
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from infometer.core._lazy import attach

__version__ = "0.1.0"

# Everything is imported on first use (PEP 562, through the one mechanism of
# infometer.core._lazy), so that ``import infometer`` and ``infometer --help`` load nothing
# heavy, not even numpy.  A type checker reads the same names from the imports below
# (tests/test_lazy.py keeps them and the table in step).
if TYPE_CHECKING:
    from infometer.core import registry
    from infometer.core._extras import MissingExtraError
    from infometer.core._local import LocalValues
    from infometer.core.api import cond_mutual_info, entropy, estimate, kl_divergence, mutual_info
    from infometer.core.data import InfometerWarning
    from infometer.core.estimate import Estimate
    from infometer.core.parallel import Execution
    from infometer.estimators.diffusion import InfoSEDD
    from infometer.estimators.neural import NeuralMI, flownib, layer_info
    from infometer.measures import exact
    from infometer.measures.channels import channel_capacity_from_samples
    from infometer.measures.complexity import complexity_entropy_plane, multiscale
    from infometer.measures.complexity._api import complexity
    from infometer.measures.dynamics import active_info_storage, entropy_rate, infer_network
    from infometer.measures.generalized import (
        jensen_renyi_divergence,
        jensen_shannon_divergence,
        renyi_divergence,
        renyi_entropy,
        renyi_mutual_info,
        tsallis_entropy,
    )
    from infometer.measures.multivariate import (
        co_information,
        dual_total_correlation,
        gradient_o_information,
        multiplets,
        multivariate_test,
        o_information,
        pid,
        pid_pairs,
        s_information,
        total_correlation,
    )
    from infometer.measures.stats import independence_test, multipletests
    from infometer.measures.timeseries import transfer_entropy
    from infometer.systems import decision, probes
    from infometer.systems.models import classifier_cond_mutual_info, fisher_information
    from infometer.workflows.allpairs import aracne, clr, pairwise, select_features

__getattr__, _ = attach(
    __name__,
    {
        "MissingExtraError": "infometer.core._extras",
        "LocalValues": "infometer.core._local",
        "cond_mutual_info": "infometer.core.api",
        "entropy": "infometer.core.api",
        "estimate": "infometer.core.api",
        "kl_divergence": "infometer.core.api",
        "mutual_info": "infometer.core.api",
        "InfometerWarning": "infometer.core.data",
        "Estimate": "infometer.core.estimate",
        "Execution": "infometer.core.parallel",
        "InfoSEDD": "infometer.estimators.diffusion",  # needs torch (an extra)
        "NeuralMI": "infometer.estimators.neural",  # needs torch (an extra)
        "flownib": "infometer.estimators.neural",
        "layer_info": "infometer.estimators.neural",
        "channel_capacity_from_samples": "infometer.measures.channels",
        "complexity_entropy_plane": "infometer.measures.complexity",
        "multiscale": "infometer.measures.complexity",
        "active_info_storage": "infometer.measures.dynamics",
        "entropy_rate": "infometer.measures.dynamics",
        "infer_network": "infometer.measures.dynamics",
        "jensen_renyi_divergence": "infometer.measures.generalized",
        "jensen_shannon_divergence": "infometer.measures.generalized",
        "renyi_divergence": "infometer.measures.generalized",
        "renyi_entropy": "infometer.measures.generalized",
        "renyi_mutual_info": "infometer.measures.generalized",
        "tsallis_entropy": "infometer.measures.generalized",
        "co_information": "infometer.measures.multivariate",
        "dual_total_correlation": "infometer.measures.multivariate",
        "gradient_o_information": "infometer.measures.multivariate",
        "multiplets": "infometer.measures.multivariate",
        "multivariate_test": "infometer.measures.multivariate",
        "o_information": "infometer.measures.multivariate",
        "pid": "infometer.measures.multivariate",
        "pid_pairs": "infometer.measures.multivariate",
        "s_information": "infometer.measures.multivariate",
        "total_correlation": "infometer.measures.multivariate",
        "independence_test": "infometer.measures.stats",
        "multipletests": "infometer.measures.stats",
        "transfer_entropy": "infometer.measures.timeseries",
        "classifier_cond_mutual_info": "infometer.systems.models",
        "fisher_information": "infometer.systems.models",
        "aracne": "infometer.workflows.allpairs",
        "clr": "infometer.workflows.allpairs",
        "pairwise": "infometer.workflows.allpairs",
        "select_features": "infometer.workflows.allpairs",
    },
    modules={
        "registry": "infometer.core.registry",
        "exact": "infometer.measures.exact",
        # the package is callable, im.complexity(x, ...); a type checker sees the function
        "complexity": "infometer.measures.complexity",
        "decision": "infometer.systems.decision",
        "probes": "infometer.systems.probes",
    },
)


#: Public names that need an extra, by the module it installs: ``dir(infometer)`` (and so
#: ``help(infometer)``, which reads every name it lists) leaves them out where that module
#: is not installed; using one still says which extra to install.
_NEEDS: dict[str, str] = {"InfoSEDD": "torch", "NeuralMI": "torch", "fisher_information": "torch"}


def _installed(module: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # blocked, or a placeholder in sys.modules
        return False


def __dir__() -> list[str]:
    """Only the public names (``__all__``): no helper module or import leaks; names whose
    extra is not installed are left out (``help(infometer)`` shows the rest)."""
    return sorted(n for n in __all__ if n not in _NEEDS or _installed(_NEEDS[n]))


def methods(quantity: str = "mutual_info") -> list[str]:
    """Names of the estimators registered for ``quantity``."""
    from infometer.core import registry

    return registry.methods(quantity)


__all__ = [
    "Estimate",
    "LocalValues",
    "InfometerWarning",
    "MissingExtraError",
    "entropy",
    "mutual_info",
    "cond_mutual_info",
    "kl_divergence",
    "estimate",
    "exact",
    "methods",
    "registry",
    "__version__",
    "transfer_entropy",
    "active_info_storage",
    "entropy_rate",
    "infer_network",
    "independence_test",
    "multipletests",
    "InfoSEDD",
    "NeuralMI",
    "layer_info",
    "flownib",
    "classifier_cond_mutual_info",
    "fisher_information",
    "decision",
    "pairwise",
    "Execution",
    "aracne",
    "clr",
    "select_features",
    "probes",
    "total_correlation",
    "dual_total_correlation",
    "o_information",
    "s_information",
    "co_information",
    "gradient_o_information",
    "pid",
    "pid_pairs",
    "multiplets",
    "multivariate_test",
    "channel_capacity_from_samples",
    "renyi_entropy",
    "tsallis_entropy",
    "renyi_divergence",
    "jensen_shannon_divergence",
    "jensen_renyi_divergence",
    "renyi_mutual_info",
    "complexity",
    "multiscale",
    "complexity_entropy_plane",
]
