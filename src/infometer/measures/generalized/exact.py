"""Exact Rényi / Tsallis quantities of given pmfs (also in :mod:`infometer.measures.exact`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from infometer.core.uncertainty import make_estimate
from infometer.core.validation import check_pmf, check_probability_vector

from . import kernels
from .estimators import check_order

__all__ = [
    "renyi_entropy",
    "tsallis_entropy",
    "renyi_divergence",
    "jensen_shannon_divergence",
    "jensen_renyi_divergence",
]


def _pair(p: Any, q: Any) -> tuple[np.ndarray, np.ndarray]:
    a, b = check_pmf(p, "p"), check_pmf(q, "q")
    if a.shape != b.shape:
        raise ValueError(f"p has shape {a.shape} but q has shape {b.shape}")
    return a.ravel(), b.ravel()


def renyi_entropy(p: Any, order: float, *, unit: str | None = "nats", base: float | None = None):
    """Rényi entropy ``log(sum p^a) / (1 - a)`` of a pmf (a = 0, 1, inf as limits).

    Examples
    --------
    >>> import infometer as im
    >>> round(im.exact.renyi_entropy([0.5, 0.25, 0.25], 2, unit="bits").value, 6)  # -log2(3/8)
    1.415037
    """
    a = check_order(order)
    v = kernels.renyi(check_pmf(p, "p").ravel(), a)
    return make_estimate(
        v, quantity="renyi_entropy", method="exact", unit=unit, base=base, params={"order": a}
    )


def tsallis_entropy(p: Any, order: float, *, unit: str | None = "nats", base: float | None = None):
    """Tsallis entropy ``(1 - sum p^q) / (q - 1)`` of a pmf (Shannon at q = 1).

    Tsallis entropy is not additive, so ``unit=`` rescales it like a Shannon entropy only
    at ``q = 1``; for other q the value is the nats-convention number times the factor.

    Examples
    --------
    >>> import infometer as im
    >>> im.exact.tsallis_entropy([0.5, 0.5], 2).value  # 1 - 1/2
    0.5
    """
    q = check_order(order, "tsallis")
    v = kernels.tsallis(check_pmf(p, "p").ravel(), q)
    return make_estimate(
        v, quantity="tsallis_entropy", method="exact", unit=unit, base=base, params={"order": q}
    )


def renyi_divergence(
    p: Any, q: Any, order: float, *, unit: str | None = "nats", base: float | None = None
):
    """Rényi divergence ``log(sum p^a q^(1-a)) / (a - 1)`` (KL at a = 1; inf allowed).

    Examples
    --------
    >>> import infometer as im
    >>> round(im.exact.renyi_divergence([0.5, 0.5], [0.25, 0.75], 2).value, 6)
    0.287682
    """
    a = check_order(order)
    x, y = _pair(p, q)
    return make_estimate(
        kernels.renyi_divergence(x, y, a),
        quantity="renyi_divergence",
        method="exact",
        unit=unit,
        base=base,
        params={"order": a},
    )


def _w(weights: Any, m: int) -> np.ndarray:
    if weights is None:
        return np.full(m, 1.0 / m)
    return check_probability_vector(weights, "weights", size=m)


def jensen_shannon_divergence(
    p: Any, q: Any, *, weights: Any = None, unit: str | None = "nats", base: float | None = None
):
    """``H(w_p P + w_q Q) - w_p H(P) - w_q H(Q)`` (default weights ½, ½; <= log 2).

    Examples
    --------
    >>> import infometer as im
    >>> im.exact.jensen_shannon_divergence([1, 0], [0, 1], unit="bits").value
    1.0
    """
    x, y = _pair(p, q)
    v = kernels.jensen(np.vstack([x, y]), _w(weights, 2), 1.0)
    return make_estimate(
        max(v, 0.0), quantity="jensen_shannon_divergence", method="exact", unit=unit, base=base
    )


def jensen_renyi_divergence(
    p: Any,
    q: Any,
    order: float,
    *,
    weights: Any = None,
    unit: str | None = "nats",
    base: float | None = None,
):
    """Jensen–Rényi divergence ``H_a(w_p P + w_q Q) - w_p H_a(P) - w_q H_a(Q)``.

    Non-negative for ``0 <= a <= 1`` (concavity of H_a); for ``a > 1`` it can be negative
    for unequal weights (He, Hamza & Krim 2003).

    Examples
    --------
    >>> import infometer as im
    >>> round(im.exact.jensen_renyi_divergence([1, 0], [0, 1], 2).value, 6)  # log 2
    0.693147
    """
    a = check_order(order)
    x, y = _pair(p, q)
    v = kernels.jensen(np.vstack([x, y]), _w(weights, 2), a)
    return make_estimate(
        v,
        quantity="jensen_renyi_divergence",
        method="exact",
        unit=unit,
        base=base,
        params={"order": a},
    )
