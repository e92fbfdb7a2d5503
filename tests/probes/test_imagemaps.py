"""Image information maps: patch entropy, variance, scores, walks, orders, golden section."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from infometer.systems.probes import imagemaps as maps


def test_constant_two_level_and_eight_level_patches_plugin():
    const = np.full((16, 16), 7.0)
    assert maps.patch_entropy_map(const, 16, bins=16, method="plugin", unit="bits")[0, 0] == 0.0
    two = np.zeros((16, 16))
    two[:, 8:] = 1.0  # 128 pixels of each level
    assert maps.patch_entropy_map(two, 16, bins=2, method="plugin", unit="bits")[
        0, 0
    ] == pytest.approx(1.0, abs=1e-12)
    eight = np.tile(np.arange(8.0), (16, 2))  # 32 pixels of each of 8 levels
    assert maps.patch_entropy_map(eight, 16, bins=8, method="plugin", unit="bits")[
        0, 0
    ] == pytest.approx(3.0, abs=1e-12)


def test_default_is_miller_madow_with_its_closed_form_correction():
    # Miller-Madow adds (m - 1)/(2N) nats to the plug-in: m occupied bins, N = 256 pixels
    two = np.zeros((16, 16))
    two[:, 8:] = 1.0
    eight = np.tile(np.arange(8.0), (16, 2))
    mm2 = maps.patch_entropy_map(two, 16, bins=2, unit="bits")[0, 0]
    mm8 = maps.patch_entropy_map(eight, 16, bins=8, unit="bits")[0, 0]
    assert mm2 == pytest.approx(1.0 + 1 / (2 * 256) / math.log(2), abs=1e-12)
    assert mm8 == pytest.approx(3.0 + 7 / (2 * 256) / math.log(2), abs=1e-12)
    assert maps.patch_entropy_map(np.ones((16, 16)), 16, unit="bits")[0, 0] == 0.0


@pytest.mark.parametrize(
    "method", ["plugin", "miller_madow", "chao_shen", "grassberger", "shrinkage", "nsb"]
)
def test_every_registered_discrete_estimator_maps_patches(method):
    rng = np.random.default_rng(0)
    img = rng.integers(0, 4, (32, 48)).astype(float)
    h = maps.patch_entropy_map(img, 16, bins=4, method=method, value_range=(0, 4), unit="bits")
    assert h.shape == (2, 3)
    # 256 pixels on 4 equiprobable levels: every estimator is within 0.05 bits of 2
    assert np.all(np.abs(h - 2.0) < 0.05)
    with pytest.raises(ValueError, match="method must be one of"):
        maps.patch_entropy_map(img, 16, method="ksg1", unit="bits")


def test_patch_grid_shapes_and_errors():
    img = np.zeros((35, 20, 3))  # colour: channels averaged; ragged edges dropped
    assert maps.patch_entropy_map(img, (8, 5)).shape == (4, 4)
    with pytest.raises(ValueError, match="does not fit"):
        maps.patch_entropy_map(np.zeros((4, 4)), 8)
    with pytest.raises(ValueError, match="NaN"):
        maps.patch_entropy_map(np.full((8, 8), np.nan), 4)


def test_local_variance_constant_and_checkerboard():
    assert np.all(maps.local_variance_map(np.full((9, 9), 3.3)) < 1e-24)
    board = np.indices((9, 9)).sum(0) % 2.0
    v = maps.local_variance_map(board, 3)
    # an interior 3x3 window of a 0/1 checkerboard holds 5 of one value and 4 of the other
    assert v[4, 4] == pytest.approx(20 / 81, abs=1e-12)
    assert np.all(v >= 0)


def test_info_score_is_weighted_zscores():
    rng = np.random.default_rng(1)
    img = rng.normal(size=(32, 32))
    img[:16] = 0.0
    s = maps.info_score(img, 8, weights=(0.6, 0.4))
    h = maps.zscore(maps.patch_entropy_map(img, 8))
    v = maps.zscore(maps.patch_mean(maps.local_variance_map(img), 8))
    assert s == pytest.approx(0.6 * h + 0.4 * v, abs=1e-12)
    assert np.all(maps.zscore(np.ones((3, 3))) == 0)
    bh, bv = maps.boundary_saliency(s)
    assert bh.shape == (4, 3) and bv[0, 0] == pytest.approx(s[0, 0] * s[1, 0])


def test_strip_walk_known_answer():
    s = np.array([[0.0, 5.0, 1.0, 9.0]])
    best = maps.info_ordered_walk(s, 0.5)
    assert best.exact and best.value == pytest.approx(10.75, abs=1e-12)
    assert best.order.tolist() == [3, 2, 1, 0]
    left = maps.info_ordered_walk(s, 0.5, start=0)
    assert left.value == pytest.approx(3.875, abs=1e-12)
    assert maps.info_ordered_walk(s, 0.5, start=(0, 3)).value == pytest.approx(10.75)
    for method in ("greedy", "beam"):
        assert maps.info_ordered_walk(s, 0.5, method=method).value == pytest.approx(10.75)


def _brute_force(s: np.ndarray, gamma: float) -> float:
    """Best maximal self-avoiding walk by enumerating permutations (tiny grids only)."""
    import itertools

    h, w = s.shape
    best = -math.inf
    cells = range(h * w)
    adj = lambda a, b: abs(a // w - b // w) + abs(a % w - b % w) == 1  # noqa: E731
    for r in range(1, h * w + 1):
        for perm in itertools.permutations(cells, r):
            if all(adj(a, b) for a, b in itertools.pairwise(perm)):
                ext = [c for c in cells if c not in perm and adj(perm[-1], c)]
                if not ext:
                    best = max(best, sum(s.flat[c] * gamma**t for t, c in enumerate(perm)))
    return best


@given(st.integers(0, 2**31 - 1), st.sampled_from([(2, 2), (2, 3), (1, 5)]))
@settings(max_examples=15, deadline=None)
def test_exact_walk_matches_brute_force_and_bounds_greedy(seed, shape):
    rng = np.random.default_rng(seed)
    s = rng.normal(size=shape)
    e = maps.info_ordered_walk(s, 0.8, method="exact")
    assert e.value == pytest.approx(_brute_force(s, 0.8), abs=1e-12)
    g = maps.info_ordered_walk(s, 0.8, method="greedy")
    b = maps.info_ordered_walk(s, 0.8, method="beam", beam_width=4)
    assert g.value <= e.value + 1e-12 and b.value <= e.value + 1e-12
    for wlk in (e, g, b):
        assert sorted(wlk.order.tolist()) == list(range(s.size))
        assert maps.walk_value(s, wlk.order[: wlk.walk_length], 0.8) == pytest.approx(wlk.value)


def test_raster_and_hilbert_orders():
    assert maps.raster_order(2, 3).tolist() == [0, 1, 2, 3, 4, 5]
    for n in (2, 4, 8):
        o = maps.hilbert_order(n, n)
        assert sorted(o.tolist()) == list(range(n * n))
        r, c = np.divmod(o, n)
        assert np.all(np.abs(np.diff(r)) + np.abs(np.diff(c)) == 1)  # a path of unit steps
    o = maps.hilbert_order(3, 5)  # non-square: still a permutation
    assert sorted(o.tolist()) == list(range(15))


def test_golden_section_known_minimum():
    # C(N) = 4/N + N has its minimum at sqrt(4/1) = 2; golden section reaches about
    # sqrt(machine eps) relative accuracy on so flat a minimum
    assert maps.golden_section(lambda n: 4 / n + n, 0.5, 10) == pytest.approx(2.0, abs=1e-6)
    assert maps.golden_section(lambda x: (x - 3) ** 2, 0, 1) == pytest.approx(1.0, abs=1e-6)
    with pytest.raises(ValueError, match="hi must be > lo"):
        maps.golden_section(abs, 1, 1)
