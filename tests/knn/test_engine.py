"""The neighbour engine against brute force (exact equality, not tolerances)."""

import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from infometer.estimators.knn import _engine as engine
from infometer.estimators.knn._engine import (
    KDTree,
    RangeCounter,
    count_within,
    kth_distance_to,
    kth_neighbours,
)


@pytest.fixture(params=["compiled", "scipy"])
def backend(request, monkeypatch):
    """Run a test on each backend of the engine (both must be exact)."""
    monkeypatch.setattr(engine, "BACKEND", request.param)
    return request.param


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
def test_kth_neighbours_brute_force(d, ties, k, backend):
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


@pytest.mark.parametrize("d", [1, 2, 3, 4, 5])  # sorted column, quantile grid, kd-tree
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("grid_min", [0, 10**9])  # 2-4 columns: on the grid, on the tree
def test_count_within_brute_force(d, ties, grid_min, monkeypatch, backend):
    monkeypatch.setattr(engine, "GRID_MIN_POINTS", grid_min)
    rng = np.random.default_rng(d)
    p = _data(rng, 500, d, ties)
    dist = _pairwise(p)
    np.fill_diagonal(dist, np.inf)
    # radii exactly equal to neighbour distances: the boundary cases that matter for KSG
    for r in (
        np.sort(dist, 1)[:, 2],
        np.sort(dist, 1)[:, 7],
        np.zeros(len(p)),
        rng.uniform(0, 1, len(p)),
    ):
        assert np.array_equal(count_within(p, r), (dist <= r[:, None]).sum(1))
        assert np.array_equal(count_within(p, r, strict=True), (dist < r[:, None]).sum(1))


