"""Input checks of the channel functions (all through :mod:`infometer.core.validation`)."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from infometer.core.validation import (
    Interval,
    check_float,
    check_int,
    check_pmf,
    check_probability_vector,
    check_real_array,
    check_stochastic_matrix,
)

#: The stopping rule every Blahut-Arimoto / IB function declares (``validate_params``).
STOPPING = {
    "tol": [Interval(numbers.Real, 0, None, closed="neither")],
    "max_iter": [Interval(numbers.Integral, 1)],
}

#: Working copies of the table that Blahut's iterations keep (the table, its log, the
#: masked terms and their products): a table is refused when they would pass the memory
#: limit, from its shape alone.
TABLE_COPIES = 5


def channel_matrix(W: Any, name: str = "channel") -> np.ndarray:
    """A channel matrix ``W[x, y] = P(y | x)``: 2-D, finite, >= 0, each row summing to 1."""

    a = check_stochastic_matrix(W, name, axis=-1, copies=TABLE_COPIES)
    if a.ndim != 2:
        raise ValueError(f"{name} must be a 2-D matrix (inputs x outputs), got shape {a.shape}")
    return np.asarray(a, dtype=np.float64)


def pmf(p: Any, name: str) -> np.ndarray:

    return np.asarray(check_probability_vector(p, name), dtype=np.float64)


def joint_table(pxy: Any, name: str = "pxy") -> np.ndarray:
    """A joint pmf ``p(x, y)`` (2-D), refused from its shape when the iterations' working
    copies would pass the memory limit."""
    return check_pmf(pxy, name, ndim=2, copies=TABLE_COPIES)


def distortion_matrix(d: Any, n_source: int, name: str = "distortion") -> np.ndarray:
    """A distortion matrix ``d[x, x^]``: 2-D, real, finite, >= 0, one row per source symbol."""

    a = np.asarray(check_real_array(d, name, ndim=2, copies=TABLE_COPIES), dtype=np.float64)
    if a.shape[0] != n_source:
        raise ValueError(
            f"{name} has {a.shape[0]} rows but the source pmf has {n_source} symbols; "
            "row x holds d(x, x^) for every reproduction symbol x^"
        )
    if a.shape[1] == 0:
        raise ValueError(f"{name} has no reproduction symbols (0 columns)")
    if np.any(a < 0):
        i, j = np.argwhere(a < 0)[0]
        raise ValueError(
            f"{name} has negative entries (d[{i}, {j}] = {a[i, j]:.3g}); distortions must be >= 0"
        )
    return a


def tol_iter(tol: Any, max_iter: Any) -> tuple[float, int]:
    return (
        check_float(tol, "tol", low=0.0, inclusive=(False, True)),
        check_int(max_iter, "max_iter", min_value=1),
    )
