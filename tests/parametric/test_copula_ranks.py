"""The fast rank path of the Gaussian copula equals the plain one exactly."""

import numpy as np
import pytest
from scipy.special import ndtri
from scipy.stats import rankdata

from infometer.estimators.parametric import gaussian as G


def _column(kind: str, n: int, rng) -> np.ndarray:
    c = rng.standard_normal(n)
    if kind == "rounded":
        c = np.round(c, 1)
    elif kind == "integers":
        c = rng.integers(-3, 3, n).astype(float)
    elif kind == "tiny":
        c = c * 1e-300  # subnormal and near-equal keys
    elif kind == "signed zeros":
        c[: n // 3] = 0.0
        c[n // 3 : n // 2] = -0.0
    elif kind == "close":
        c = 1 + c * 1e-15  # values that differ only in the last bits
    return c


@pytest.mark.parametrize("kind", ["normal", "rounded", "integers", "tiny", "signed zeros", "close"])
@pytest.mark.parametrize("n", [1, 2, 17, 3000])
def test_sort_order_is_a_stable_argsort_and_scores_match_rankdata(kind, n):
    rng = np.random.default_rng(n)
    c = _column(kind, n, rng)
    assert np.array_equal(G._sort_order(c), np.argsort(c, kind="stable"))
    scores, ties, mean = G._copula_scores(c)
    assert np.array_equal(scores[:, 0], ndtri(rankdata(c) / (n + 1.0)))
    assert ties == n - np.unique(c).size
    # the same mean summed in another order: rounding of n terms of size <= 4
    assert abs(mean[0] - np.mean(scores[:, 0])) <= 1e-15 * 4 * max(n, 1)


def test_threaded_columns_equal_serial_columns():
    rng = np.random.default_rng(7)
    a = np.column_stack([_column(k, 100_001, rng) for k in ("normal", "rounded", "close")])
    threaded = G._copula_scores(a)[0]  # from 100,000 rows the columns run on two threads
    serial = np.column_stack([G._copula_scores(a[:, j])[0][:, 0] for j in range(3)])
    assert np.array_equal(threaded, serial)
