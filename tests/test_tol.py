"""The suite's tolerance guard (issue 9 §1): no tolerance can be NaN or infinite."""

from __future__ import annotations

import math

import pytest

from tests._tol import nonneg, sqrt0, tol


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -1e-3])
def test_approx_rejects_a_void_tolerance(bad):
    # tests/conftest.py wraps pytest.approx for the whole suite
    with pytest.raises(AssertionError, match="abs"):
        pytest.approx(1.0, abs=bad)
    with pytest.raises(AssertionError, match="rel"):
        pytest.approx([1.0, 2.0], rel=bad)
    assert 1.0 == pytest.approx(1.0 + 1e-9, abs=1e-6)  # ordinary use is unchanged


def test_rounding_below_zero_is_zero_but_a_real_negative_fails():
    assert nonneg(-1.1e-16) == 0.0 and sqrt0(-1.1e-16) == 0.0
    assert sqrt0(4.0) == 2.0
    assert nonneg(-1e-10, scale=1e3) == 0.0  # relative to the magnitude of the inputs
    with pytest.raises(AssertionError, match="negative beyond rounding"):
        sqrt0(-1e-6)
    with pytest.raises(AssertionError, match="not finite"):
        nonneg(math.nan)


def test_tol_sums_checked_terms():
    assert tol(0.5, 1e-4) == pytest.approx(0.5001)
    for bad in (math.nan, math.inf, -1.0):
        with pytest.raises(AssertionError):
            tol(0.1, bad)
