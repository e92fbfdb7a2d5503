"""The neighbour engine against brute force (exact equality, not tolerances)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from infometer.knn.engine import KDTree, count_within, kth_distance_to, kth_neighbours


def _pairwise(p: np.ndarray, q: np.ndarray | None = None, metric: str = "max") -> np.ndarray:
    q = p if q is None else q
    diff = np.abs(p[:, None, :] - q[None, :, :])
    return diff.max(-1) if metric == "max" else np.sqrt((diff**2).sum(-1))


def _data(rng, n, d, ties):
    p = rng.standard_normal((n, d))
    if ties:
        p = np.round(p, 1)  # many exact ties
        p[:10] = p[10:20]  # duplicated rows
    return p


@pytest.mark.parametrize("d", [1, 2, 3, 5])
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("k", [1, 4])
def test_kth_neighbours_brute_force(d, ties, k):
    rng = np.random.default_rng(d * 10 + k)
    p = _data(rng, 400, d, ties)
    for metric in ("max", "euclidean"):
        dist = _pairwise(p, metric=metric)
        np.fill_diagonal(dist, np.inf)
        ref = np.sort(dist, axis=1)[:, k - 1]
        got, idx = kth_neighbours(p, k, metric)
        if metric == "max":
            assert np.array_equal(got, ref)
        else:  # sqrt of a sum of squares may differ in the last ulp from numpy's order
            np.testing.assert_allclose(got, ref, rtol=1e-14, atol=0)
        # the listed neighbours are other points, at distances <= the k-th distance
        assert not np.any(idx == np.arange(len(p))[:, None])
        nd = dist[np.arange(len(p))[:, None], idx]
        assert np.all(nd <= got[:, None] * (1 + 1e-14))


@pytest.mark.parametrize("d", [1, 2, 4])
@pytest.mark.parametrize("ties", [False, True])
def test_count_within_brute_force(d, ties):
    rng = np.random.default_rng(d)
    p = _data(rng, 500, d, ties)
    dist = _pairwise(p)
    np.fill_diagonal(dist, np.inf)
    # radii exactly equal to neighbour distances: the boundary cases that matter for KSG
    for r in (np.sort(dist, 1)[:, 2], np.sort(dist, 1)[:, 7], np.zeros(len(p)),
              rng.uniform(0, 1, len(p))):
        assert np.array_equal(count_within(p, r), (dist <= r[:, None]).sum(1))
        assert np.array_equal(count_within(p, r, strict=True), (dist < r[:, None]).sum(1))


def test_sorted_counts_fix_the_searchsorted_trap():
    """A naive searchsorted(v +- nextafter(r, 0)) misplaces the strict boundary (brief §4.3)."""
    rng = np.random.default_rng(0)
    n = 1000
    x = rng.standard_normal(n)
    y = 0.6 * x + 0.8 * rng.standard_normal(n)
    eps, _ = kth_neighbours(np.column_stack([x, y]), 3)
    dist = np.abs(x[:, None] - x[None, :])
    np.fill_diagonal(dist, np.inf)
    brute = (dist < eps[:, None]).sum(1)
    s = np.sort(x)
    r = np.nextafter(eps, 0)
    naive = np.searchsorted(s, x + r, "right") - np.searchsorted(s, x - r, "left") - 1
    assert np.count_nonzero(naive != brute) > 50  # the trap is real on this data ...
    assert np.array_equal(count_within(x, eps, strict=True), brute)  # ... and avoided here


def test_distance_to_other_sample():
    rng = np.random.default_rng(3)
    p, q = rng.standard_normal((300, 3)), rng.standard_normal((200, 3)) + 0.5
    for metric in ("max", "euclidean"):
        ref = np.sort(_pairwise(p, q, metric), axis=1)[:, 4]
        np.testing.assert_allclose(kth_distance_to(q, p, 5, metric), ref, rtol=1e-14, atol=0)


def test_identical_points_and_tiny_sets():
    p = np.zeros((50, 2))
    d, _ = kth_neighbours(p, 3)
    assert np.all(d == 0)
    assert np.all(count_within(p, np.zeros(50)) == 49)
    assert np.all(count_within(p, np.zeros(50), strict=True) == 0)
    tree = KDTree(np.arange(3.0))
    assert np.array_equal(tree.count_self(np.array([1.0, 0.5, 2.0])), [1, 0, 2])


@settings(max_examples=40, deadline=None)
@given(
    hnp.arrays(np.float64, st.tuples(st.integers(5, 60), st.integers(1, 3)),
               elements=st.integers(-4, 4).map(float) | st.floats(-3, 3, width=32)),
    st.integers(1, 4),
)
def test_property_counts_and_knn(p, k):
    n = len(p)
    k = min(k, n - 1)
    dist = _pairwise(p)
    np.fill_diagonal(dist, np.inf)
    eps, _ = kth_neighbours(p, k)
    assert np.array_equal(eps, np.sort(dist, 1)[:, k - 1])
    assert np.array_equal(count_within(p, eps, strict=True), (dist < eps[:, None]).sum(1))
    assert np.array_equal(count_within(p, eps), (dist <= eps[:, None]).sum(1))
