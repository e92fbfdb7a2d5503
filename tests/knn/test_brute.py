"""The engine's brute force for the joint kNN plus marginal counts (KSG-1/2, Frenzel-Pompe,
the multivariate KSG sums) against the kd-tree path and an O(N^2) numpy reference of the
definitions: exact equality (same counts, same estimates), not tolerances."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import infometer as im
from infometer.estimators.knn import _brute as brute
from infometer.estimators.knn import _engine as engine
from infometer.estimators.knn import _kernels as kernels

from .test_engine import _pairwise


def _reference(blocks, spaces, k, theiler, variant):
    """The definitions, by numpy on all pairs: the k nearest other rows outside the window
    in (joint max-norm distance, row) order; per space, the rows (outside the window)
    strictly closer than the k-th distance (variant 1) or within the largest space
    distance among the k neighbours (variant 2)."""
    n = blocks[0].shape[0]
    rows = np.arange(n)
    far = np.abs(rows[:, None] - rows[None, :]) > theiler  # not i itself, not the window
    per = [_pairwise(b) if b.shape[1] else np.zeros((n, n)) for b in blocks]
    joint = np.max(per, axis=0)
    key = np.where(far, joint, np.inf)
    order = np.lexsort((np.broadcast_to(rows, (n, n)), key), axis=1)[:, :k]
    eps = np.take_along_axis(key, order, 1)[:, k - 1]
    out = []
    for sp in spaces:
        dist = np.max([per[v] for v in sp], axis=0) if sp else np.zeros((n, n))
        if variant == 1:
            out.append((far & (dist < eps[:, None])).sum(1))
        else:
            r = np.take_along_axis(dist, order, 1).max(1)
            out.append((far & (dist <= r[:, None])).sum(1))
    return eps, out


def _both(blocks, spaces, k, theiler, variant):
    """``kernels._joint_counts`` on the kd-tree path and by brute force (compiled backend)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(engine, "BACKEND", "compiled")
        mp.setattr(engine, "BRUTE", "never")
        tree = kernels._joint_counts(blocks, spaces, k, theiler, variant)
        mp.setattr(engine, "BRUTE", "always")
        forced = kernels._joint_counts(blocks, spaces, k, theiler, variant)
    return tree, forced


SPACES = {2: [[0], [1]], 3: [[0, 2], [1, 2], [2]]}  # KSG's x, y; Frenzel-Pompe's xz, yz, z


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_property_brute_force_is_the_tree_path(data):
    """Random small point sets, continuous or on a coarse integer lattice (ties, duplicated
    rows, k-th distances of 0), one or three columns per variable, k, Theiler windows, both
    count rules: the brute force's distances and counts are the tree path's and the
    reference's, bit for bit."""
    nv = data.draw(st.sampled_from([2, 3]), "variables")
    widths = data.draw(st.lists(st.integers(1, 3), min_size=nv, max_size=nv), "widths")
    k = data.draw(st.integers(1, 4), "k")
    theiler = data.draw(st.integers(0, 2), "theiler")
    n = data.draw(st.integers(k + 2 * theiler + 2, 70), "n")
    variant = data.draw(st.sampled_from([1, 2]), "variant")
    seed = data.draw(st.integers(0, 2**16), "seed")
    tied = data.draw(st.booleans(), "tied")
    rng = np.random.default_rng(seed)
    blocks = [rng.standard_normal((n, w)) for w in widths]
    if tied:
        blocks = [np.round(b) for b in blocks]  # values in a handful of integers
    spaces = SPACES[nv]
    (eps_t, counts_t), (eps_b, counts_b) = _both(blocks, spaces, k, theiler, variant)
    eps_r, counts_r = _reference(blocks, spaces, k, theiler, variant)
    assert np.array_equal(eps_b, eps_r) and np.array_equal(eps_t, eps_r)
    for t, b, r in zip(counts_t, counts_b, counts_r, strict=True):
        assert np.array_equal(b, r)
        assert np.array_equal(t, r)


