"""The LLVM intrinsics of the kNN kernels against plain numpy."""

from __future__ import annotations

import numpy as np
import pytest

from infometer.core.jit import nb
from infometer.estimators.knn._intrinsics import BLOCK, block_dist, ctz, popcount


@nb.njit(cache=False)
def _dist(blocks, b, q, euclid, bound):
    out = np.empty(BLOCK)
    mask = block_dist(blocks, b, q, euclid, bound, out)
    return mask, out


@pytest.mark.parametrize("euclid", [False, True])
@pytest.mark.parametrize("d", [1, 2, 7])
def test_block_dist_is_the_scalar_arithmetic(euclid, d):
    rng = np.random.default_rng(d)
    blocks = rng.standard_normal((3, d, BLOCK))
    blocks[1, :, 5] = np.inf  # a padding lane
    q = rng.standard_normal(d)
    diff = blocks[1] - q[:, None]
    if euclid:  # squares summed in column order, from 0
        want = np.zeros(BLOCK)
        for c in range(d):
            want = want + diff[c] * diff[c]
    else:
        want = np.abs(diff).max(axis=0)
    bound = float(np.sort(want)[7])  # a lane exactly at the bound is within it
    mask, got = _dist(blocks, 1, q, euclid, bound)
    np.testing.assert_array_equal(got, want)  # bit for bit
    assert mask == sum(1 << j for j in range(BLOCK) if want[j] <= bound)
    assert bin(mask).count("1") == 8


@nb.njit(cache=False)
def _bits(x):
    return popcount(x), ctz(x)


def test_popcount_and_ctz():
    for x in (1, 2, 0b1011000, (1 << 63) | 4, (1 << 64) - 1):
        n, low = _bits(np.uint64(x))
        assert n == bin(x).count("1")
        assert low == (x & -x).bit_length() - 1
