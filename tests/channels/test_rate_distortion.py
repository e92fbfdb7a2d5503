"""R(D) by Blahut's algorithm against closed forms (issue 26 §3)."""

from __future__ import annotations

import numpy as np
import pytest

import infometer as im


def h(p: float) -> float:
    """Binary entropy in nats."""
    return 0.0 if p in (0.0, 1.0) else float(-p * np.log(p) - (1 - p) * np.log(1 - p))


HAMMING2 = [[0.0, 1.0], [1.0, 0.0]]


@pytest.mark.parametrize("p", [0.5, 0.3, 0.1])
@pytest.mark.parametrize("frac", [0.05, 0.3, 0.7, 0.95])
def test_bernoulli_hamming_at_a_given_distortion(p, frac):
    D = frac * min(p, 1 - p)
    pt = im.exact.rate_distortion([p, 1 - p], HAMMING2, max_distortion=D)
    # bisection stops within 1e-9 relative of D (R' = log((1-D)/D) <= 6 here, so <1e-8
    # nats from D's error) and the certified gap is <= 1e-10 nats
    assert pt.distortion == pytest.approx(D, rel=1e-8)
    assert pt.value == pytest.approx(h(p) - h(D), abs=1e-7)
    assert pt.lower <= h(p) - h(pt.distortion) + 1e-9 <= pt.value + 2e-9


def test_beyond_max_distortion_the_rate_is_zero():
    pt = im.exact.rate_distortion([0.3, 0.7], HAMMING2, max_distortion=0.4)
    assert pt.value == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("m", [3, 5])
def test_uniform_source_hamming_closed_form(m):
    # R(D) = log m - h(D) - D log(m - 1) for D <= 1 - 1/m (Cover & Thomas, Problem 10.5)
    d = 1.0 - np.eye(m)
    curve = im.exact.rate_distortion_curve(np.full(m, 1 / m), d, n_points=25)
    D, R = curve.distortion, curve.rate
    inside = D < 1 - 1 / m - 1e-9
    truth = np.log(m) - np.array([h(x) for x in D[inside]]) - D[inside] * np.log(m - 1)
    np.testing.assert_allclose(R[inside], truth, atol=1e-8)
    assert curve.max_distortion == pytest.approx(1 - 1 / m)
    assert np.all(curve.lower <= curve.rate + 1e-15)


def test_curve_is_convex_decreasing_and_bounded(tmp_path):
    p = 0.2
    curve = im.exact.rate_distortion_curve([p, 1 - p], HAMMING2, unit="bits")
    D, R = curve.distortion, curve.rate
    assert np.all(np.diff(R) <= 1e-12)  # sorted by D: non-increasing
    truth = np.array([(h(p) - h(x)) / np.log(2) if x < p else 0.0 for x in D])
    np.testing.assert_allclose(R, truth, atol=1e-8)
    df = curve.to_frame()
    assert set(df.columns) >= {"beta", "distortion", "rate", "rate_lower"}
    curve.plot(path=tmp_path / "rd.png")
    assert (tmp_path / "rd.png").stat().st_size > 0


def test_beta_gives_the_point_with_that_slope():
    # for Bernoulli/Hamming the slope of R(D) is -log((1-D)/D): beta = log 9 gives D = 0.1
    pt = im.exact.rate_distortion([0.5, 0.5], HAMMING2, beta=np.log(9.0))
    assert pt.distortion == pytest.approx(0.1, abs=1e-9)
    assert pt.value == pytest.approx(np.log(2) - h(0.1), abs=1e-9)


@pytest.mark.parametrize(
    "p_x, d, kw, match",
    [
        ([0.5, 0.5], [[0, -1], [1, 0]], {"beta": 1.0}, "distortion"),
        ([0.5, 0.5], [[0, 1, 2]], {"beta": 1.0}, "distortion"),
        ([0.6, 0.6], HAMMING2, {"beta": 1.0}, "p_x"),
        ([0.5, 0.5], HAMMING2, {}, "beta"),
        ([0.5, 0.5], HAMMING2, {"beta": 1.0, "max_distortion": 0.1}, "beta"),
        ([0.5, 0.5], HAMMING2, {"beta": -1.0}, "beta"),
        ([0.5, 0.5], [[1, 2], [2, 1]], {"max_distortion": 0.5}, "max_distortion"),
    ],
)
def test_bad_input(p_x, d, kw, match):
    with pytest.raises((ValueError, TypeError), match=match):
        im.exact.rate_distortion(p_x, d, **kw)
