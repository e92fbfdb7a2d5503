"""Exact information quantities of given pmfs and joint probability tables.

These are the ground truth the sample estimators are tested against.  Every function
validates its table (non-negative, finite, sums to one within ``atol``) and returns an
:class:`~infometer.estimate.Estimate` with ``method="exact"``.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .estimate import Estimate, resolve_unit

__all__ = [
    "entropy",
    "joint_entropy",
    "cond_entropy",
    "mutual_info",
    "cond_mutual_info",
    "kl_divergence",
    "cross_entropy",
]


def _pmf(p: Any, name: str, ndim: int | None = None, atol: float | None = None) -> np.ndarray:
    """Validate a pmf / joint table: real numbers, finite, >= 0, summing to 1.

    The sum may differ from 1 by ``atol``, by default 1e-9 for float64 input (summation
    rounding is ~1e-16 · log2(size), far below it at any size that fits in memory) and
    100 machine epsilons for lower-precision floats.  The tolerance does not grow with
    the size: a table off by 1% in total mass is refused however many cells it has.
    """
    if isinstance(p, str | bytes):
        raise TypeError(f"{name} must be an array of probabilities, got a string")
    try:
        raw = np.asarray(p)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a rectangular array of probabilities: {exc}") from exc
    kind = raw.dtype.kind
    if kind == "O":
        flat = raw.ravel().tolist()
        if not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in flat):
            bad = next(v for v in flat if not isinstance(v, numbers.Real) or isinstance(v, bool))
            raise TypeError(f"{name} must hold real numbers, found {type(bad).__name__} {bad!r}")
    elif kind not in "iuf":
        what = {"c": "complex numbers", "b": "booleans", "U": "strings", "S": "bytes"}
        raise TypeError(
            f"{name} must hold real numbers (probabilities), got {what.get(kind, raw.dtype)}"
        )
    a = raw.astype(np.float64)
    if a.size == 0:
        raise ValueError(f"{name} is empty")
    if ndim is not None and a.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D table, got {a.ndim}-D with shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} contains NaN or inf")
    if np.any(a < 0):
        raise ValueError(f"{name} has negative entries (min {a.min():.3g})")
    if atol is None:
        atol = 1e-9 if kind != "f" or raw.dtype.itemsize >= 8 else 100 * np.finfo(raw.dtype).eps
    s = a.sum()
    if not abs(s - 1.0) <= atol:
        raise ValueError(
            f"{name} sums to {s:.12g}, not 1 (tolerance {atol:.1e}); normalise it first "
            "(p / p.sum())"
        )
    return a / s


def _h(a: np.ndarray) -> float:
    from scipy.special import xlogy  # here, not at import: keeps `import infometer` light

    return float(-xlogy(a, a).sum())


def _wrap(value: float, quantity: str, unit: str | None, base: float | None) -> Estimate:
    e = Estimate(value=value, unit="nats", method="exact", quantity=quantity)
    u = resolve_unit(unit, base)
    return e if u == "nats" else e.to(u)


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
