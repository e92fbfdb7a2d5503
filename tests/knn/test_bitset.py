"""The rank-space bitset index (high-dimensional counts and kNN) against brute force:
exact equality, not tolerances."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from infometer.estimators.knn import _bitset as bitset
from infometer.estimators.knn import _engine as engine
from infometer.estimators.knn._engine import KDTree, RangeCounter, count_within, kth_neighbours

from .test_engine import _data, _pairwise


def _counts(index: bitset.Index, radii: np.ndarray) -> np.ndarray:
    """Counts of the index's kernel, in original row order."""
    c = np.empty(index.n, np.int64)
    index.count(np.ascontiguousarray(radii[index.order0]), c, 0, index.n)
    out = np.empty_like(c)
    out[index.order0] = c
    return out


def _knn(index: bitset.Index, k: int, order: np.ndarray, cuts=(0, None)) -> tuple:
    """kNN of the index's kernel, queries in ``order`` (rows), run in the chunks ``cuts``."""
    n = index.n
    bit = np.empty(n, np.int64)
    bit[index.order0] = np.arange(n)
    queries = np.ascontiguousarray(bit[order])
    d, i, tries = np.empty((n, k)), np.empty((n, k), np.int64), np.empty(n, np.int64)
    cuts = [0 if c is None else c for c in cuts[:-1]] + [n if cuts[-1] is None else cuts[-1]]
    for a, b in zip(cuts[:-1], cuts[1:], strict=True):
        index.knn(k, queries, d, i, tries, a, b)
    assert np.all(tries >= 1)
    return d, i


def _expected_knn(p: np.ndarray, k: int, index: bitset.Index) -> tuple:
    """The first k other points in (distance, bit) order: the index's documented answer."""
    dist = _pairwise(p)
    np.fill_diagonal(dist, np.inf)
    bit = np.empty(len(p), np.int64)
    bit[index.order0] = np.arange(len(p))
    order = np.lexsort((np.broadcast_to(bit, dist.shape), dist), axis=1)[:, :k]
    return np.take_along_axis(dist, order, 1), order


