"""Lag embeddings shared by transfer entropy, information storage, entropy rate and network
inference.

A lag ``l >= 1`` of a process is its sample ``l`` steps before the "present" sample
being predicted: the present row of time t is x_t, lag 1 is x_{t-1}.  A uniform history
of length k and delay τ is the lag set {1, 1+τ, ..., 1+(k-1)τ}.
"""

from __future__ import annotations

import numpy as np

from infometer.core.data import Variable
from infometer.core.validation import check_int

__all__ = ["uniform_lags", "check_lags", "present_rows", "lagged", "lag_matrix"]

#: The fewest embedded rows an estimate is computed from.
MIN_ROWS = 10


def uniform_lags(k: int, tau: int) -> list[int]:
    """Lags {1, 1+τ, ..., 1+(k-1)τ} of a uniform history of length ``k``."""
    k = check_int(k, "k", min_value=1)
    tau = check_int(tau, "tau", min_value=1)
    return [1 + j * tau for j in range(k)]


def check_lags(lags: object, name: str = "lags") -> list[int]:
    """A non-empty list of distinct integer lags >= 1, sorted; a lag given twice is refused
    (``[1, 1]`` used to be read as ``[1]`` without a word)."""
    if isinstance(lags, str | bytes) or not hasattr(lags, "__iter__"):
        raise TypeError(f"{name} must be a list of integer lags >= 1, got {lags!r}")
    vals = [check_int(v, f"{name} entry", min_value=1) for v in lags]  # type: ignore[union-attr]
    if not vals:
        raise ValueError(f"{name} must hold at least one lag")
    twice = sorted({v for v in vals if vals.count(v) > 1})
    if twice:
        raise ValueError(f"{name} holds lag {twice[0]} more than once ({vals}): give each lag once")
    return sorted(vals)


def present_rows(n: int, max_lag: int, trials: int = 1) -> np.ndarray:
    """Indices t of the present samples: every t with t - max_lag inside its trial."""
    trials = check_int(trials, "trials", min_value=1)
    if n % trials:
        raise ValueError(f"trials={trials} does not divide the {n} rows into equal trials")
    length = n // trials
    local = np.arange(max_lag, length)
    t = (np.arange(trials)[:, None] * length + local[None, :]).ravel()
    if t.size < MIN_ROWS:
        raise ValueError(
            f"the series have {n} samples ({trials} trial(s)), too few for a largest lag "
            f"of {max_lag}: only {max(t.size, 0)} embedded rows (need at least {MIN_ROWS})"
        )
    return t


def lagged(v: Variable, t: np.ndarray, lags: list[int], name: str) -> Variable:
    """The columns of ``v`` at times t - l for each lag l (lag-major), as one variable."""
    out = None
    for lag in lags:
        part = v.select(t - lag)
        out = part if out is None else out.join(part)
    assert out is not None
    return Variable(
        columns=out.columns,
        kinds=out.kinds,
        cardinalities=out.cardinalities,
        name=name,
        diagnostics=v.diagnostics,
        symbols=out.symbols,
    )


def lag_matrix(data: np.ndarray, items: list[tuple[int, int]], t: np.ndarray) -> np.ndarray:
    """Columns ``data[t - lag, process]`` for each ``(process, lag)`` item, shape (len(t), C)."""
    if not items:
        return np.empty((t.size, 0), dtype=data.dtype)
    proc = np.array([p for p, _ in items])
    lag = np.array([g for _, g in items])
    return data[t[:, None] - lag[None, :], proc[None, :]]
