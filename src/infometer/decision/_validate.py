"""Validation of the decision family's inputs: distributions, stochastic tables, utilities.

Everything a user hands to :mod:`infometer.decision` (priors, likelihood rows, transition
and observation tables, utility tables) is checked here, once, with an error that names the
argument and says what is wrong.  Scalars go through :mod:`infometer.data`'s checks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..validation import check_choice, check_float, check_int, check_real_array

__all__ = [
    "as_float_array",
    "distribution",
    "stochastic",
    "table",
    "check_choice",
    "check_float",
    "check_int",
]

#: How far a probability vector may be from summing to one (per entry, for long vectors).
ATOL = 1e-8


def as_float_array(a: Any, name: str) -> np.ndarray:
    """A finite float64 array, or a ``TypeError``/``ValueError`` naming ``name``.

    Through :func:`infometer.validation.check_real_array`: numbers written as strings,
    booleans, complex numbers (whose imaginary part would be dropped) and masked values are
    refused, not converted.
    """
    return check_real_array(a, name)


def distribution(p: Any, name: str, *, size: int | None = None) -> np.ndarray:
    """A probability vector: 1-D, non-negative, summing to one (then renormalised exactly)."""
    a = as_float_array(p, name)
    if a.ndim != 1:
        raise ValueError(f"{name} must be a 1-D probability vector, got shape {a.shape}")
    if size is not None and a.size != size:
        raise ValueError(f"{name} must have {size} entries, got {a.size}")
    if np.any(a < 0):
        raise ValueError(f"{name} is not a distribution: negative entry {a.min():.3g}")
    s = a.sum()
    if abs(s - 1.0) > ATOL * max(1, a.size):
        raise ValueError(f"{name} is not a distribution: it sums to {s:.9g}, not 1")
    return a / s


def stochastic(a: Any, name: str, *, shape: tuple[int | None, ...], what: str) -> np.ndarray:
    """A table whose last axis holds distributions (every row non-negative, summing to one).

    ``shape`` gives the expected shape, ``None`` for a free axis; ``what`` says in words
    what the axes are (``"(n_states, n_observations): p(o | s)"``) for the error message.
    """
    arr = table(a, name, shape=shape, what=what)
    if np.any(arr < 0):
        idx = tuple(int(i) for i in np.argwhere(arr < 0)[0])
        raise ValueError(f"{name} has a negative probability at index {idx}")
    sums = arr.sum(axis=-1)
    bad = np.abs(sums - 1.0) > ATOL * max(1, arr.shape[-1])
    if np.any(bad):
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"{name}{list(idx)} is not a distribution: it sums to {sums[idx]:.9g}, not 1 "
            f"(each row of {name} {what} must sum to one)"
        )
    return arr / sums[..., None]


def table(u: Any, name: str, *, shape: tuple[int | None, ...], what: str) -> np.ndarray:
    """A finite real table of a given shape (``None`` for a free axis)."""
    arr = as_float_array(u, name)
    if arr.ndim != len(shape) or any(
        want is not None and got != want for got, want in zip(arr.shape, shape, strict=True)
    ):
        want_s = "(" + ", ".join("?" if w is None else str(w) for w in shape) + ")"
        raise ValueError(f"{name} must have shape {want_s} {what}, got {arr.shape}")
    return arr
