"""Exact max-norm self range counts as intersections of per-column rank intervals (numpy).

The scipy backend's counter for small point sets in many columns (a new process's first
call, before numba is loaded).  A kd-tree prunes almost nothing there: at N = 2,000 in 16
columns the query cube of a KSG / Frenzel-Pompe count spans about half the data in every
single column, yet holds a fraction of a percent of the points in all of them together.
Intersecting the columns' constraints directly is cheaper:

* point j lies in the cube of radius r around point i iff, in every column c, its position
  in that column's sorted order lies in the exact interval ``[lo_c(i), hi_c(i))`` of the
  positions whose value passes ``|s - v| <= r`` (:func:`engine._rank_intervals`, the
  exact threshold search; no rounded ``v + r``);
* points are numbered by their position in column 0's sorted order, and for every other
  column the *prefix bitsets* ``P_c[p]`` (the points at c-positions below ``p``) are
  stored, ``N + 1`` rows of ``ceil(N / 64)`` words: N² / 8 bytes per column;
* the cube of point i is ``AND_c (P_c[hi_c(i)] AND NOT P_c[lo_c(i)])``, and its count one
  ``popcount`` of the result.

All integer work on (N, N/64) word arrays, a few milliseconds at N = 2,000.  Memory grows as
N² (``MAX_BYTES`` caps it; the engine uses this counter only below that).
"""

from __future__ import annotations

import numpy as np

#: Largest prefix-bitset table of one column, in bytes (N² / 8): N = 8,192 at 8 MiB.
MAX_BYTES = 8 << 20


def fits(n: int) -> bool:
    """Whether a point set of ``n`` points is small enough for this counter."""
    return (n + 1) * ((n + 63) // 64) * 8 <= MAX_BYTES


def _prefix_bits(bit: np.ndarray, words: int) -> np.ndarray:
    """``P[p]`` = the set of ``bit[:p]`` as (len(bit) + 1, words) uint64 rows."""
    n = bit.shape[0]
    table = np.zeros((n + 1, words), np.uint64)
    table[np.arange(1, n + 1), bit >> 6] = np.left_shift(np.uint64(1), (bit & 63).astype(np.uint64))
    np.bitwise_or.accumulate(table, axis=0, out=table)
    return table


def counts(points: np.ndarray, radii: np.ndarray, intervals) -> np.ndarray:
    """For each point i, the number of other points j with ``max|p_j - p_i| <= radii[i]``;
    ``-1`` for a negative radius (not even the point itself).

    ``intervals(s, r)`` returns, for sorted values ``s`` and radii ``r`` in that order, the
    exact ``(lo, hi)`` sorted positions within ``r`` of each (empty for ``r < 0``).
    """
    n, d = points.shape
    words = (n + 63) // 64
    acc = None
    rank0 = None
    for c in range(d):
        order = np.argsort(points[:, c], kind="stable")
        lo_s, hi_s = intervals(np.ascontiguousarray(points[order, c]), radii[order])
        lo = np.empty(n, np.int64)
        hi = np.empty(n, np.int64)
        lo[order], hi[order] = lo_s, hi_s
        if c == 0:  # bits are column-0 positions: this column's cube is one bit range
            rank0 = np.empty(n, np.int64)
            rank0[order] = np.arange(n)
            table = _prefix_bits(np.arange(n), words)
        else:
            table = _prefix_bits(rank0[order], words)
        cube = table[hi]
        cube &= ~table[lo]
        if acc is None:
            acc = cube
        else:
            acc &= cube
    return row_popcounts(acc) - 1


#: Set bits of each byte value, for numpy < 2 (no ``np.bitwise_count``).
_BYTE_BITS = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


def row_popcounts(words: np.ndarray, *, table: bool = False) -> np.ndarray:
    """Set bits of each row of a 2-D ``uint64`` array: ``np.bitwise_count`` (numpy >= 2),
    else (or with ``table``) a byte lookup table over the rows' bytes."""
    if hasattr(np, "bitwise_count") and not table:
        return np.bitwise_count(words).sum(axis=1, dtype=np.int64)
    b = np.ascontiguousarray(words).view(np.uint8).reshape(words.shape[0], -1)
    return _BYTE_BITS[b].sum(axis=1, dtype=np.int64)
