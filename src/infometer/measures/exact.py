"""Exact information quantities of given pmfs and joint probability tables.

These are the ground truth the sample estimators are tested against.  Every function
validates its table (non-negative, finite, sums to one within ``atol``) and returns an
:class:`~infometer.Estimate` with ``method="exact"``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from infometer.core.estimate import Estimate
from infometer.core.uncertainty import exact_estimate
from infometer.core.validation import check_pmf

# Exact values that other families compute (channels, generalised entropies, multivariate
# information) are gathered here too; they build their estimates through the ground
# floor's exact_estimate, so none of them imports this module back.
from infometer.measures.channels import (
    channel_capacity,
    ib_curve,
    information_bottleneck,
    rate_distortion,
    rate_distortion_curve,
)
from infometer.measures.generalized.exact import (
    jensen_renyi_divergence,
    jensen_shannon_divergence,
    renyi_divergence,
    renyi_entropy,
    tsallis_entropy,
)
from infometer.measures.multivariate.exact import (
    co_information,
    dual_total_correlation,
    gradient_o_information,
    o_information,
    pid,
    s_information,
    total_correlation,
)

__all__ = [
    "entropy",
    "joint_entropy",
    "cond_entropy",
    "mutual_info",
    "cond_mutual_info",
    "kl_divergence",
    "cross_entropy",
    "channel_capacity",
    "rate_distortion",
    "rate_distortion_curve",
    "information_bottleneck",
    "ib_curve",
    "renyi_entropy",
    "tsallis_entropy",
    "renyi_divergence",
    "jensen_shannon_divergence",
    "jensen_renyi_divergence",
    "total_correlation",
    "dual_total_correlation",
    "o_information",
    "s_information",
    "co_information",
    "gradient_o_information",
    "pid",
]


def _pmf(p: Any, name: str, ndim: int | None = None, atol: float | None = None) -> np.ndarray:
    """Validate a pmf / joint table (:func:`infometer.core.validation.check_pmf`)."""
    return check_pmf(p, name, ndim=ndim, atol=atol)


def _h(a: np.ndarray) -> float:
    from scipy.special import xlogy  # here, not at import: keeps `import infometer` light

    return float(-xlogy(a, a).sum())


def _wrap(value: float, quantity: str, unit: str | None, base: float | None) -> Estimate:
    return exact_estimate(value, quantity, unit, base)


def entropy(p: Any, *, unit: str | None = "nats", base: float | None = None) -> Estimate:
    """Shannon entropy ``-sum p log p`` of a pmf (any shape: all cells form one variable)."""
    return _wrap(_h(_pmf(p, "p")), "entropy", unit, base)


def joint_entropy(pxy: Any, *, unit: str | None = "nats", base: float | None = None) -> Estimate:
    """Joint entropy of a table (same as :func:`entropy` on its cells)."""
    return _wrap(_h(_pmf(pxy, "pxy")), "entropy", unit, base)


def cond_entropy(pxy: Any, *, unit: str | None = "nats", base: float | None = None) -> Estimate:
    """H(Y|X) = H(X,Y) - H(X) for a 2-D table with X on axis 0."""
    a = _pmf(pxy, "pxy", 2)
    return _wrap(_h(a) - _h(a.sum(1)), "cond_entropy", unit, base)


def mutual_info(pxy: Any, *, unit: str | None = "nats", base: float | None = None) -> Estimate:
    """I(X;Y) of a 2-D joint table (X on axis 0, Y on axis 1)."""
    a = _pmf(pxy, "pxy", 2)
    v = _h(a.sum(1)) + _h(a.sum(0)) - _h(a)
    return _wrap(max(v, 0.0), "mutual_info", unit, base)


def cond_mutual_info(
    pxyz: Any, *, unit: str | None = "nats", base: float | None = None
) -> Estimate:
    """I(X;Y|Z) of a 3-D joint table with axes (X, Y, Z)."""
    a = _pmf(pxyz, "pxyz", 3)
    v = _h(a.sum(1)) + _h(a.sum(0)) - _h(a) - _h(a.sum((0, 1)))
    return _wrap(max(v, 0.0), "cond_mutual_info", unit, base)


def _pq(p: Any, q: Any) -> tuple[np.ndarray, np.ndarray]:
    a, b = _pmf(p, "p"), _pmf(q, "q")
    if a.shape != b.shape:
        raise ValueError(f"p has shape {a.shape} but q has shape {b.shape}")
    return a.ravel(), b.ravel()


def kl_divergence(
    p: Any, q: Any, *, unit: str | None = "nats", base: float | None = None
) -> Estimate:
    """D(P‖Q) = sum p log(p/q); ``inf`` when q is 0 where p is not."""
    a, b = _pq(p, q)
    s = a > 0
    v = float("inf") if np.any(b[s] == 0) else float((a[s] * np.log(a[s] / b[s])).sum())
    return _wrap(v, "kl_divergence", unit, base)


def cross_entropy(
    p: Any, q: Any, *, unit: str | None = "nats", base: float | None = None
) -> Estimate:
    """Cross-entropy ``-sum p log q``."""
    a, b = _pq(p, q)
    s = a > 0
    v = float("inf") if np.any(b[s] == 0) else float(-(a[s] * np.log(b[s])).sum())
    return _wrap(v, "cross_entropy", unit, base)
