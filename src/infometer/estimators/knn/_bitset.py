"""A rank-space bitset index: exact max-norm range counts and kNN in high dimension.

In 8 or 16 dimensions a kd-tree prunes almost nothing for the cubes KSG needs: the cube
of a marginal count is about half the data wide in every single column but holds a few
hundred of 10^5 points in all columns together, so the tree search is a slow brute force.
This index answers the same queries with word-wide logic on bits instead:

* the points are numbered by their rank in column 0 (their *bit*), so the points whose
  column-0 value lies in an interval form one contiguous run of bits;
* for every other column ``c`` and every block ``b`` of ``B`` sorted positions it stores
  the *prefix bitset* ``P_c[b]``: the points whose position in column ``c``'s sorted order
  is below ``b * B``.  Points at sorted positions ``[a B, b B)`` are then
  ``P_c[b] & ~P_c[a]``, one word per 64 points;
* a count (point ``i``, radius ``r``) finds, in every column, the exact interval
  ``[lo_c, hi_c)`` of sorted positions within ``r`` (:func:`_interval`: the predicate
  ``|s_j - v| <= r`` of :func:`compiled._bounds`, bisecting a cached coarse copy of the
  column first), ANDs the bitsets of the whole blocks that cover it in all columns over
  the words of column 0's interval, clears the at most ``2 B`` points per column of those
  blocks outside the exact interval one by one, and counts the bits that remain
  (``popcount``);
* a kNN query (point ``i``, k) ANDs the same block bitsets and clears nothing: the bits
  left are a superset of the cube of radius ``r`` (its points and a few of the blocks'
  ends).  It computes the exact distance of each and keeps the k nearest; when k of them
  lie within ``r``, they are the k nearest of all points (every point within ``r`` is a
  candidate), otherwise ``r`` grows.  The candidates' rows are scattered through memory,
  so each is prefetched ``PREFETCH`` candidates ahead (``llvm.prefetch``, a hint: 0.86x
  the kNN's CPU at 16 columns, N = 1e5).

Exactness: a point lies in the max-norm cube of radius ``r`` around point ``i`` iff its
sorted position lies in ``[lo_c, hi_c)`` in every column; the intervals are exact and
everything after them is integer logic, so the counts are those of brute force.  The kNN
distances are computed exactly (``|a - b|`` per coordinate in float64, as every kernel
does); ties at the k-th distance are broken by the bit number (the first k in (distance,
bit) order), which does not depend on the radius tried.

Memory: ``(d - 1) * (n / B + 1) * n / 8`` bytes (quadratic in n), so the engine uses the
index only up to ``MAX_BYTES`` (choosing the smallest power of two ``B >= MIN_BLOCK``
that fits) and falls back to its kd-tree above.  This module is imported only when the engine uses
it (compiled backend, high dimension, see :mod:`infometer.estimators.knn.engine`).
"""

from __future__ import annotations

import numpy as np

# numba through ..jit only: it sets numba's cache directory before numba is first imported
# (this module may be the first to import it)
from infometer.core.jit import nb

from ._intrinsics import ctz as _ctz
from ._intrinsics import popcount as _popcount
from ._intrinsics import prefetch as _prefetch

#: Largest size of the prefix bitsets (bytes); above it the engine keeps its kd-tree.  KSG
#: holds three indexes at once (joint, x, y): about 420 MB at 8x8 columns, N = 2e5
#: (blocks of 512 and 256).  Larger blocks cost little: an 8-D count at N = 1e5 takes the
#: same CPU with blocks of 64 and 128, 1.07x more with 256 (more points to clear).
MAX_BYTES = 256 * 2**20
#: Smallest block of sorted positions per prefix bitset (a power of two).
MIN_BLOCK = 128
#: kNN: the first radius tried is this times the k-th distance of the previous query
#: (in the caller's query order, which should put close points next to each other) ...
GUESS = 1.15
#: ... and each retry multiplies it by this, up to a radius known to hold k points.
GROWTH = 1.3
#: kNN: while checking a candidate's distance, prefetch the row of the one this far ahead.
PREFETCH = 8
#: log2 of the stride of the coarse copy of each sorted column that the interval search
#: bisects first (its table stays in cache; the search then reads one stretch of the
#: column): 64 measured best of 8-128, 0.68x the CPU of galloping from the point.
COARSE_SHIFT = 6

