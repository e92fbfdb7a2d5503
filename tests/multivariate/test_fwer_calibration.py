"""Calibration of the search-adjusted family-wise p-values of ``im.multiplets``.

On null data (independent Gaussian columns) the observed data set and its B surrogates
(every column permuted independently) are exchangeable, and the family-wise statistic of
one size (exhaustive: the largest |value| over every multiplet; greedy/beam: the best value
the same search finds) is one function applied to each.  The observed statistic is then
the largest of the B + 1 with probability exactly 1/(B + 1) (continuous values: no ties),
so with B = 19 "some multiplet of that size has p_fwer <= 0.05" happens in exactly 5% of
null data sets.  Over K data sets the count is Binomial(K, 0.05); we require it inside the
central 99.9% interval (a fixed seed: the test is deterministic, and a failure means the
adjustment is wrong, not bad luck).  As a check that the test can fail, the unadjusted
per-multiplet p-values reach 0.05 far more often (the search picked the extreme one).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binom

import infometer as im

K = 200  # null data sets per search
B = 19  # surrogates: p_fwer <= 0.05 iff the observed statistic beats all 19
N, D = 100, 7  # rows, variables (35 triplets, 35 quadruplets, 21 quintuplets)
LO, HI = binom.ppf(0.0005, K, 0.05), binom.ppf(0.9995, K, 0.05)  # 2 and 20 of 200


def _null_frames(search: str, sizes, **kw):
    rng = np.random.default_rng(20261202)
    for k in range(K):
        x = rng.standard_normal((N, D))
        yield im.multiplets(
            x, sizes=sizes, n_permutations=B, search=search, seed=k, progress=False, **kw
        ).frame


def _rates(search: str, sizes, **kw) -> tuple[dict, dict]:
    """Per size: data sets with some p_fwer <= 0.05, and with some raw p_value <= 0.05."""
    fwer: dict = {}
    raw: dict = {}
    for f in _null_frames(search, sizes, **kw):
        for s, g in f.groupby("size"):
            fwer[s] = fwer.get(s, 0) + int((g["p_fwer"] <= 0.05 + 1e-12).any())
            raw[s] = raw.get(s, 0) + int((g["p_value"] <= 0.05 + 1e-12).any())
    return fwer, raw


@pytest.mark.slow
def test_exhaustive_p_fwer_is_calibrated_on_null_data():
    fwer, raw = _rates("exhaustive", 3)
    assert LO <= fwer[3] <= HI, (fwer, (LO, HI))
    assert raw[3] > 3 * HI  # 35 unadjusted tests per data set: most data sets "find" one


@pytest.mark.slow
@pytest.mark.parametrize(("search", "kw"), [("greedy", {}), ("beam", {"beam_width": 3})])
def test_search_p_fwer_is_calibrated_on_null_data(search, kw):
    fwer, raw = _rates(search, (3, 5), **kw)
    assert set(fwer) == {3, 4, 5}
    for s in (3, 4, 5):  # the family: the multiplets of one size the search kept
        assert LO <= fwer[s] <= HI, (s, fwer, (LO, HI))
    # the raw p-value of the searched-for best triplet ignores the search: it is the
    # most extreme of 35, so it is at its floor 1/20 in most null data sets
    assert raw[3] > 3 * HI
