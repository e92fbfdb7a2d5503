"""infometer: measure information in data and models, and how far to trust each number.

>>> import infometer as im
>>> est = im.entropy([0, 1, 0, 1], method="plugin", unit="bits")
>>> round(est.value, 6)
1.0
"""

from . import exact, registry
from .api import cond_mutual_info, entropy, estimate, kl_divergence, mutual_info
from .data import InfometerWarning
from .estimate import Estimate
from .stats import independence_test, multipletests
from .timeseries import transfer_entropy

__version__ = "0.1.0"


def __getattr__(name: str):
    """Lazy attributes that need optional extras (torch) only when used."""
    if name == "InfoSEDD":
        from .diffusion import InfoSEDD

        return InfoSEDD
    if name in ("NeuralMI", "layer_info", "flownib"):
        from . import neural

        return getattr(neural, name)
    if name == "decision":
        import importlib

        return importlib.import_module(".decision", __name__)
    if name in ("pairwise", "aracne", "clr", "select_features"):
        from . import allpairs

        return getattr(allpairs, name)
    raise AttributeError(f"module 'infometer' has no attribute {name!r}")


def methods(quantity: str = "mutual_info") -> list[str]:
    """Names of the estimators registered for ``quantity``."""
    return registry.methods(quantity)


__all__ = [
    "Estimate",
    "InfometerWarning",
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
    "independence_test",
    "multipletests",
    "InfoSEDD",
    "NeuralMI",
    "layer_info",
    "flownib",
    "decision",
    "pairwise",
    "aracne",
    "clr",
    "select_features",
]
