"""Closed-form Rényi and Tsallis entropies of continuous families (ground truth, nats)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from infometer.core.validation import check_float, check_real_array

from .kernels import tsallis_from_renyi

__all__ = [
    "gaussian_renyi_entropy",
    "uniform_renyi_entropy",
    "exponential_renyi_entropy",
    "renyi_to_tsallis",
]


def _order(order: Any) -> float:
    if isinstance(order, int | float) and not isinstance(order, bool) and order == math.inf:
        return math.inf
    return check_float(order, "order", low=0.0)


def _order_term(a: float) -> float:
    """``log(a) / (a - 1)``: 1 at a = 1, 0 at a = inf, +inf at a = 0."""
    if a == 1.0:
        return 1.0
    if math.isinf(a):
        return 0.0
    if a == 0.0:
        return float("inf")
    return math.log(a) / (a - 1.0)


def gaussian_renyi_entropy(cov: Any, order: float) -> float:
    """Rényi entropy of N(mu, cov): ``½ log((2π)^d |cov|) + (d/2) log(a) / (a - 1)``.

    Examples
    --------
    >>> round(float(gaussian_renyi_entropy(1.0, 2.0)), 6)  # ½ ln(2π) + ln 2 / 2
    1.265512
    """
    c = np.atleast_2d(check_real_array(cov, "cov"))
    if c.shape[0] != c.shape[1]:
        raise ValueError(f"cov must be a square matrix, got shape {c.shape}")
    sign, logdet = np.linalg.slogdet(c)
    if sign <= 0:
        raise ValueError("cov must be positive definite")
    d = c.shape[0]
    return float(0.5 * (d * math.log(2 * math.pi) + logdet) + 0.5 * d * _order_term(_order(order)))


def uniform_renyi_entropy(low: float, high: float, order: float) -> float:
    """Rényi entropy of U(low, high): ``log(high - low)`` for every order.

    Examples
    --------
    >>> uniform_renyi_entropy(0.0, 1.0, 3.0)
    0.0
    """
    _order(order)
    lo, hi = check_float(low, "low"), check_float(high, "high")
    if not hi > lo:
        raise ValueError(f"high must exceed low, got low={lo}, high={hi}")
    return math.log(hi - lo)


def exponential_renyi_entropy(rate: float, order: float) -> float:
    """Rényi entropy of Exp(rate): ``-log(rate) + log(a) / (a - 1)``.

    Examples
    --------
    >>> round(exponential_renyi_entropy(1.0, 1.0), 6)  # Shannon: 1 - log(rate)
    1.0
    """
    lam = check_float(rate, "rate", low=0.0, inclusive=(False, True))
    return -math.log(lam) + _order_term(_order(order))


def renyi_to_tsallis(h: float, order: float) -> float:
    """Tsallis entropy of index ``order`` from the Rényi entropy of the same order.

    Examples
    --------
    >>> renyi_to_tsallis(0.0, 2.0)
    0.0
    """
    return tsallis_from_renyi(h, _order(order))