def _kinds(rng, n: int, d: int) -> dict[str, np.ndarray]:
    p = rng.standard_normal((n, d))
    const = p.copy()
    const[:, 1] = 2.5  # a constant column
    atoms = p.copy()
    atoms[: n // 3] = 0.0  # a third of the rows identical
    return {"gauss": p, "ties": _data(rng, n, d, True), "constant": const, "atoms": atoms}


@pytest.mark.slow
@pytest.mark.parametrize("d", [2, 5, 8])
@pytest.mark.parametrize("shift", [6, 7, 11])  # blocks of 64, 128, and larger than n
def test_counts_equal_brute_force(d, shift):
    """N = 777 is no multiple of 64 or of the block; radii at exact neighbour distances
    (the boundary cases), zero, negative and NaN."""
    rng = np.random.default_rng(d + shift)
    n = 777
    for name, p in _kinds(rng, n, d).items():
        index = bitset.Index(p, shift)
        dist = _pairwise(p)
        np.fill_diagonal(dist, np.inf)
        srt = np.sort(dist, 1)
        for r in (srt[:, 2], srt[:, 40], srt[:, 500], np.zeros(n), rng.uniform(-0.5, 1.5, n)):
            assert np.array_equal(_counts(index, r), (dist <= r[:, None]).sum(1)), name
            rs = np.where(r > 0, np.nextafter(r, 0), -1.0)  # strict, as the engine does
            assert np.array_equal(_counts(index, rs), (dist < r[:, None]).sum(1)), name
        r = srt[:, 3].copy()
        r[::7] = np.nan
        assert np.array_equal(
            _counts(index, r), np.where(np.isnan(r), 0, (dist <= r[:, None]).sum(1))
        )


@pytest.mark.slow
@pytest.mark.parametrize("d", [2, 6, 12])
@pytest.mark.parametrize("k", [1, 4])
@pytest.mark.parametrize("shift", [7, 11])  # blocks of 128, and one block (all candidates)
def test_knn_equals_brute_force(d, k, shift):
    """Distances and neighbours: the first k in (distance, bit) order, for any query order
    and any cut of the queries into chunks (threads), ties and duplicated rows included."""
    rng = np.random.default_rng(10 * d + k)
    n = 600
    for name, p in _kinds(rng, n, d).items():
        index = bitset.Index(p, shift)
        ref_d, ref_i = _expected_knn(p, k, index)
        for order, cuts in (
            (np.arange(n), (0, None)),
            (rng.permutation(n), (0, 1, 250, 251, None)),
            (np.argsort(p[:, -1], kind="stable"), (0, 300, None)),
        ):
            got_d, got_i = _knn(index, k, order, cuts)
            assert np.array_equal(got_d, ref_d), name
            assert np.array_equal(got_i, ref_i), name


def test_knn_when_growth_and_guess_are_extreme(monkeypatch):
    """The radius guess only changes the work, never the answer: a guess far too small
    (many retries, then the guaranteed bound) and far too large give the same result."""
    rng = np.random.default_rng(3)
    p = rng.standard_normal((400, 10)) * np.geomspace(1e-3, 1e3, 400)[:, None]  # scales
    index = bitset.Index(p, 6)
    ref = _expected_knn(p, 3, index)
    for guess, growth in ((1e-4, 1.05), (1e6, 2.0), (1.0, 1.01)):
        monkeypatch.setattr(bitset, "GUESS", guess)
        monkeypatch.setattr(bitset, "GROWTH", growth)
        got = _knn(index, 3, rng.permutation(400))
        assert np.array_equal(got[0], ref[0]) and np.array_equal(got[1], ref[1])


def test_block_size_rule():
    assert bitset.nbytes(100_000, 8, 7) == 7 * (782 + 1) * 1563 * 8
    assert bitset.block_shift(100_000, 8) == 7  # 65 MB: the smallest block fits
    assert bitset.block_shift(100_000, 16, 100 * 2**20) == 8  # 15 columns: 146 -> 73 MB
    assert bitset.block_shift(10**6, 8, 2**20) == -1  # nothing fits


@pytest.fixture
def forced(monkeypatch):
    """The engine's dispatch to the bitset index forced on at small N."""
    monkeypatch.setattr(engine, "BACKEND", "compiled")
    monkeypatch.setattr(engine, "BITSET_MIN_POINTS", 0)
    monkeypatch.setattr(engine, "BITSET_COLD_MIN_POINTS", 0)
    monkeypatch.setattr(engine, "BITSET_MIN_DIM", 3)
    monkeypatch.setattr(engine, "BITSET_KNN_MIN_DIM", 3)
    monkeypatch.setattr(engine, "BRUTE", "never")  # the estimators' searches stay on the index


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("ties", [False, True])
def test_engine_dispatch(forced, monkeypatch, threads, ties):
    """``RangeCounter`` and ``kth_neighbours`` on the bitset path (one and two threads)
    give brute force's counts and distances; low dimension stays off it."""
    monkeypatch.setattr(engine, "n_threads", lambda: threads)
    monkeypatch.setattr(engine, "PARALLEL_MIN", 100)
    rng = np.random.default_rng(threads + 2 * ties)
    p = _data(rng, 900, 6, ties)
    assert RangeCounter(p)._index is not None
    assert KDTree(p, metric="max")._index is not None
    assert RangeCounter(p[:, :2])._index is None  # two columns: the grid
    dist = _pairwise(p)
    np.fill_diagonal(dist, np.inf)
    srt = np.sort(dist, 1)
    for k in (1, 3):
        eps, idx = kth_neighbours(p, k)
        assert np.array_equal(eps, srt[:, k - 1])
        assert np.array_equal(dist[np.arange(900)[:, None], idx], srt[:, :k])
    for r in (srt[:, 2], np.zeros(900), rng.uniform(-0.2, 1, 900)):
        assert np.array_equal(count_within(p, r), (dist <= r[:, None]).sum(1))
        assert np.array_equal(count_within(p, r, strict=True), (dist < r[:, None]).sum(1))
    # Euclidean kNN stays on the tree and is unaffected
    eps_e, _ = kth_neighbours(p, 2, "euclidean")
    np.testing.assert_allclose(
        eps_e,
        np.sort(_pairwise(p, metric="euclidean") + np.diag([np.inf] * 900), 1)[:, 1],
        rtol=1e-14,
    )


@pytest.mark.parametrize("m", [2, 5, 8])
def test_head_counts_equal_its_own_index(m):
    """The head of an index (the first m columns, sharing its arrays) counts as an index
    built on those columns alone, and as brute force, and finds the same neighbours; ties
    and duplicated rows included."""
    rng = np.random.default_rng(m)
    for name, p in _kinds(rng, 500, 10).items():
        index = bitset.Index(p, 6)
        head = index.head(m)
        assert np.shares_memory(head.pref, index.pref)
        own = bitset.Index(p[:, :m], 6)
        dist = _pairwise(p[:, :m])
        np.fill_diagonal(dist, np.inf)
        for r in (np.sort(dist, 1)[:, 3], rng.uniform(-0.2, 1.5, 500)):
            want = np.where(r < 0, 0, (dist <= r[:, None]).sum(1))
            assert np.array_equal(_counts(head, r), want), name
            assert np.array_equal(_counts(own, r), want), name
        # its kNN (never used by KSG, but the head is a whole index) is the first m columns
        ref = _expected_knn(p[:, :m], 3, head)
        got = _knn(head, 3, np.arange(500))
        assert np.array_equal(got[0], ref[0]) and np.array_equal(got[1], ref[1]), name
    with pytest.raises(ValueError, match="m must be between 2 and 10"):
        index.head(11)


@pytest.mark.parametrize("parallel", [False, True])
def test_ksg_x_counts_share_the_joint_index(forced, monkeypatch, parallel):
    """KSG's x marginal counts on the head of the joint search's bitset index (no second
    index) where the rules make both bitset indexes; the estimate is bitwise the one with
    an index of its own, and the counts are brute force's."""
    from infometer.estimators.knn import _kernels as kernels

    monkeypatch.setattr(engine, "PARALLEL_MIN", 100 if parallel else 10**9)
    rng = np.random.default_rng(11)
    x = rng.standard_normal((800, 5))
    y = 0.6 * x + 0.8 * rng.standard_normal((800, 5))
    joint = np.hstack([x, y])
    assert engine.shares_knn_index(800, 10, 5)
    assert not engine.shares_knn_index(800, 10, 4)  # four columns: the grid
    tree, cx, cy = kernels._structures(joint, x, y, head=True)
    t = tree()
    counter = cx()
    assert tree() is t  # built once, whether started on a thread or not
    assert counter._index is not None and np.shares_memory(counter._index.pref, t._index.pref)
    assert not np.shares_memory(cy()._index.pref, t._index.pref)
    eps, _ = kernels.neighbours(joint, 3, 0, t)
    dist = _pairwise(x)
    np.fill_diagonal(dist, np.inf)
    assert np.array_equal(counter.count(eps, strict=True), (dist < eps[:, None]).sum(1))
    shared = kernels.ksg(x, y, 3)
    monkeypatch.setattr(kernels, "shares_knn_index", lambda *a: False)
    tree2, cx2, _ = kernels._structures(joint, x, y, head=True)
    assert not np.shares_memory(cx2()._index.pref, tree2()._index.pref)
    assert kernels.ksg(x, y, 3) == shared


def test_memory_cap_falls_back_to_the_tree(forced, monkeypatch):
    monkeypatch.setattr(bitset, "MAX_BYTES", 1000)
    p = np.random.default_rng(0).standard_normal((700, 5))
    assert RangeCounter(p)._index is None and RangeCounter(p)._tree is not None
    assert KDTree(p, metric="max")._index is None
    dist = _pairwise(p)
    np.fill_diagonal(dist, np.inf)
    assert np.array_equal(kth_neighbours(p, 2)[0], np.sort(dist, 1)[:, 1])


def test_cold_install_rule(forced, monkeypatch, tmp_path):
    """Until the bitset kernels have run once on this install (their first compile takes
    seconds), only point sets from ``BITSET_COLD_MIN_POINTS`` use them; a run leaves the
    marker that lifts the rule in later processes."""
    p = np.random.default_rng(1).standard_normal((600, 5))
    monkeypatch.setattr(engine, "BITSET_COLD_MIN_POINTS", 1000)
    monkeypatch.setattr(engine, "_bitset_warm", lambda: False)
    assert RangeCounter(p)._index is None
    monkeypatch.setattr(engine, "BITSET_COLD_MIN_POINTS", 600)
    assert RangeCounter(p)._index is not None
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(engine, "_bitset_cached", None)
    assert not (tmp_path / (engine._marker().rsplit("/", 1)[1] + "-bitset")).exists()
    RangeCounter(p).count(np.full(600, 0.5))
    assert (tmp_path / (engine._marker().rsplit("/", 1)[1] + "-bitset")).exists()


def test_estimates_do_not_depend_on_the_path(monkeypatch):
    """KSG-1/2, Frenzel-Pompe (with a Theiler window) and GKOV give bit-identical
    estimates with the bitset index on and off (continuous data: KSG-2 uses neighbour
    identities, and tied neighbours may be listed in another order by the kd-tree)."""
    import infometer as im

    rng = np.random.default_rng(8)
    n = 800
    x = rng.standard_normal((n, 4))
    y = 0.6 * x + 0.8 * rng.standard_normal((n, 4))
    z = rng.standard_normal((n, 3))

    def estimates():
        return [
            im.mutual_info(x, y, method="ksg1").value,
            im.mutual_info(x, y, method="ksg2").value,
            im.mutual_info(x, y, method="ksg1", theiler=2).value,
            im.cond_mutual_info(x, y, z, method="frenzel_pompe").value,
            im.mutual_info(np.round(x, 1), y, method="gkov").value,
        ]

    monkeypatch.setattr(engine, "BACKEND", "compiled")
    monkeypatch.setattr(engine, "BRUTE", "never")  # else 8 columns of 800 points: brute force
    off = estimates()
    monkeypatch.setattr(engine, "BITSET_MIN_POINTS", 0)
    monkeypatch.setattr(engine, "BITSET_COLD_MIN_POINTS", 0)
    monkeypatch.setattr(engine, "BITSET_KNN_MIN_DIM", 5)
    assert KDTree(np.hstack([x, y]), metric="max")._index is not None
    assert off == estimates()


@settings(max_examples=40, deadline=None)
@given(
    p=hnp.arrays(
        np.float64,
        st.tuples(st.integers(2, 90), st.integers(2, 6)),
        elements=st.integers(-3, 3).map(float),  # many ties and duplicated rows
    ),
    k=st.integers(1, 3),
    shift=st.sampled_from([6, 7]),
)
def test_property_counts_and_knn(p, k, shift):
    n = len(p)
    index = bitset.Index(p, shift)
    dist = _pairwise(p)
    np.fill_diagonal(dist, np.inf)
    srt = np.sort(dist, 1)
    for j in {0, min(k, n - 1) - 1, n - 2}:
        r = srt[:, j]
        assert np.array_equal(_counts(index, r), (dist <= r[:, None]).sum(1))
    if k < n:
        ref = _expected_knn(p, k, index)
        got = _knn(index, k, np.arange(n)[::-1])
        assert np.array_equal(got[0], ref[0]) and np.array_equal(got[1], ref[1])


def test_argsort_is_the_stable_order():
    """The index numbers points by a stable sort (ties in row order, machine-independent)
    whichever path sorted: distinct values, ties, signed zeros."""
    rng = np.random.default_rng(5)
    for col in (
        rng.standard_normal(1000),
        rng.integers(0, 5, 1000).astype(float),
        np.where(rng.random(1000) < 0.5, 0.0, -0.0),
    ):
        assert np.array_equal(bitset._argsort_stable(col), np.argsort(col, kind="stable"))