@pytest.mark.parametrize("k", [1, 3, 8])
@pytest.mark.parametrize("tied", [False, True])
def test_ksg_and_fp_counts_in_tens_of_dimensions(k, tied):
    """KSG (both variants) and Frenzel-Pompe in 12 + 12 (+ 6) columns, where the engine
    chooses brute force: the same digamma arguments as the tree path, on continuous data
    and on data rounded to one decimal (ties at the k-th distance)."""
    rng = np.random.default_rng(k + 10 * tied)
    n = 700
    x = rng.standard_normal((n, 12))
    y = 0.5 * x + rng.standard_normal((n, 12))
    z = x[:, :6] + rng.standard_normal((n, 6))
    if tied:
        x, y, z = (np.round(a, 1) for a in (x, y, z))
    for variant in (1, 2):
        tree, forced = _both([x, y], SPACES[2], k, 0, variant)
        assert np.array_equal(tree[0], forced[0])
        assert all(np.array_equal(a, b) for a, b in zip(tree[1], forced[1], strict=True))
    tree, forced = _both([x, y, z], SPACES[3], k, 2, 1)
    assert all(np.array_equal(a, b) for a, b in zip(tree[1], forced[1], strict=True))


def test_empty_variables_count_as_on_the_tree_path():
    """A variable without columns (a constant z of Frenzel-Pompe, dropped by the
    preparation) leaves the joint space; a space without columns counts every other row,
    as the tree path does."""
    rng = np.random.default_rng(4)
    x, y = rng.standard_normal((300, 7)), rng.standard_normal((300, 7))
    z = np.empty((300, 0))
    for theiler in (0, 3):
        tree, forced = _both([x, y, z], SPACES[3], 3, theiler, 1)
        assert all(np.array_equal(a, b) for a, b in zip(tree[1], forced[1], strict=True))
    with pytest.raises(ValueError, match="at least one column"):
        engine.knn_counts([x, z], [[0]], 3)


@pytest.mark.filterwarnings("ignore:tied values found")
def test_estimates_are_identical_on_both_paths(monkeypatch):
    """The public estimators give the same number with brute force forced on and off: KSG-1
    and KSG-2 (several k, a Theiler window, tied data kept tied), Frenzel-Pompe, transfer
    entropy of multivariate series, and the multivariate KSG sums."""
    rng = np.random.default_rng(7)
    n = 900
    x = rng.standard_normal((n, 8))
    y = 0.6 * x + 0.8 * rng.standard_normal((n, 8))
    z = x[:, :3] + rng.standard_normal((n, 3))
    xr, yr = np.round(x, 1), np.round(y, 1)
    src = rng.standard_normal((n, 3))
    tgt = np.roll(src, 1, axis=0) + 0.5 * rng.standard_normal((n, 3))
    xyz = np.hstack([x, y, z])
    groups = [range(8), range(8, 16), range(16, 19)]

    def estimates():
        return [
            im.mutual_info(x, y, method="ksg1").value,
            im.mutual_info(x, y, method="ksg2", k=6).value,
            im.mutual_info(x, y, method="ksg1", k=5, theiler=4).value,
            im.mutual_info(xr, yr, method="ksg1", jitter="never").value,
            im.mutual_info(xr, yr, method="ksg2", k=2, jitter="never").value,
            im.cond_mutual_info(x, y, z, method="frenzel_pompe").value,
            im.cond_mutual_info(x, y, z, method="frenzel_pompe", theiler=2).value,
            im.transfer_entropy(src, tgt, method="ksg1", k=2, l=2).value,
            im.total_correlation(xyz, groups=groups, method="ksg").value,
            im.o_information(xyz, groups=groups, method="ksg").value,
        ]

    monkeypatch.setattr(engine, "BACKEND", "compiled")
    monkeypatch.setattr(engine, "BRUTE", "never")
    tree = estimates()
    monkeypatch.setattr(engine, "BRUTE", "always")
    assert estimates() == tree
    monkeypatch.setattr(engine, "BRUTE", "auto")  # 16-19 columns, 900 points: brute force
    assert engine.brute_chosen(n, 16) and estimates() == tree


