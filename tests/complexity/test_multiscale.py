"""Multiscale entropy (issue 26 §2)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import ndtr

import infometer as im


def test_mse_of_white_noise_follows_the_coarse_graining_law():
    # coarse-graining white noise by tau divides its sd by sqrt(tau) while r stays
    # 0.2 sd(x): SampEn(tau) = -log P(|X - Y| <= 0.2 sqrt(tau) sd) (Costa et al. 2005)
    x = np.random.default_rng(0).normal(size=30_000)
    res = im.multiscale(x, "sample", scales=5)
    for tau, v in zip(res.scales, res.values, strict=True):
        want = -math.log(2 * ndtr(0.2 * math.sqrt(tau) / math.sqrt(2)) - 1)
        # N / tau >= 6000 points: sd <= 0.03 nats; tolerance 0.1
        assert v == pytest.approx(want, abs=0.1)
    assert np.all(np.diff(res.values) < 0)


def test_refined_composite_and_composite_agree_at_scale_one(tmp_path):
    x = np.random.default_rng(1).normal(size=5000)
    std = im.multiscale(x, "sample", scales=4)
    ref = im.multiscale(x, "sample", scales=4, method="refined")
    comp = im.multiscale(x, "sample", scales=4, method="composite")
    assert ref.values[0] == std.values[0] == comp.values[0]
    # all three estimate the same curve; their differences are sampling noise (< 0.1)
    np.testing.assert_allclose(ref.values, std.values, atol=0.1)
    np.testing.assert_allclose(comp.values, std.values, atol=0.1)
    df = ref.to_frame()
    assert list(df.columns) == ["scale", "value", "stderr", "measure", "method", "unit"]
    ref.plot(path=tmp_path / "mse.png")
    assert ref.complexity_index == pytest.approx(float(np.sum(ref.values)))


def test_multiscale_with_error_bars_and_other_measures():
    x = np.random.default_rng(2).normal(size=6000)
    res = im.multiscale(x, "permutation", scales=[1, 2, 4], ci=0.9, order=3, normalize=True)
    assert res.unit == "normalized" and np.all(res.stderr > 0)
    np.testing.assert_allclose(res.values, 1.0, atol=0.01)


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"scales": 0}, "scales"),
        ({"scales": 4000}, "scales"),
        ({"method": "refined", "measure": "permutation"}, "refined"),
        ({"method": "fancy"}, "method"),
        ({"measure": "nope"}, "measure"),
    ],
)
def test_bad_input(kw, match):
    x = np.random.default_rng(3).normal(size=1000)
    with pytest.raises((ValueError, TypeError), match=match):
        im.multiscale(x, **kw)
