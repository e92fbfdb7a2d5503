"""Validation of the decision family's inputs: distributions, stochastic tables, utilities.

Everything a user hands to :mod:`infometer.systems.decision` (priors, likelihood rows, transition
and observation tables, utility tables) is checked here, once, with an error that names the
argument and says what is wrong, by :mod:`infometer.core.validation` (one tolerance policy).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from infometer.core.validation import (
    check_choice,
    check_float,
    check_int,
    check_probability_vector,
    check_real_array,
    check_stochastic_matrix,
)

__all__ = [
    "as_float_array",
    "distribution",
    "stochastic",
    "table",
    "check_choice",
    "check_float",
    "check_int",
]


def as_float_array(a: Any, name: str) -> np.ndarray:
    """A finite float64 array, or a ``TypeError``/``ValueError`` naming ``name``.

    Through :func:`infometer.core.validation.check_real_array`: numbers written as strings,
    booleans, complex numbers (whose imaginary part would be dropped) and masked values are
    refused, not converted.
    """
    return check_real_array(a, name)


def distribution(p: Any, name: str, *, size: int | None = None) -> np.ndarray:
    """A probability vector (:func:`infometer.core.validation.check_probability_vector`: the
    shared tolerance policy), renormalised exactly."""
    return check_probability_vector(p, name, size=size)


def stochastic(a: Any, name: str, *, shape: tuple[int | None, ...], what: str) -> np.ndarray:
    """A table whose last axis holds distributions
    (:func:`infometer.core.validation.check_stochastic_matrix`).

    ``shape`` gives the expected shape, ``None`` for a free axis; ``what`` says in words
    what the axes are (``"(n_states, n_observations): p(o | s)"``) for the error message.
    """
    return check_stochastic_matrix(a, name, axis=-1, ndim=None, shape=shape, what=what)


def table(u: Any, name: str, *, shape: tuple[int | None, ...], what: str) -> np.ndarray:
    """A finite real table of a given shape (``None`` for a free axis)."""
    arr = as_float_array(u, name)
    if arr.ndim != len(shape) or any(
        want is not None and got != want for got, want in zip(arr.shape, shape, strict=True)
    ):
        want_s = "(" + ", ".join("?" if w is None else str(w) for w in shape) + ")"
        raise ValueError(f"{name} must have shape {want_s} {what}, got {arr.shape}")
    return arr
