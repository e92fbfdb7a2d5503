"""Small helpers shared by the probes (numpy only)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from infometer.core.estimate import Estimate
from infometer.core.uncertainty import make_estimate, replicate_summary
from infometer.core.validation import check_float, check_real_array

__all__ = [
    "entropy_rows",
    "mean_estimate",
    "estimates_frame",
    "as_float_matrix",
]


def entropy_rows(p: np.ndarray) -> np.ndarray:
    """Shannon entropy (nats) of each row of a row-stochastic matrix."""
    from scipy.special import xlogy

    return -xlogy(p, p).sum(axis=-1)


def as_float_matrix(a: Any, name: str, *, ndim: int = 2) -> np.ndarray:
    """``a`` as a finite float64 array of ``ndim`` dimensions, or an error naming it
    (:func:`infometer.core.validation.check_real_array`: strings, booleans, complex numbers,
    masked values, NaN and inf are refused)."""
    arr = check_real_array(a, name, finite=False)
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    bad = ~np.isfinite(arr)
    if bad.any():
        where = np.argwhere(bad)[0]
        raise ValueError(f"{name} contains NaN or inf (first at index {tuple(where.tolist())})")
    return arr


def mean_estimate(
    values: np.ndarray,
    *,
    quantity: str,
    method: str,
    unit: str = "nats",
    ci: float | None = None,
    params: dict[str, Any] | None = None,
    diagnostics: dict[str, Any] | None = None,
) -> Estimate:
    """The mean of per-item values given in nats, as an :class:`Estimate` in ``unit``.

    ``stderr`` is sd/sqrt(n); the interval is mean ± t_{n-1}·stderr (none for n = 1), from
    :func:`infometer.core.uncertainty.replicate_summary`.
    """
    v = np.asarray(values, dtype=np.float64).ravel()
    n = v.size
    if n == 0:
        raise ValueError("no values to average")
    if ci is not None:
        ci = check_float(ci, "ci", low=0.0, high=1.0, inclusive=(False, False))
    mean, se, interval = float(v.mean()), None, None
    if n > 1 and np.all(np.isfinite(v)):
        mean, se, interval = replicate_summary(v, 0.95 if ci is None else ci)
    elif n > 1:  # a NaN or inf item: no interval around it
        se = float(v.std(ddof=1) / math.sqrt(n))
    if ci is None:
        interval = None
    diag = dict(diagnostics or {})
    if interval is not None:
        diag.setdefault("ci_method", f"mean ± t·sd/sqrt(n) over {n} items")
    return make_estimate(
        mean,
        unit=unit,
        method=method,
        quantity=quantity,
        params=dict(params or {}),
        n=n,
        stderr=se,
        ci=interval,
        ci_level=ci if interval is not None else None,
        diagnostics=diag,
    )


def estimates_frame(estimates: Mapping[str, Estimate], key: str = "name") -> Any:
    """A tidy ``pandas.DataFrame`` with one row per named :class:`Estimate`.

    Columns: ``key``, value, unit, quantity, method, n, stderr, ci_low, ci_high, ci_level.
    """
    import pandas as pd

    rows = []
    for name, e in estimates.items():
        rows.append(
            {
                key: name,
                "value": e.value,
                "unit": e.unit,
                "quantity": e.quantity,
                "method": e.method,
                "n": e.n,
                "stderr": e.stderr,
                "ci_low": None if e.ci is None else e.ci[0],
                "ci_high": None if e.ci is None else e.ci[1],
                "ci_level": e.ci_level,
            }
        )
    return pd.DataFrame(rows)
