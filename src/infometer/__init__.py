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
    "exact": (".exact", None),
    "registry": (".registry", None),
    "entropy": (".api", "entropy"),
    "mutual_info": (".api", "mutual_info"),
    "cond_mutual_info": (".api", "cond_mutual_info"),
    "kl_divergence": (".api", "kl_divergence"),
    "estimate": (".api", "estimate"),
    "InfometerWarning": (".data", "InfometerWarning"),
    "MissingExtraError": ("._extras", "MissingExtraError"),
    "Estimate": ("._estimate", "Estimate"),
    "LocalValues": ("._local", "LocalValues"),
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
    "classifier_cond_mutual_info": (".models", "classifier_cond_mutual_info"),
    "classifier_cmi": (".models", "classifier_cmi"),  # deprecated alias, not in __all__
    "fisher_information": (".models", "fisher_information"),
    "decision": (".decision", None),
    "probes": (".probes", None),
    "pairwise": (".allpairs", "pairwise"),
    "Execution": (".parallel", "Execution"),
    "aracne": (".allpairs", "aracne"),
    "clr": (".allpairs", "clr"),
    "select_features": (".allpairs", "select_features"),
    "total_correlation": (".multivariate", "total_correlation"),
    "dual_total_correlation": (".multivariate", "dual_total_correlation"),
    "o_information": (".multivariate", "o_information"),
    "s_information": (".multivariate", "s_information"),
    "co_information": (".multivariate", "co_information"),
    "gradient_o_information": (".multivariate", "gradient_o_information"),
    "pid": (".multivariate", "pid"),
    "pid_pairs": (".multivariate", "pid_pairs"),
    "multiplets": (".multivariate", "multiplets"),
    "multivariate_test": (".multivariate", "multivariate_test"),
    "channel_capacity_from_samples": (".channels", "channel_capacity_from_samples"),
    "renyi_entropy": (".generalized", "renyi_entropy"),
    "tsallis_entropy": (".generalized", "tsallis_entropy"),
    "renyi_divergence": (".generalized", "renyi_divergence"),
    "jensen_shannon_divergence": (".generalized", "jensen_shannon_divergence"),
    "jensen_renyi_divergence": (".generalized", "jensen_renyi_divergence"),
    "renyi_mutual_info": (".generalized", "renyi_mutual_info"),
    "complexity": (".complexity", None),  # the package is callable: im.complexity(x, ...)
    "multiscale": (".complexity", "multiscale"),
    "complexity_entropy_plane": (".complexity", "complexity_entropy_plane"),
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
        from ._extras import missing_extra

        named = missing_extra(exc, f"infometer.{name}")
        if named is None:
            raise
        raise named from exc
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """Only the public names (``__all__``): no helper module or import leaks."""
    return sorted(__all__)


def methods(quantity: str = "mutual_info") -> list[str]:
    """Names of the estimators registered for ``quantity``."""
    from . import registry

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
