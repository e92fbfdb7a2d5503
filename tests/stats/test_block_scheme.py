"""The ``"block"`` resampling scheme of serial quantities (issue 38 §2).

* It exists where it should (TE, AIS, entropy rate, ordinal TE) and is seeded.
* Its block length follows the dependence (1 for white noise, long for φ = 0.9).
* Coverage on fast cases with known truth, with generous binomial bounds (fixed seeds, so
  each count is one number on a platform; the bounds sit far from the expected counts):
  the mean of an AR(1) (truth 0) through :func:`summary_interval`, and the AIS of a Gaussian
  AR(1) (truth −½ log(1 − φ²)) through ``ci=``.  The i.i.d. version of the same interval
  (blocks of one value) under-covers on the same series, so these tests can fail.
"""

from __future__ import annotations

import numpy as np
import pytest

import infometer as im
from infometer.core import registry, resample


def _ar1(phi: float, n: int, seed: int) -> np.ndarray:
    from scipy.signal import lfilter

    e = np.random.default_rng(seed).normal(size=n)
    e[0] /= np.sqrt(1 - phi**2)  # x_0 from the stationary law
    return lfilter([1.0], [1.0, -phi], e)


def test_serial_quantities_use_the_block_scheme():
    registry.get("transfer_entropy", "gaussian")  # post-load hooks
    for quantity in ("transfer_entropy", "active_info_storage", "entropy_rate"):
        for method in ("gaussian", "ksg1", "plugin", "miller_madow"):
            if method in registry.methods(quantity):
                assert registry.get(quantity, method).resampling == "block", (quantity, method)
    assert registry.get("transfer_entropy", "ordinal").resampling == "block"
    assert resample.serial_scheme("seeds") == "seeds"


def test_block_interval_is_seeded_and_says_what_it_did():
    x = _ar1(0.8, 800, 0)
    y = np.roll(x, 1) + np.random.default_rng(1).normal(size=800)
    a = im.transfer_entropy(x, y, method="gaussian", ci=0.9, seed=3)
    b = im.transfer_entropy(x, y, method="gaussian", ci=0.9, seed=3)
    c = im.transfer_entropy(x, y, method="gaussian", ci=0.9, seed=4)
    assert a.ci == b.ci and a.ci != c.ci
    assert "block subsampling" in a.diagnostics["ci_method"]
    assert a.diagnostics["block_length"] > 1
    assert a.ci[0] < a.value < a.ci[1]


def test_block_length_follows_the_dependence():
    rng = np.random.default_rng(0)
    assert resample.block_length(rng.normal(size=(4000, 2))) <= 2
    short, long_ = (
        resample.block_length(_ar1(0.5, 4000, 1)[:, None]),
        resample.block_length(_ar1(0.95, 4000, 1)[:, None]),
    )
    assert 1 < short < long_ <= 4000 // resample.MIN_BLOCKS
    # near a unit root the length approaches its cap of n // MIN_BLOCKS rows
    assert 30 <= resample.block_length(_ar1(0.999, 400, 2)[:, None]) <= 400 // 10


def _mean_coverage(phi: float, force_iid: bool, reps: int = 100, n: int = 800) -> int:
    hits = 0
    for r in range(reps):
        x = _ar1(phi, n, 100 + r)
        if force_iid:  # the same interval with blocks of one value: i.i.d. subsampling
            orig = resample.block_length
            resample.block_length = lambda cols: 1
            try:
                _, (lo, hi), _ = resample.summary_interval(x, level=0.9, seed=r, n_resamples=100)
            finally:
                resample.block_length = orig
        else:
            _, (lo, hi), _ = resample.summary_interval(x, level=0.9, seed=r, n_resamples=100)
        hits += lo <= 0.0 <= hi
    return hits


def test_block_subsampling_covers_the_mean_of_a_dependent_series():
    # 90% intervals, 100 series of AR(1) phi = 0.8, N = 800: blocks cover about 85%
    # (Binomial(100, 0.85): sd 3.6); the bound 72 is 3.6 sd below 85.  i.i.d.
    # subsampling estimates the variance (1 - phi^2) / n instead of the long-run
    # (1 + phi) / (1 - phi) / n: its interval is 1/3 as wide and covers about 40%; the bound
    # 60 is 4 sd above.
    block = _mean_coverage(0.8, False)
    iid = _mean_coverage(0.8, True)
    assert block >= 72, block
    assert iid <= 60, iid


def test_ais_interval_covers_the_closed_form():
    # AIS of a Gaussian AR(1), k = 1: -1/2 log(1 - phi^2); 40 series of N = 300, 90%
    # intervals: expected about 35 covered (0.87); the bound 28 (0.7) is 3 sd below 36.
    phi = 0.7
    truth = -0.5 * np.log(1 - phi**2)
    hits = 0
    for r in range(40):
        x = _ar1(phi, 300, 500 + r)
        e = im.active_info_storage(x, method="gaussian", k=1, ci=0.9, seed=r)
        hits += e.ci[0] <= truth <= e.ci[1]
    assert hits >= 28, hits


def test_local_values_interval_and_refusals():
    x = np.random.default_rng(0).integers(0, 2, 2000)
    lv = im.active_info_storage(x, method="plugin", k=1, local=True)
    e = lv.estimate(ci=0.95)
    assert e.value == pytest.approx(lv.mean) and e.ci[0] < e.value < e.ci[1]
    assert "block subsampling" in e.diagnostics["ci_method"]
    assert lv.estimate().ci is None
    with pytest.raises(ValueError, match="ci"):
        lv.estimate(ci=1.5)
    with pytest.raises(ValueError, match="too few"):
        resample.summary_interval(np.arange(5.0))