def test_threads_groups_and_chunks_change_nothing(monkeypatch):
    """The kernel's results do not depend on the thread count, the query group or how the
    queries are cut into calls."""
    rng = np.random.default_rng(9)
    x, y = np.round(rng.standard_normal((2, 500, 9)), 1)
    pts = np.hstack([x, y])
    bounds = np.array([0, 9, 18], np.int64)
    member = np.eye(2, dtype=np.uint8)
    ref = None
    for group in (1, 3, brute.MAX_GROUP):
        for cuts in ((0, 500), (0, 17, 250, 500)):
            eps = np.empty(500)
            counts = np.empty((2, 500), np.int64)
            for a, b in zip(cuts[:-1], cuts[1:], strict=True):
                brute.knn_counts(
                    pts, brute.layout(pts), bounds, member, 4, 1, True, group, eps, counts, a, b
                )
            ref = ref or (eps.copy(), counts.copy())
            assert np.array_equal(eps, ref[0]) and np.array_equal(counts, ref[1])
    monkeypatch.setattr(engine, "BACKEND", "compiled")
    monkeypatch.setattr(engine, "n_threads", lambda: 2)
    monkeypatch.setattr(engine, "BRUTE_PARALLEL_WORK", 1)  # threads from one query
    eps, counts = engine.knn_counts([x, y], [[0], [1]], 4, theiler=1, ksg2=True)
    assert np.array_equal(eps, ref[0]) and np.array_equal(counts, ref[1])


def test_memory_per_thread_is_linear_in_n():
    """The distance buffer of one thread stays under ``BUFFER_BYTES`` (fewer queries per
    group as n grows): O(n) per thread, never n x n."""
    for n, nv in ((100, 2), (5000, 2), (100_000, 3), (10**6, 2)):
        g = brute.group_size(n, nv)
        assert 1 <= g <= brute.MAX_GROUP
        assert g == 1 or g * nv * n * 8 <= brute.BUFFER_BYTES
    assert brute.group_size(5000, 2) == brute.MAX_GROUP
    assert brute.group_size(10**6, 2) == 1


def test_the_chooser(monkeypatch):
    """``brute_chosen``: only on the compiled backend, never below six joint columns, up to
    the limit of ``BRUTE_LIMITS`` for the joint dimension (the lower one where the tree
    path would use the bitset index); ``BRUTE`` forces either way."""
    monkeypatch.setattr(engine, "BACKEND", "compiled")
    assert not engine.brute_chosen(100, 4)  # a kd-tree prunes well in 4 columns
    assert engine.brute_chosen(100, 6) and engine.brute_chosen(1500, 6)
    assert not engine.brute_chosen(1501, 6)
    for d_min, tree_limit, bitset_limit in engine.BRUTE_LIMITS:
        for d in (d_min, d_min + 1):
            for bitset, limit in ((False, tree_limit), (True, bitset_limit)):
                monkeypatch.setattr(engine, "_bitset_shift", lambda *a, b=bitset: 7 if b else -1)
                assert engine.brute_chosen(limit, d), (d, bitset)
                assert not engine.brute_chosen(limit + 1, d), (d, bitset)
    monkeypatch.setattr(engine, "_bitset_shift", lambda *a: -1)
    assert engine.brute_chosen(40_000, 100) and not engine.brute_chosen(60_000, 100)
    monkeypatch.setattr(engine, "BRUTE", "never")
    assert not engine.brute_chosen(100, 100)
    monkeypatch.setattr(engine, "BRUTE", "always")
    assert engine.brute_chosen(10**6, 2)
    monkeypatch.setattr(engine, "BACKEND", "scipy")  # the compiled backend only
    assert not engine.brute_chosen(100, 100)
