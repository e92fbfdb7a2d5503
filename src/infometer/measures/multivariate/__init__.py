"""Multivariate information: total correlation, dual total correlation, O-, S- and
co-information, gradient O-information (registered estimators), partial information
decomposition and higher-order multiplet search.

Importing the package registers the estimators (``registry.FAMILIES``)."""

from __future__ import annotations

from . import estimators  # noqa: F401  (registers the estimators)
from .measures import (
    GradientOInformation,
    co_information,
    dual_total_correlation,
    gradient_o_information,
    o_information,
    s_information,
    split_variables,
    total_correlation,
)

__all__ = [
    "total_correlation",
    "dual_total_correlation",
    "o_information",
    "s_information",
    "co_information",
    "gradient_o_information",
    "GradientOInformation",
    "split_variables",
]

from .decomposition import PIDResult, pid, pid_of_pmf  # noqa: E402  (registers pid_atom)

__all__ += ["pid", "PIDResult", "pid_of_pmf"]

from .multiplets import MultipletResult, multiplets  # noqa: E402

__all__ += ["multiplets", "MultipletResult"]

from .significance import MultivariateTest, multivariate_test  # noqa: E402

__all__ += ["multivariate_test", "MultivariateTest"]

from .pairs import PairPIDResult, pid_pairs  # noqa: E402

__all__ += ["pid_pairs", "PairPIDResult"]
