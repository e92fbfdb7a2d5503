"""The rank grid of 2 to 4 columns (infometer.estimators.knn._grid): exact counts against
brute force under every layout its tuning constants can produce, and its internal invariants."""

import numpy as np
import pytest

from infometer.estimators.knn import _grid as grid
from infometer.estimators.knn import engine


def _brute(p: np.ndarray, r: np.ndarray) -> np.ndarray:
    dist = np.abs(p[:, None, :] - p[None, :, :]).max(-1)
    np.fill_diagonal(dist, np.nan)  # not counted, even at an infinite radius
    return np.where(r < 0, 0, (dist <= r[:, None]).sum(1))


def _grid_count(p: np.ndarray, r: np.ndarray) -> np.ndarray:
    ranks = [np.argsort(p[:, k]) for k in range(p.shape[1])]
    cols = [p[rk, k] for k, rk in enumerate(ranks)]
    g = grid.build(p, ranks, cols, r)
    c = np.empty(len(p), np.int64)
    grid.count(*g.args(), np.ascontiguousarray(r[g.order]), c, 0, len(p))
    out = np.empty_like(c)
    out[g.order] = c
    return out


def _radii(rng, p: np.ndarray) -> list[np.ndarray]:
    n = len(p)
    dist = np.sort(np.abs(p[:, None, :] - p[None, :, :]).max(-1), 1)
    mixed = dist[np.arange(n), rng.integers(1, n, n)]  # radii that hit a point exactly
    mixed[: n // 10] = -1.0  # negative: counts nothing
    mixed[: n // 20] = np.nan  # NaN: counts nothing either
    mixed[n // 10 : n // 5] = 0.0  # zero: exact duplicates only
    return [dist[:, 3], dist[:, n // 3], mixed, np.full(n, np.inf)]


@pytest.mark.parametrize("d", [2, 3, 4])
@pytest.mark.parametrize(
    "layout",
    [
        {},  # the defaults
        {"RUN_COST": 1e9},  # one slab per column (S = 1): every point is in the shell
        {"RUN_COST": 0.01, "MAX_CELLS_PER_POINT": 64},  # fine slabs, many one-point slabs
        {"LAST_FACTOR": 1.0, "RUN_COST": 0.5},
        {"INT32_MAX_POINTS": 0},  # int64 positions and counts (what n >= 2^31 would use)
    ],
)
@pytest.mark.slow
def test_counts_equal_brute_force_in_every_layout(d, layout, monkeypatch):
    if "INT32_MAX_POINTS" in layout and d != 3:
        pytest.skip("one dimension suffices for the int64 types (each costs a compile)")
    for key, v in layout.items():
        monkeypatch.setattr(grid, key, v)
    rng = np.random.default_rng(d)
    n = 797  # prime: no slab width divides it, the last slab is narrower
    for kind in ("gauss", "ties", "constant column", "duplicates"):
        p = rng.standard_normal((n, d))
        if kind == "ties":
            p = np.round(p, 1)
        elif kind == "constant column":
            p[:, d - 1] = -1.25
        elif kind == "duplicates":
            p[: n // 2] = p[0]
        for r in _radii(rng, p):
            assert np.array_equal(_grid_count(p, r), _brute(p, r)), (kind, layout)


def test_layouts_and_table_are_consistent():
    """Layout A and B hold each point once, sorted by their cell indices; the summed-area
    table's corners count the points below them; int32 only while n fits."""
    rng = np.random.default_rng(7)
    p = rng.standard_cauchy((1201, 3))
    ranks = [np.argsort(p[:, k]) for k in range(3)]
    cols = [p[rk, k] for k, rk in enumerate(ranks)]
    g = grid.build(p, ranks, cols, np.full(1201, 0.3))
    assert np.array_equal(np.sort(g.order), np.arange(1201))
    assert np.array_equal(g.data, p[g.order].T)
    rank = np.empty((1201, 3), np.int64)
    for k, rk in enumerate(ranks):
        rank[rk, k] = np.arange(1201)
    width = -(-1201 // g.n_slabs)
    assert np.array_equal(g.slab, rank[g.order] // width)  # slabs are rank ranges
    cell_a = g.slab.astype(np.int64) @ g.radix_a
    assert np.all(np.diff(cell_a) >= 0)
    assert np.array_equal(np.searchsorted(cell_a, np.arange(len(g.start_a))), g.start_a)
    assert np.array_equal(np.sort(g.data_b), np.sort(p[:, 2]))
    assert g.start_b[-1] == 1201 and np.all(np.diff(g.start_b) >= 0)
    sizes = tuple(int(c) + 1 for c in g.n_slabs)
    sat = g.sat.reshape(sizes)
    corner = tuple(s // 2 for s in sizes)
    assert sat[corner] == np.sum(np.all(g.slab < np.array(corner), axis=1))
    assert sat[tuple(s - 1 for s in sizes)] == 1201
    assert g.start_a.dtype == np.int32 and g.sat.dtype == np.int32


def test_engine_uses_the_grid_for_two_to_four_columns(monkeypatch):
    """Through RangeCounter (threads, strict counts): the grid path, exact."""
    monkeypatch.setattr(engine, "BACKEND", "compiled")
    monkeypatch.setattr(engine, "GRID_MIN_POINTS", 500)
    monkeypatch.setattr(engine, "PARALLEL_MIN", 100)  # several threads, several chunks
    rng = np.random.default_rng(3)
    p = np.round(rng.standard_normal((900, 2)), 2)
    counter = engine.RangeCounter(p)
    assert counter._tree is None
    for r in _radii(rng, p):
        assert np.array_equal(counter.count(r), _brute(p, r))
        dist = np.abs(p[:, None, :] - p[None, :, :]).max(-1)
        np.fill_diagonal(dist, np.nan)
        assert np.array_equal(counter.count(r, strict=True), (dist < r[:, None]).sum(1))
