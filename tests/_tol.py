"""Tolerances that cannot become NaN or inf, on any machine.

Floating-point results differ between CPUs, BLAS builds and thread counts: a quantity
that is 0 in exact arithmetic (a conditional MI that vanishes, a variance of a constant)
may come out as -1e-16 on one machine and +1e-16 on another.  ``sqrt``/``log`` of such a
number is NaN on half of them, and a NaN tolerance makes a comparison meaningless
(``pytest.approx`` raises, ``abs(a - b) < nan`` is always False, ``not (d > nan)`` is
always True).  Every test helper that builds a tolerance from a computed quantity goes
through these functions; ``tests/conftest.py`` also rejects a NaN or infinite tolerance
given to ``pytest.approx`` anywhere in the suite.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["nonneg", "sqrt0", "tol", "check_tolerance"]

#: How far below 0 rounding may push a quantity that is >= 0 in exact arithmetic, relative
#: to the magnitude of the numbers it was computed from (``scale``).
ROUNDING_SLACK = 1e-9


def nonneg(value: Any, name: str = "value", scale: float = 1.0) -> float:
    """``value`` clipped at 0, for a quantity that is >= 0 in exact arithmetic.

    A rounding error (down to ``-ROUNDING_SLACK * scale``) becomes 0; anything more
    negative, or not finite, is a bug in the helper and fails loudly.
    """
    v = float(value)
    if not math.isfinite(v):
        raise AssertionError(f"{name} = {v} is not finite")
    if v < -ROUNDING_SLACK * max(1.0, abs(float(scale))):
        raise AssertionError(f"{name} = {v} is negative beyond rounding error")
    return max(v, 0.0)


def sqrt0(value: Any, name: str = "value", scale: float = 1.0) -> float:
    """``sqrt`` of a quantity that is >= 0 in exact arithmetic (a variance, a CMI)."""
    return math.sqrt(nonneg(value, name, scale))


def check_tolerance(t: Any, name: str = "tolerance") -> None:
    """Raise ``AssertionError`` unless ``t`` (a number or an array) is finite and >= 0."""
    a = np.asarray(t, dtype=np.float64)
    if not np.all(np.isfinite(a)):
        raise AssertionError(f"{name} is not finite ({t!r}): the comparison would be void")
    if np.any(a < 0):
        raise AssertionError(f"{name} is negative ({t!r})")


def tol(*terms: Any) -> float:
    """Sum of tolerance terms, each checked finite and >= 0 (e.g. ``tol(5 * sd, 1e-4)``)."""
    for i, t in enumerate(terms):
        check_tolerance(t, f"tolerance term {i}")
    return float(sum(float(t) for t in terms))
