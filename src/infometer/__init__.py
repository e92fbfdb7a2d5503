"""infometer: measure information in data and models, and how far to trust each number.

>>> import infometer as im
>>> est = im.entropy([0, 1, 0, 1], method="plugin", unit="bits")
>>> round(est.value, 6)
1.0
"""

from __future__ import annotations

import importlib
import sys
import types

__version__ = "0.1.0"

# Everything is imported on first use (PEP 562), so that ``import infometer`` and
# ``infometer --help`` load nothing heavy, not even numpy: name -> (module, attribute;
# ``None``: the module itself).
_LAZY: dict[str, tuple[str, str | None]] = {
    "exact": (".exact", None),
    "registry": (".registry", None),
    "entropy": (".api", "entropy"),
    "mutual_info": (".api", "mutual_info"),
    "cond_mutual_info": (".api", "cond_mutual_info"),
    "kl_divergence": (".api", "kl_divergence"),
    "InfometerWarning": (".data", "InfometerWarning"),
    "Estimate": (".estimate", "Estimate"),
    "independence_test": (".stats", "independence_test"),
    "multipletests": (".stats", "multipletests"),
    "transfer_entropy": (".timeseries", "transfer_entropy"),
    "active_info_storage": (".dynamics", "active_info_storage"),
    "entropy_rate": (".dynamics", "entropy_rate"),
    "infer_network": (".dynamics", "infer_network"),
    "InfoSEDD": (".diffusion", "InfoSEDD"),  # needs torch (an extra)
    "NeuralMI": (".neural", "NeuralMI"),  # needs torch
    "layer_info": (".neural", "layer_info"),
    "flownib": (".neural", "flownib"),
    "classifier_cmi": (".models", "classifier_cmi"),
    "fisher_information": (".models", "fisher_information"),
    "decision": (".decision", None),
    "probes": (".probes", None),
    "pairwise": (".allpairs", "pairwise"),
    "aracne": (".allpairs", "aracne"),
    "clr": (".allpairs", "clr"),
    "select_features": (".allpairs", "select_features"),
}


def __getattr__(name: str):
    """The public names, imported when first used."""
    try:
        module, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'infometer' has no attribute {name!r}") from None
    value = importlib.import_module(module, __name__)
    if attr is not None:
        value = getattr(value, attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | {"estimate"})


class _Package(types.ModuleType):
    """``infometer.estimate`` is the function :func:`infometer.api.estimate`; the import
    system binds the submodule of the same name here when that module loads, which this
    property ignores (any other assignment, e.g. a test's monkeypatch, is kept)."""

    @property
    def estimate(self):
        own = self.__dict__.get("_estimate")
        if own is not None:
            return own
        from .api import estimate

        return estimate

    @estimate.setter
    def estimate(self, value) -> None:
        if not (isinstance(value, types.ModuleType) and value.__name__ == f"{__name__}.estimate"):
            self.__dict__["_estimate"] = value

    @estimate.deleter
    def estimate(self) -> None:
        self.__dict__.pop("_estimate", None)


sys.modules[__name__].__class__ = _Package


def methods(quantity: str = "mutual_info") -> list[str]:
    """Names of the estimators registered for ``quantity``."""
    from . import registry

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
    "active_info_storage",
    "entropy_rate",
    "infer_network",
    "independence_test",
    "multipletests",
    "InfoSEDD",
    "NeuralMI",
    "layer_info",
    "flownib",
    "classifier_cmi",
    "fisher_information",
    "decision",
    "pairwise",
    "aracne",
    "clr",
    "select_features",
    "probes",
]
