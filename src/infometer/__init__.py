"""infometer: measure information in data and models, and how far to trust each number.

>>> import infometer as im
>>> est = im.entropy([0, 1, 0, 1], method="plugin", unit="bits")
>>> round(est.value, 6)
1.0
"""

from __future__ import annotations

import importlib as _importlib

__version__ = "0.1.0"

# Everything is imported on first use (PEP 562), so that ``import infometer`` and
# ``infometer --help`` load nothing heavy, not even numpy: name -> (module, attribute;
# ``None``: the module itself).
_LAZY: dict[str, tuple[str, str | None]] = {
    "exact": (".measures.exact", None),
    "registry": (".core.registry", None),
    "entropy": (".core.api", "entropy"),
    "mutual_info": (".core.api", "mutual_info"),
    "cond_mutual_info": (".core.api", "cond_mutual_info"),
    "kl_divergence": (".core.api", "kl_divergence"),
    "estimate": (".core.api", "estimate"),
    "InfometerWarning": (".core.data", "InfometerWarning"),
    "MissingExtraError": (".core._extras", "MissingExtraError"),
    "Estimate": (".core.estimate", "Estimate"),
    "LocalValues": (".core._local", "LocalValues"),
    "independence_test": (".measures.stats", "independence_test"),
    "multipletests": (".measures.stats", "multipletests"),
    "transfer_entropy": (".measures.timeseries", "transfer_entropy"),
    "active_info_storage": (".measures.dynamics", "active_info_storage"),
    "entropy_rate": (".measures.dynamics", "entropy_rate"),
    "infer_network": (".measures.dynamics", "infer_network"),
    "InfoSEDD": (".estimators.diffusion", "InfoSEDD"),  # needs torch (an extra)
    "NeuralMI": (".estimators.neural", "NeuralMI"),  # needs torch
    "layer_info": (".estimators.neural", "layer_info"),
    "flownib": (".estimators.neural", "flownib"),
    "classifier_cond_mutual_info": (".systems.models", "classifier_cond_mutual_info"),
    "classifier_cmi": (".systems.models", "classifier_cmi"),  # deprecated alias, not in __all__
    "fisher_information": (".systems.models", "fisher_information"),
    "decision": (".systems.decision", None),
    "probes": (".systems.probes", None),
    "pairwise": (".workflows.allpairs", "pairwise"),
    "Execution": (".core.parallel", "Execution"),
    "aracne": (".workflows.allpairs", "aracne"),
    "clr": (".workflows.allpairs", "clr"),
    "select_features": (".workflows.allpairs", "select_features"),
    "total_correlation": (".measures.multivariate", "total_correlation"),
    "dual_total_correlation": (".measures.multivariate", "dual_total_correlation"),
    "o_information": (".measures.multivariate", "o_information"),
    "s_information": (".measures.multivariate", "s_information"),
    "co_information": (".measures.multivariate", "co_information"),
    "gradient_o_information": (".measures.multivariate", "gradient_o_information"),
    "pid": (".measures.multivariate", "pid"),
    "pid_pairs": (".measures.multivariate", "pid_pairs"),
    "multiplets": (".measures.multivariate", "multiplets"),
    "multivariate_test": (".measures.multivariate", "multivariate_test"),
    "channel_capacity_from_samples": (".measures.channels", "channel_capacity_from_samples"),
    "renyi_entropy": (".measures.generalized", "renyi_entropy"),
    "tsallis_entropy": (".measures.generalized", "tsallis_entropy"),
    "renyi_divergence": (".measures.generalized", "renyi_divergence"),
    "jensen_shannon_divergence": (".measures.generalized", "jensen_shannon_divergence"),
    "jensen_renyi_divergence": (".measures.generalized", "jensen_renyi_divergence"),
    "renyi_mutual_info": (".measures.generalized", "renyi_mutual_info"),
    "complexity": (".measures.complexity", None),  # the package is callable: im.complexity(x, ...)
    "multiscale": (".measures.complexity", "multiscale"),
    "complexity_entropy_plane": (".measures.complexity", "complexity_entropy_plane"),
}


def __getattr__(name: str):
    """The public names, imported when first used."""
    try:
        module, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'infometer' has no attribute {name!r}") from None
    try:
        value = _importlib.import_module(module, __name__)
        if attr is not None:
            value = getattr(value, attr)
    except ImportError as exc:  # an optional dependency: say which extra installs it
        from infometer.core._extras import missing_extra

        named = missing_extra(exc, f"infometer.{name}")
        if named is None:
            raise
        raise named from exc
    globals()[name] = value
    return value


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