@pytest.mark.parametrize("d", [2, 3, 4])
@pytest.mark.parametrize(
    "kind", ["gauss", "ties", "cauchy", "dependent", "constant column", "two atoms"]
)
def test_grid_counts_equal_tree_and_brute_force(d, kind, monkeypatch):
    """The quantile grid (2-4 columns) on data that stresses its slabs, at a size where it
    has many slabs per column: exact agreement with brute force and with the kd-trees of
    both backends."""
    monkeypatch.setattr(engine, "BACKEND", "compiled")
    monkeypatch.setattr(engine, "GRID_MIN_POINTS", 1000)  # the grid path at n = 1500
    rng = np.random.default_rng(d)
    n = 1500
    p = rng.standard_normal((n, d))
    if kind == "ties":
        p = np.round(p, 1)
    elif kind == "cauchy":
        p = rng.standard_cauchy((n, d))
    elif kind == "dependent":
        p = p[:, :1] + 1e-3 * p  # all columns nearly equal: most cells are empty
    elif kind == "constant column":
        p[:, 0] = 2.5
    elif kind == "two atoms":
        p[: n // 2] = 0.0
    counter = RangeCounter(p)
    assert counter._tree is None  # the grid path
    dist = _pairwise(p)
    np.fill_diagonal(dist, np.inf)
    srt = np.sort(dist, 1)
    tree = KDTree(p)
    monkeypatch.setattr(engine, "BACKEND", "scipy")
    scipy_tree = KDTree(p)
    for r in (srt[:, 2], srt[:, 40], srt[:, 400], np.zeros(n), rng.uniform(0, 0.5, n)):
        ref = (dist <= r[:, None]).sum(1)
        assert np.array_equal(counter.count(r), ref)
        assert np.array_equal(counter.count(r, strict=True), (dist < r[:, None]).sum(1))
        assert np.array_equal(tree.count_self(r), ref)
        assert np.array_equal(scipy_tree.count_self(r), ref)


def test_sorted_counts_fix_the_searchsorted_trap(backend):
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


@pytest.mark.parametrize("ties", [False, True])
def test_rank_intervals_are_exact(ties):
    """The rank-space primitive: per sorted position, exactly the positions within r
    (boundary radii taken from real gaps, ties, zero and negative radii)."""
    from infometer.estimators.knn import _compiled as compiled

    rng = np.random.default_rng(3)
    s = np.sort(_data(rng, 400, 1, ties)[:, 0])
    gaps = np.abs(s[rng.integers(0, 400, 400)] - s)  # radii that hit a point exactly
    r = np.where(rng.random(400) < 0.5, gaps, rng.random(400) * 0.5)
    r[:5], r[5:10] = 0.0, -1.0
    lo, hi = np.empty(400, np.int64), np.empty(400, np.int64)
    compiled._rank_bounds(s, r, lo, hi, 0, 400)
    inside = np.abs(s[None, :] - s[:, None]) <= r[:, None]
    pos = np.arange(400)
    for a, b in ((lo, hi), engine._rank_intervals(s, r)):  # compiled and numpy
        assert np.array_equal(inside, (pos[None, :] >= a[:, None]) & (pos[None, :] < b[:, None]))
    r[10:12] = np.nan  # no point is within a NaN radius, not even the point itself
    compiled._rank_bounds(s, r, lo, hi, 0, 400)
    for a, b in ((lo, hi), engine._rank_intervals(s, r)):
        assert np.array_equal(a[10:12], b[10:12])


@pytest.mark.parametrize("d", [2, 3, 16])
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("n", [64, 333])
def test_rank_bitset_counts_brute_force(d, ties, n, monkeypatch):
    """The scipy backend's rank-interval bitsets (many columns, small N): brute force,
    with N a multiple of the 64-bit word and not, ties, zero and negative radii."""
    from infometer.estimators.knn import _rankbits as rankbits

    monkeypatch.setattr(engine, "BACKEND", "scipy")
    monkeypatch.setattr(engine, "RANKBITS_MIN_POINTS", 0)
    rng = np.random.default_rng(d + n)
    p = _data(rng, n, d, ties)
    if d > 2:
        p[:, 1] = 0.5  # a constant column
    counter = RangeCounter(p)
    assert counter._bits and counter._tree is None
    dist = _pairwise(p)
    np.fill_diagonal(dist, np.inf)
    srt = np.sort(dist, 1)
    mixed = srt[:, 3].copy()
    mixed[:7] = 0.0
    mixed[7:12] = -1.0
    for r in (srt[:, 2], srt[:, n // 3], mixed, rng.uniform(0, 1, n)):
        want = (dist <= r[:, None]).sum(1)
        want[r < 0] = 0  # nothing is within a negative radius, on every structure
        assert np.array_equal(counter.count(r), want)
        strict = (dist < r[:, None]).sum(1)
        assert np.array_equal(counter.count(r, strict=True), np.where(r < 0, 0, strict))
    monkeypatch.setattr(rankbits, "MAX_BYTES", 8)  # too big for the cap: the kd-tree
    assert RangeCounter(p)._tree is not None


@pytest.mark.parametrize(
    ("backend_name", "n", "d", "path"),
    [
        ("scipy", 200, 1, "sorted"),
        ("scipy", 200, 3, "rankbits"),
        ("scipy", 200, 4, "tree"),  # rank bitsets off below
        ("compiled", 200, 1, "sorted"),
        ("compiled", 200, 3, "grid"),
        ("compiled", 200, 3, "tree"),
        ("compiled", 200, 6, "bitset"),
    ],
)
@pytest.mark.slow
def test_negative_and_nan_radii_count_nothing_on_every_structure(
    backend_name, n, d, path, monkeypatch
):
    """A negative or NaN radius counts 0 (not even the point itself), strict or not,
    whatever structure the counter uses; the other radii count as brute force."""
    monkeypatch.setattr(engine, "BACKEND", backend_name)
    monkeypatch.setattr(engine, "RANKBITS_MIN_POINTS", 0 if path == "rankbits" else 10**9)
    monkeypatch.setattr(engine, "GRID_MIN_POINTS", 0 if path == "grid" else 10**9)
    monkeypatch.setattr(engine, "BITSET_MIN_POINTS", 0 if path == "bitset" else 10**9)
    monkeypatch.setattr(engine, "BITSET_COLD_MIN_POINTS", 0)
    rng = np.random.default_rng(n + d)
    p = rng.standard_normal((n, d))
    counter = RangeCounter(p)
    used = (
        "tree" if counter._tree is not None
        else "rankbits" if counter._bits
        else "bitset" if counter._index is not None
        else "sorted" if d == 1
        else "grid"
    )  # fmt: skip
    assert used == path
    dist = _pairwise(p)
    np.fill_diagonal(dist, np.inf)
    r = np.sort(dist, 1)[:, 4]
    r[::5], r[1::5], r[2::5] = -1.0, np.nan, -0.0
    bad = ~(r >= 0)
    for strict in (False, True):
        want = (dist < r[:, None]).sum(1) if strict else (dist <= r[:, None]).sum(1)
        want[bad] = 0
        assert np.array_equal(counter.count(r, strict=strict), want), (path, strict)


def test_distance_to_other_sample(backend):
    rng = np.random.default_rng(3)
    p, q = rng.standard_normal((300, 3)), rng.standard_normal((200, 3)) + 0.5
    for metric in ("max", "euclidean"):
        ref = np.sort(_pairwise(p, q, metric), axis=1)[:, 4]
        np.testing.assert_allclose(kth_distance_to(q, p, 5, metric), ref, rtol=1e-14, atol=0)


def test_identical_points_and_tiny_sets(backend):
    p = np.zeros((50, 2))
    d, _ = kth_neighbours(p, 3)
    assert np.all(d == 0)
    assert np.all(count_within(p, np.zeros(50)) == 49)
    assert np.all(count_within(p, np.zeros(50), strict=True) == 0)
    tree = KDTree(np.arange(3.0))
    assert np.array_equal(tree.count_self(np.array([1.0, 0.5, 2.0])), [1, 0, 2])


@settings(max_examples=40, deadline=None)
@given(
    hnp.arrays(
        np.float64,
        st.tuples(st.integers(5, 60), st.integers(1, 5)),
        elements=st.integers(-4, 4).map(float) | st.floats(-3, 3, width=32),
    ),
    st.integers(1, 4),
)
def test_property_counts_and_knn(p, k):
    keep = engine.RANKBITS_MIN_POINTS
    # compiled; scipy (cKDTree counts at these sizes); scipy with rank-bitset counts
    for b, rankbits_from in (("compiled", keep), ("scipy", keep), ("scipy", 0)):
        engine.BACKEND, engine.RANKBITS_MIN_POINTS = b, rankbits_from
        try:
            _counts_and_knn(p, k)
        finally:
            engine.BACKEND, engine.RANKBITS_MIN_POINTS = "auto", keep


def _counts_and_knn(p, k):
    n = len(p)
    k = min(k, n - 1)
    dist = _pairwise(p)
    np.fill_diagonal(dist, np.inf)
    eps, _ = kth_neighbours(p, k)
    assert np.array_equal(eps, np.sort(dist, 1)[:, k - 1])
    assert np.array_equal(count_within(p, eps, strict=True), (dist < eps[:, None]).sum(1))
    assert np.array_equal(count_within(p, eps), (dist <= eps[:, None]).sum(1))


@pytest.mark.parametrize("ties", [False, True])
def test_two_thread_build_is_the_serial_tree(ties):
    """Large sets build the root's two subtrees on two threads; the tree (point order,
    leaves, hence every neighbour index, even among tied distances) must not change."""
    rng = np.random.default_rng(5)
    p = _data(rng, 30_001, 3, ties)
    serial = engine._build_tree(p.copy(), engine.LEAFSIZE)
    halves = engine._build_halves(p, engine.LEAFSIZE)
    assert np.array_equal(serial[0], halves[0]) and np.array_equal(serial[1], halves[1])
    assert len(serial[3]) == len(halves[3])
    tree = KDTree(p)
    d, i = tree.knn_self(3)
    sub = KDTree(p[:500])  # small sets are built serially
    assert np.array_equal(
        sub.knn_self(3)[0], np.sort(_pairwise(p[:500]) + np.diag([np.inf] * 500), 1)[:, :3]
    )
    # the tree-order positions reproduce the serial build's neighbour lists
    ref_tree = KDTree.__new__(KDTree)
    ref_tree.n, ref_tree.d = p.shape
    ref_tree.compiled = True
    ref_tree.perm, ref_tree.data, ref_tree._leaf_of = serial[:3]
    ref_tree._search = None
    ref_tree._lo, ref_tree._hi, ref_tree._child, ref_tree._bmin, ref_tree._bmax = serial[3:]
    d_ref, i_ref = ref_tree.knn_self(3)
    assert np.array_equal(d, d_ref) and np.array_equal(i, i_ref)


def test_concurrent_structures_change_no_estimate(monkeypatch):
    """From PARALLEL_MIN rows the estimators build the joint tree and the marginal
    structures on several threads (engine.start) and split tree builds in two; the
    estimates must be bit-identical to the one-thread path."""
    from infometer.estimators.knn import _kernels as kernels

    rng = np.random.default_rng(11)
    n = engine.PARALLEL_MIN + 1000
    x = rng.standard_normal((n, 2))
    y = x[:, :1] + rng.standard_normal((n, 1))
    z = np.round(rng.standard_normal((n, 1)), 1)  # ties: atoms for GKOV

    def estimates():
        return (
            kernels.ksg(x, y, 3, 1),
            kernels.ksg(x, y, 3, 2),
            kernels.frenzel_pompe(x, y, z, 3),
            kernels.gkov(x, z, None, 3),
            kernels.gkov(x, y, z, 3),
        )

    monkeypatch.setattr(engine, "n_threads", lambda: 2)  # threaded even where pinned to 1
    threaded = estimates()
    monkeypatch.setattr(engine, "PARALLEL_MIN", 10**9)
    assert estimates() == threaded


def test_start_honours_one_thread(monkeypatch):
    """With the thread policy at one thread (NUMBA_NUM_THREADS=1 / INFOMETER_NUM_THREADS=1)
    engine.start starts no thread: the getters are the makers, run by the caller."""

    def a():
        return threading.current_thread()

    def b():
        return threading.current_thread()

    monkeypatch.setattr(engine, "n_threads", lambda: 1)
    assert engine.start(10**7, a, b) == [a, b]
    monkeypatch.setattr(engine, "n_threads", lambda: 2)
    getters = engine.start(10**7, a, b)
    assert [g() for g in getters] != [threading.current_thread()] * 2


@pytest.mark.parametrize("ties", [False, True])
def test_backends_give_identical_estimates(ties, monkeypatch):
    """Small problems run on scipy until the compiled kernels are loaded, larger ones on
    the compiled kernels: every estimate must be the same number on both (max-norm results
    are exact; Euclidean distances are recomputed as the compiled kernel computes them)."""
    import infometer as im

    rng = np.random.default_rng(21)
    n = 700
    x = rng.standard_normal((n, 2))
    y = x[:, :1] + rng.standard_normal((n, 1))
    z = rng.standard_normal((n, 1))
    if ties:
        x, z = np.round(x, 1), np.round(z, 1)
    q = rng.standard_normal((500, 2)) + 0.3

    def estimates():
        return [
            im.entropy(x, method="kozachenko_leonenko", jitter="never" if not ties else "auto"),
            im.entropy(x, method="kozachenko_leonenko", metric="euclidean"),
            im.mutual_info(x, y, method="ksg1"),
            im.mutual_info(x, y, method="ksg2"),
            im.mutual_info(x, y, method="ksg1", theiler=3),
            im.cond_mutual_info(x, y, z, method="frenzel_pompe"),
            im.mutual_info(x, z, method="gkov"),
            im.kl_divergence(x, q, method="wkv"),
            im.kl_divergence(x, q, method="wkv", metric="max"),
        ]

    monkeypatch.setattr(engine, "BACKEND", "compiled")
    compiled = [e.value for e in estimates()]
    monkeypatch.setattr(engine, "BACKEND", "scipy")
    scipy_ = [e.value for e in estimates()]
    assert compiled == scipy_
    monkeypatch.setattr(engine, "RANKBITS_MIN_POINTS", 0)  # scipy's counts on rank bitsets
    assert [e.value for e in estimates()] == compiled


def test_backend_rule(monkeypatch):
    """Small problems go to scipy until the process has spent SWITCH_AFTER_S there (or the
    compiled kernels are loaded); large ones go to the compiled kernels, mid-sized ones
    only once the kernels are in numba's cache."""
    import sys

    monkeypatch.setattr(engine, "BACKEND", "auto")
    monkeypatch.delitem(sys.modules, "infometer.estimators.knn._compiled", raising=False)
    monkeypatch.setattr(engine, "_scipy_seconds", 0.0)
    monkeypatch.setattr(engine, "_cached", True)
    assert not engine.uses_compiled(100)
    assert engine.uses_compiled(engine.JIT_MIN_POINTS)
    monkeypatch.setattr(engine, "_cached", False)  # a cold cache: scipy up to COLD_MIN_POINTS
    assert not engine.uses_compiled(engine.JIT_MIN_POINTS, 3)
    assert not engine.uses_compiled(engine.COLD_MIN_POINTS - 1, 3)
    assert engine.uses_compiled(engine.COLD_MIN_POINTS, 3)
    assert not engine.uses_compiled(engine.COLD_MIN_POINTS - 1, engine.COLD_LOW_DIM)
    assert engine.uses_compiled(engine.COLD_MIN_POINTS_HIGH_DIM, engine.COLD_LOW_DIM + 1)
    monkeypatch.setattr(engine, "_scipy_seconds", engine.SWITCH_AFTER_S)
    assert not engine.uses_compiled(100)  # cold: a compile costs more than a load
    monkeypatch.setattr(engine, "_scipy_seconds", engine.COLD_SWITCH_AFTER_S)
    assert engine.uses_compiled(100)
    monkeypatch.setattr(engine, "_cached", True)
    monkeypatch.setattr(engine, "_scipy_seconds", engine.SWITCH_AFTER_S)
    assert engine.uses_compiled(100)
    monkeypatch.setattr(engine, "BACKEND", "scipy")
    assert not engine.uses_compiled(10**7)


def test_cache_marker(monkeypatch, tmp_path):
    """A compiled run leaves a marker in numba's cache directory; a new process finds it."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(engine, "_cached", None)
    assert not engine.kernels_cached()
    monkeypatch.setattr(engine, "_cached", None)
    engine._note_cached()
    assert engine._marker().startswith(str(tmp_path))
    monkeypatch.setattr(engine, "_cached", None)  # as a new process
    assert engine.kernels_cached()


def _canonical(p: np.ndarray, q: np.ndarray, k: int, metric: str, self_rows: bool):
    """Brute force: the k nearest rows of p to each row of q by (distance, row), the
    distance computed as the kernel computes it (squares summed column by column)."""
    if metric == "max":
        dist = np.abs(q[:, None, :] - p[None, :, :]).max(-1)
    else:
        s = np.zeros((len(q), len(p)))
        for c in range(p.shape[1]):
            u = p[None, :, c] - q[:, None, c]
            s += u * u
        dist = np.sqrt(s)
    if self_rows:
        np.fill_diagonal(dist, np.inf)
    rows = np.broadcast_to(np.arange(len(p)), dist.shape)
    order = np.lexsort((rows, dist), axis=1)[:, :k]  # by distance, then by row
    return np.take_along_axis(dist, order, 1), order


@pytest.mark.parametrize("d", [1, 2, 3, 6])
@pytest.mark.parametrize("leafsize", [3, 16, 40])
def test_neighbour_lists_are_the_canonical_ones(d, leafsize, monkeypatch):
    """Compiled backend, data full of ties (a small integer lattice, duplicated rows, 60
    identical rows: a leaf larger than one scan step): the k neighbours are exactly the k
    nearest by (distance, row) for k = 1, 5 and n - 1, with both norms; the same for a
    second sample of queries (tree points among them)."""
    monkeypatch.setattr(engine, "BACKEND", "compiled")
    rng = np.random.default_rng(d * 100 + leafsize)
    n = 300
    p = rng.integers(-2, 3, (n, d)).astype(float)
    p[:20] = p[20:40]
    p[100:160] = 0.5
    q = np.vstack([p[::7], rng.integers(-3, 4, (40, d)) * 0.75])
    tree = KDTree(p, leafsize)
    for metric in ("max", "euclidean"):
        for k in (1, 5, n - 1):
            got_d, got_i = tree.knn_self(k, metric)
            ref_d, ref_i = _canonical(p, p, k, metric, True)
            assert np.array_equal(got_d, ref_d) and np.array_equal(got_i, ref_i)
            ref_q = _canonical(p, q, k, metric, False)[0]
            assert np.array_equal(tree.knn(q, k, metric), ref_q)


def test_neighbour_lists_do_not_depend_on_threads(monkeypatch):
    """Tied neighbours are chosen by row, so splitting the queries into other chunks or
    threads (or a serial build instead of the two-thread one) changes no index."""
    monkeypatch.setattr(engine, "BACKEND", "compiled")
    rng = np.random.default_rng(8)
    p = np.round(rng.standard_normal((engine.PARALLEL_MIN + 500, 4)), 1)
    p[:300] = p[300:600]
    threaded = KDTree(p).knn_self(6)
    monkeypatch.setattr(engine, "CHUNKS_PER_THREAD", 7)
    assert all(np.array_equal(a, b) for a, b in zip(KDTree(p).knn_self(6), threaded, strict=True))
    monkeypatch.setattr(engine, "PARALLEL_MIN", 10**9)  # one thread, serial build
    assert all(np.array_equal(a, b) for a, b in zip(KDTree(p).knn_self(6), threaded, strict=True))


@pytest.mark.parametrize("kind", ["gauss", "ties", "constant", "sorted", "reversed", "two"])
def test_select_partitions_rows(kind):
    """The build's quickselect: the kth row holds the kth key, no key before it is larger
    and none after it smaller, and rows move whole (with their original index)."""
    from infometer.estimators.knn import _compiled as compiled

    rng = np.random.default_rng(4)
    for n in (2, 3, 5, 17, 1000):
        w = rng.standard_normal((n, 3))
        if kind == "ties":
            w = np.round(w)
        elif kind == "constant":
            w[:, 1] = 7.0
        elif kind == "sorted":
            w[:, 1] = np.arange(n)
        elif kind == "reversed":
            w[:, 1] = -np.arange(n)
        elif kind == "two":
            w[:, 1] = np.arange(n) % 2
        for kth in {0, n // 2, n - 1}:
            work, idx = w.copy(), np.arange(n)
            lo = np.int64(0)
            compiled._select(work, idx, np.int64(1), lo, np.int64(n), np.int64(kth))
            key = work[:, 1]
            assert key[kth] == np.sort(w[:, 1])[kth]
            assert np.all(key[:kth] <= key[kth]) and np.all(key[kth + 1 :] >= key[kth])
            assert np.array_equal(work, w[idx]) and np.array_equal(np.sort(idx), np.arange(n))


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(1, 9), cols=st.integers(1, 5), seed=st.integers(0, 2**32 - 1))
def test_row_popcounts_count_every_set_bit(rows, cols, seed):
    # numpy >= 2's bitwise_count and the byte table numpy 1.x gets give the same counts,
    # and both the count of a plain bit-by-bit loop
    from infometer.estimators.knn._rankbits import row_popcounts

    w = np.random.default_rng(seed).integers(0, 2**63, size=(rows, cols), dtype=np.uint64)
    w[0, 0] = np.uint64(2**64 - 1)  # every bit
    want = [sum(bin(int(v)).count("1") for v in row) for row in w]
    assert row_popcounts(w, table=True).tolist() == want
    assert row_popcounts(w).tolist() == want