_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)


def block_shift(n: int, d: int, max_bytes: float | None = None) -> int:
    """log2 of the smallest block (>= ``MIN_BLOCK``) whose bitsets fit ``max_bytes``;
    -1 when none does (or there is a single column: then no bitsets are needed)."""
    cap = MAX_BYTES if max_bytes is None else max_bytes
    shift = int(MIN_BLOCK).bit_length() - 1
    while (1 << shift) <= max(n, 1):
        if nbytes(n, d, shift) <= cap:
            return shift
        shift += 1
    return -1


def nbytes(n: int, d: int, shift: int) -> int:
    """Bytes of the prefix bitsets of ``n`` points in ``d`` columns, blocks of ``2**shift``."""
    return (d - 1) * ((n + (1 << shift) - 1) // (1 << shift) + 1) * ((n + 63) // 64) * 8


# ------------------------------------------------------------------------ build
def _argsort_stable(col: np.ndarray) -> np.ndarray:
    """``np.argsort(col, kind="stable")`` (ties in row order, the same on every machine),
    cheaply: numpy's vectorised quicksort (3x faster at 10^5 values) gives the one sorting
    order when the values are distinct; only a column with equal values is sorted again."""
    o = np.argsort(col)
    s = col[o]
    if np.any(s[1:] == s[:-1]):
        o = np.argsort(col, kind="stable")
    return o


@nb.njit(cache=True, nogil=True)
def _fill(bit_of, shift, pref):
    """``pref[c - 1, b]`` = bits of the points at column-c sorted positions < ``b << shift``."""
    d, n = bit_of.shape
    rows = pref.shape[1]
    w = pref.shape[2]
    for c in range(1, d):
        for t in range(w):
            pref[c - 1, 0, t] = 0
        for b in range(1, rows):
            for t in range(w):
                pref[c - 1, b, t] = pref[c - 1, b - 1, t]
            for p in range((b - 1) << shift, min(b << shift, n)):
                j = bit_of[c, p]
                pref[c - 1, b, j >> 6] |= np.uint64(1) << np.uint64(j & 63)


class Index:
    """The bitset index of ``points`` (n, d), for exact max-norm counts and kNN.

    Parameters
    ----------
    points
        Float array (n, d), ``d >= 2``.
    shift
        log2 of the block size (see :func:`block_shift`).
    """

    def __init__(self, points: np.ndarray, shift: int) -> None:
        pts = np.asarray(points, dtype=np.float64)
        self.n, self.d = pts.shape
        n, d = self.n, self.d
        order = np.empty((d, n), np.int64)
        inv = np.empty((d, n), np.int64)
        for c in range(d):
            order[c] = _argsort_stable(pts[:, c])
            inv[c, order[c]] = np.arange(n)
        #: bit -> original row, and the points in bit order (row-major)
        self.order0 = order[0]
        self.data0 = np.ascontiguousarray(pts[self.order0])
        #: column c sorted, one row per column, and every 2**COARSE_SHIFT-th value of it
        self.s = np.ascontiguousarray(np.take_along_axis(pts.T, order, axis=1))
        self.sc = np.ascontiguousarray(self.s[:, :: 1 << COARSE_SHIFT])
        #: sorted position of each bit in every column, (n, d)
        self.pos = np.ascontiguousarray(inv[:, self.order0].T)
        #: bit of the point at each sorted position, (d, n)
        self.bit_of = inv[0][order]
        self.shift = shift
        rows = (n + (1 << shift) - 1) // (1 << shift) + 1
        self.pref = np.empty((d - 1, rows, (n + 63) // 64), np.uint64)
        _fill(self.bit_of, np.int64(shift), self.pref)

    def head(self, m: int) -> Index:
        """The index of the first ``m`` columns (``2 <= m <= d``), sharing this one's
        arrays: both number the points by column 0, so the prefix bitsets of columns
        ``1 .. m - 1`` are the same (KSG's x marginal inside its joint space (x, y)).
        Counts on it equal those of ``Index(points[:, :m], self.shift)``."""
        if not 2 <= m <= self.d:
            raise ValueError(f"m must be between 2 and {self.d}, got {m}")
        h = object.__new__(Index)
        h.n, h.d, h.shift = self.n, m, self.shift
        h.order0 = self.order0
        h.data0 = np.ascontiguousarray(self.data0[:, :m])
        h.s, h.sc, h.bit_of = self.s[:m], self.sc[:m], self.bit_of[:m]
        h.pos = np.ascontiguousarray(self.pos[:, :m])
        h.pref = self.pref[: m - 1]
        return h

    def knn(self, k: int, queries: np.ndarray, out_d, out_i, tries, lo: int, hi: int) -> None:
        """k nearest others of bits ``queries[lo:hi]`` (see :func:`_knn`)."""
        args = (self.s, self.sc, self.pos, self.bit_of, self.pref, np.int64(self.shift),
                self.data0)  # fmt: skip
        _knn(*args, self.order0, queries, np.int64(k), GUESS, GROWTH, out_d, out_i, tries, lo, hi)

    def count(self, radii_bits: np.ndarray, out: np.ndarray, lo: int, hi: int) -> None:
        """Counts of bits ``lo..hi-1`` (radii in bit order) into ``out`` (bit order)."""
        _count(self.s, self.sc, self.pos, self.bit_of, self.pref, np.int64(self.shift),
               radii_bits, out, lo, hi)  # fmt: skip


# ------------------------------------------------------------------- queries
@nb.njit(cache=True, nogil=True)
def _knn(s, sc, pos, bit_of, pref, shift, data0, order0, queries, k, guess, growth,
         out_d, out_i, tries, q_lo, q_hi):  # fmt: skip
    """The k nearest other points (max-norm) of bits ``queries[q_lo:q_hi]``: distances
    into ``out_d`` and original rows into ``out_i``, at row ``order0[bit]``; the number
    of cubes tried per query into ``tries``.

    Radius: ``guess`` times the k-th distance of the previous query (the caller orders
    the queries so that neighbours in ``queries`` are close in space), grown by
    ``growth`` until k candidates lie within it, but never beyond ``bound``, the k-th
    distance to the query's ``2k`` neighbours in column 0's order (a cube of that radius
    holds at least k other points).  The candidates (a superset of the cube, see
    :func:`_cube`) are enumerated in bit order and their exact distances kept in a
    sorted list: the result is the first k points in (distance, bit) order, whatever
    radius was used.  (Measured against exact cubes with a popcount test: 0.65x the CPU
    at 16 columns, N = 1e5, the coarse interval search included.)
    """
    d, n = s.shape
    acc = np.empty((n + 63) // 64, np.uint64)
    rows = pref.shape[1]
    pref2 = pref.reshape((pref.shape[0] * rows, pref.shape[2]))
    hd = np.empty(k)
    hj = np.empty(k, np.int64)
    cand = np.empty(n, np.int64)
    flat = data0.reshape(n * d)
    v = np.empty(d)
    prev = -1.0
    for qi in range(q_lo, q_hi):
        q = queries[qi]
        for c in range(d):
            v[c] = data0[q, c]
        # an upper bound: the k-th distance to the 2k neighbours of q in column 0
        for a in range(k):
            hd[a] = np.inf
        for j in range(max(q - k, 0), min(q + k + 1, n)):
            if j == q:
                continue
            dd = 0.0
            for c in range(d):
                dd = max(dd, abs(data0[j, c] - v[c]))
            if dd < hd[k - 1]:
                a = k - 1
                while a > 0 and hd[a - 1] > dd:
                    hd[a] = hd[a - 1]
                    a -= 1
                hd[a] = dd
        bound = hd[k - 1]
        r = bound if prev < 0 else min(guess * prev, bound)
        t_ = 0
        while True:
            t_ += 1
            w0, w1 = _cube(s, sc, pos, bit_of, pref2, rows, shift, q, r, acc, False)
            # the k nearest of the candidates (a superset of the cube), in (distance, bit)
            # order: the bits are enumerated in order and a tie never displaces
            for a in range(k):
                hd[a] = np.inf
                hj[a] = -1
            worst = np.inf
            nc = 0  # the candidates' bits, in order
            for t in range(w0, w1):
                x = acc[t]
                while x:
                    cand[nc] = (t << 6) + np.int64(_ctz(x))
                    x &= x - np.uint64(1)
                    nc += 1
            for u in range(nc):
                if u + PREFETCH < nc:  # their rows are scattered: ask for them early
                    _prefetch(flat, cand[u + PREFETCH] * d)
                j = cand[u]
                if j == q:
                    continue
                dd = 0.0
                for c in range(d):
                    dd = max(dd, abs(data0[j, c] - v[c]))
                    if dd >= worst:
                        break
                if dd < worst:
                    a = k - 1
                    while a > 0 and hd[a - 1] > dd:
                        hd[a] = hd[a - 1]
                        hj[a] = hj[a - 1]
                        a -= 1
                    hd[a] = dd
                    hj[a] = j
                    worst = hd[k - 1]
            # k candidates within r: every point within r is a candidate, so these are
            # the k nearest of all points
            if worst <= r or r >= bound:
                break
            r = min(r * growth, bound) if r > 0 else bound
        tries[qi] = t_
        prev = hd[k - 1]
        row = order0[q]
        for a in range(k):
            out_d[row, a] = hd[a]
            out_i[row, a] = order0[hj[a]]


@nb.njit(inline="always")
def _first_within_below(s, a, b, v, r):
    """First j in ``a..b-1`` with ``v - s[j] <= r`` (``s`` ascending), else ``b``."""
    while a < b:
        m = (a + b) >> 1
        if v - s[m] <= r:
            b = m
        else:
            a = m + 1
    return a


@nb.njit(inline="always")
def _first_beyond_above(s, a, b, v, r):
    """First j in ``a..b-1`` with ``s[j] - v > r`` (``s`` ascending), else ``b``."""
    while a < b:
        m = (a + b) >> 1
        if s[m] - v > r:
            b = m
        else:
            a = m + 1
    return a


@nb.njit(inline="always")
def _interval(s, sc, p, r):
    """The sorted positions ``[lo, hi)`` with ``|s_j - s_p| <= r`` (``r >= 0``): those of
    :func:`compiled._bounds` (the same exact predicates, both monotone in ``j``), found by
    bisecting the coarse copy ``sc`` (every ``2**COARSE_SHIFT``-th value, in cache) and
    then one stretch of ``s`` between two coarse values."""
    n = s.shape[0]
    m = sc.shape[0]
    v = s[p]
    i = _first_within_below(sc, 0, m, v, r)
    a = ((i - 1) << COARSE_SHIFT) + 1 if i > 0 else 0
    lo = _first_within_below(s, a, min(i << COARSE_SHIFT, n), v, r)
    i = _first_beyond_above(sc, 0, m, v, r)
    a = ((i - 1) << COARSE_SHIFT) + 1 if i > 0 else 0
    hi = _first_beyond_above(s, a, min(i << COARSE_SHIFT, n), v, r)
    return lo, hi


@nb.njit(inline="always")
def _cube(s, sc, pos, bit_of, pref, rows, shift, q, r, acc, exact):
    """Leave in ``acc`` the bits of the points within max-norm ``r`` (>= 0) of bit ``q``
    (``exact``), or a superset of them (not ``exact``: see below); returns the first and
    one-past-last word used (those of column 0's interval).

    ``pref`` holds the prefix bitsets as one (columns * ``rows``, words) array.  Column
    by column, ``acc`` is ANDed with ``pref[b_c] & ~pref[a_c]``, the whole blocks
    ``[a_c, b_c)`` that cover the exact interval ``[lo_c, hi_c)`` (one pass over the
    words).  ``exact``: the at most ``2 * 2**shift`` points of ``[a_c, lo_c)`` and
    ``[hi_c, b_c)`` (in the blocks, not in the cube) are then cleared one by one.  Not
    ``exact`` (the kNN, which checks every candidate's distance anyway), nothing is
    cleared: the bits left are the cube's plus a few points of the blocks' ends.
    (Clearing alone measured as fast as the earlier blocks rounded to the nearest end
    with saved and restored bits, and is simpler.)
    """
    d, n = s.shape
    lo0, hi0 = _interval(s[0], sc[0], pos[q, 0], r)
    w0 = lo0 >> 6
    w1 = ((hi0 - 1) >> 6) + 1
    # loops over slices from 0 (not over range(w0, w1)): numba then knows the index is
    # not negative and drops its wrap-around test (the AND pass stays scalar and, at
    # N = 1e5, is bound by memory bandwidth)
    aw = acc[w0:w1]
    for t in range(aw.shape[0]):
        aw[t] = _ONES
    acc[w0] &= _ONES << np.uint64(lo0 & 63)
    acc[w1 - 1] &= _ONES >> np.uint64(63 - ((hi0 - 1) & 63))
    block = np.int64(1) << shift
    one = np.uint64(1)
    for c in range(1, d):
        lo_c, hi_c = _interval(s[c], sc[c], pos[q, c], r)
        # the blocks that cover [lo_c, hi_c) (never empty: q is in it)
        a = (lo_c >> shift) << shift
        b = ((hi_c + block - 1) >> shift) << shift
        ra = pref[(c - 1) * rows + (a >> shift), w0:w1]
        rb = pref[(c - 1) * rows + (b >> shift), w0:w1]
        for t in range(aw.shape[0]):
            aw[t] &= rb[t] & ~ra[t]
        if exact:  # clear the points of the blocks outside [lo_c, hi_c)
            bits = bit_of[c]
            for p in range(a, lo_c):
                j = bits[p]
                acc[j >> 6] &= ~(one << np.uint64(j & 63))
            for p in range(hi_c, min(b, n)):  # b may pass n (no points there)
                j = bits[p]
                acc[j >> 6] &= ~(one << np.uint64(j & 63))
    return w0, w1


@nb.njit(cache=True, nogil=True)
def _count(s, sc, pos, bit_of, pref, shift, radii, out, q_lo, q_hi):
    """``out[q]`` = number of other points within max-norm ``radii[q]`` of bit ``q`` for
    bits ``q_lo..q_hi-1`` (0 for a negative or NaN radius)."""
    n = s.shape[1]
    acc = np.empty((n + 63) // 64, np.uint64)
    rows = pref.shape[1]
    pref2 = pref.reshape((pref.shape[0] * rows, pref.shape[2]))
    for q in range(q_lo, q_hi):
        r = radii[q]
        if not r >= 0.0:
            out[q] = 0
            continue
        w0, w1 = _cube(s, sc, pos, bit_of, pref2, rows, shift, q, r, acc, True)
        cnt = np.uint64(0)
        aw = acc[w0:w1]
        for t in range(aw.shape[0]):
            cnt += _popcount(aw[t])
        out[q] = np.int64(cnt) - 1
