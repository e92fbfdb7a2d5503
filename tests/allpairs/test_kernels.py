"""The all-pairs KSG kernel against brute force, and the copula block formulas.

The kernel finds neighbours on a per-pair grid and counts on sorted columns; brute force
computes every max-norm distance.  Both use the same float64 differences and the same
strict predicate, so the counts are identical and the values agree to summation order
(1e-12).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import digamma

from infometer.estimators.knn.kernels import ksg as engine_ksg
from infometer.workflows.allpairs import kernels


def brute_ksg1(x, y, k):
    dx = np.abs(x[:, None] - x[None, :])
    dy = np.abs(y[:, None] - y[None, :])
    d = np.maximum(dx, dy)
    np.fill_diagonal(d, np.inf)
    eps = np.sort(d, axis=1)[:, k - 1]
    np.fill_diagonal(dx, np.inf)
    np.fill_diagonal(dy, np.inf)
    nx = (dx < eps[:, None]).sum(1)
    ny = (dy < eps[:, None]).sum(1)
    n = x.size
    return digamma(k) + digamma(n) - np.mean(digamma(nx + 1) + digamma(ny + 1))


def block(cols, pairs, k, perms=None):
    arrays = kernels.column_arrays(np.vstack(cols), kernels.n_slabs(len(cols[0])))
    ia = np.array([a for a, _ in pairs])
    ib = np.array([b for _, b in pairs])
    return kernels.ksg_block(arrays, ia, ib, k, perms)


@pytest.mark.parametrize("k", [1, 3, 5, 8])
def test_ksg_block_equals_brute_force_and_engine(k):
    rng = np.random.default_rng(k)
    n = 400
    a = rng.standard_normal(n)
    cols = [a, a + 0.3 * rng.standard_normal(n), rng.standard_t(1.5, n), rng.uniform(size=n)]
    cols = [(c - c.mean()) / c.std() for c in cols]
    pairs = [(0, 1), (0, 2), (1, 3), (2, 3), (1, 0)]
    vals, ge = block(cols, pairs, k)
    for (i, j), v in zip(pairs, vals, strict=True):
        assert v == pytest.approx(brute_ksg1(cols[i], cols[j], k), abs=1e-12)
        ref, _ = engine_ksg(cols[i][:, None], cols[j][:, None], k)
        assert v == pytest.approx(ref, abs=1e-12)
    assert vals[0] == pytest.approx(vals[-1], abs=1e-12)  # symmetric in the pair
    assert (ge == 0).all()


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(8, 120),
    k=st.integers(1, 6),
    seed=st.integers(0, 2**32 - 1),
    rounding=st.sampled_from([None, 0, 1]),
)
def test_ksg_block_brute_force_on_awkward_data(n, k, seed, rounding):
    """Small n, ties (rounded data: equal coordinates, zero distances), heavy tails."""
    if k >= n:
        k = n - 1
    rng = np.random.default_rng(seed)
    x = rng.standard_cauchy(n)
    y = x * rng.choice([-1.0, 0.0, 1.0]) + rng.standard_normal(n)
    if rounding is not None:
        x, y = np.round(x, rounding), np.round(y, rounding)
    (v,), _ = block([x, y], [(0, 1)], k)
    # with ties a k-th distance may be 0: strict counts are then 0 on both sides
    assert v == pytest.approx(brute_ksg1(x, y, k), abs=1e-9)


def test_null_counts_are_the_kernel_on_permuted_data():
    rng = np.random.default_rng(3)
    n = 200
    x = rng.standard_normal(n)
    y = 0.3 * x + rng.standard_normal(n)
    perms = np.array([rng.permutation(n) for _ in range(15)])
    (obs,), (ge,) = block([x, y], [(0, 1)], 3, perms)
    nulls = [brute_ksg1(x, y[p], 3) for p in perms]
    assert obs == pytest.approx(brute_ksg1(x, y, 3), abs=1e-12)
    assert ge == sum(v >= obs for v in nulls)


def test_ksg_block_rejects_unsupported_k():
    cols = [np.arange(10.0), np.arange(10.0)[::-1]]
    with pytest.raises(ValueError, match="k <= 8"):
        block(cols, [(0, 1)], 9)
    with pytest.raises(ValueError, match="smaller than the number of samples"):
        block([c[:5] for c in cols], [(0, 1)], 5)


def test_copula_scores_and_mi():
    rng = np.random.default_rng(0)
    v = rng.standard_normal((3, 500))
    v[2] = 7.0  # constant row -> zero scores
    z, ties = kernels.copula_scores(v)
    assert np.allclose(np.einsum("ij,ij->i", z[:2], z[:2]), 1.0)
    assert np.all(z[2] == 0.0) and ties.tolist() == [False, False, True]
    # bias term: the Wishart correction of a 2x2 log-det, negative and O(1/n)
    b = kernels.copula_bias(500)
    assert -1.5 / 500 < b < -0.5 / 500
    r = np.array([0.0, 0.5, -0.5, 1.0])
    mi = kernels.copula_mutual_info(r, 0.0)
    assert mi[0] == 0.0 and mi[1] == pytest.approx(-0.5 * np.log(0.75)) and mi[1] == mi[2]
    assert mi[3] == np.inf
