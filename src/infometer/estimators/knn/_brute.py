"""Brute force for the joint-kNN-plus-marginal-counts pattern in high dimension.

KSG-1 and KSG-2 MI, Frenzel-Pompe CMI (hence kNN transfer entropy) and the KSG sums of
multivariate measures all find each point's k-th nearest neighbour in a joint max-norm
space made of several variables (blocks of columns) and then count, in some unions of
those variables ("spaces": KSG's x and y, Frenzel-Pompe's xz, yz and z), the points
within a radius.  In tens of joint dimensions a kd-tree prunes nothing and the bitset
index holds few points per interval, so both searches visit nearly every point; one pass
over all points per query then does the whole job:

* for every other point j, the max-norm distance ``dist[v, j] = max_{c in v} |p_jc -
  p_ic|`` within each variable v (one LLVM vector operation per column for ``BLOCK``
  points, :func:`.intrinsics.block_maxdists`), kept in a buffer of n values per variable;
  the joint distance is their maximum;
* the k nearest in (distance, row) order, the order of the kd-tree's neighbour lists
  (a point enters only when strictly nearer than the current k-th, since rows are scanned
  in increasing order), skipping the point itself and rows within the Theiler window;
* per space, the count of other points (outside the window) whose distance in that space
  (the maximum over its variables) is ``< eps`` (KSG-1, Frenzel-Pompe) or ``<= eps_s``
  with ``eps_s`` the largest space distance among the k neighbours (KSG-2), read from
  the buffer.

Every distance is ``|a - b|`` per coordinate in float64 and the maxima are exact, so the
counts and radii are those of the tree path bit for bit (on ties too).  Queries are
handled ``group`` at a time against each block of points, so a block is read from memory
once per group and reused from cache; memory is the buffer, ``group * nv * n`` floats per
thread (O(n) per thread, never n x n), plus the points in blocks.  This module is
imported only when the engine chooses brute force (:func:`engine.brute_chosen`).
"""

from __future__ import annotations

import numpy as np

# numba through ..jit only: it sets numba's cache directory before numba is first imported
from infometer.core._jit import nb

from ._intrinsics import BLOCK, block_maxdists, ctz

__all__ = ["layout", "group_size", "knn_counts", "BUFFER_BYTES", "MAX_GROUP"]

#: Queries per group at most: each block of points is read once per group.
MAX_GROUP = 16
#: The distance buffer of one thread (``group * nv * n`` floats) is kept under this
#: many bytes by shrinking the group (large n); memory stays O(n) per thread.
BUFFER_BYTES = 16 << 20


def layout(points: np.ndarray) -> np.ndarray:
    """``points`` (n, d) as blocks (ceil(n / BLOCK), d, BLOCK) of ``BLOCK`` rows stored
    column-major within a block, in row order; padding lanes are +inf (never a neighbour
    and never counted: their distances are +inf)."""
    n, d = points.shape
    nblk = -(-n // BLOCK)
    pad = np.full((nblk * BLOCK, d), np.inf)
    pad[:n] = points
    return np.ascontiguousarray(pad.reshape(nblk, BLOCK, d).transpose(0, 2, 1))


def group_size(n: int, nv: int) -> int:
    """Queries per group for ``n`` points in ``nv`` variables (see ``BUFFER_BYTES``)."""
    per = nv * (-(-n // BLOCK) * BLOCK) * 8
    return int(max(1, min(MAX_GROUP, BUFFER_BYTES // max(per, 1))))


@nb.njit(cache=True, nogil=True)
def knn_counts(points, blocks, bounds, spaces, k, theiler, ksg2, group, eps, counts, q_lo, q_hi):
    """k-th joint neighbour distance and per-space counts for queries ``q_lo..q_hi-1``.

    ``points`` (n, d) C-contiguous, ``blocks`` the same points by :func:`layout`;
    ``bounds`` (nv + 1,) the column offsets of the variables; ``spaces`` (ns, nv) 1 where
    a variable belongs to a space; ``theiler`` (>= 0) excludes rows with ``|i - j| <=
    theiler`` (besides i itself); ``ksg2``: count ``<=`` the space radius of the k
    neighbours instead of ``< eps``.  Writes ``eps[i]`` and ``counts[s, i]``.
    """
    n = points.shape[0]
    nblk = blocks.shape[0]
    nv = bounds.shape[0] - 1
    ns = spaces.shape[0]
    dist = np.empty((group, nv, nblk * BLOCK))
    tmp = np.empty(n)
    hd = np.empty((group, k))
    hp = np.empty((group, k), np.int64)
    one = np.uint64(1)
    for g0 in range(q_lo, q_hi, group):
        m = min(group, q_hi - g0)
        for t in range(m):
            for a in range(k):
                hd[t, a] = np.inf
                hp[t, a] = -1
        for b in range(nblk):
            for t in range(m):
                i = g0 + t
                near = block_maxdists(blocks, b, points[i], bounds, dist, t, hd[t, k - 1])
                while near:  # rows strictly nearer than the k-th: rare after a few blocks
                    lane = np.int64(ctz(near))
                    near &= near - one
                    j = b * BLOCK + lane
                    if j - i <= theiler and i - j <= theiler:  # i itself, or in the window
                        continue
                    dd = 0.0
                    for v in range(nv):
                        dd = max(dd, dist[t, v, j])
                    if dd >= hd[t, k - 1]:  # the k-th has shrunk since the mask was made
                        continue
                    a = k - 1
                    while a > 0 and hd[t, a - 1] > dd:  # equal distances: lower row first
                        hd[t, a] = hd[t, a - 1]
                        hp[t, a] = hp[t, a - 1]
                        a -= 1
                    hd[t, a] = dd
                    hp[t, a] = j
        for t in range(m):
            i = g0 + t
            e = hd[t, k - 1]
            eps[i] = e
            for s in range(ns):
                if ksg2:  # <= the largest distance in space s among the k neighbours
                    r = 0.0
                    for a in range(k):
                        for v in range(nv):
                            if spaces[s, v]:
                                r = max(r, dist[t, v, hp[t, a]])
                else:  # < e is <= the float below e (none lies between), nothing for e <= 0
                    r = np.nextafter(e, 0.0) if e > 0.0 else -1.0
                first = -1
                second = -1
                nmem = 0
                for v in range(nv):
                    if spaces[s, v]:
                        nmem += 1
                        if first < 0:
                            first = v
                        elif second < 0:
                            second = v
                cnt = 0
                if nmem == 1:
                    row = dist[t, first]
                    for j in range(n):
                        cnt += row[j] <= r
                elif nmem == 2:  # Frenzel-Pompe's xz and yz: no temporary row
                    row = dist[t, first]
                    row2 = dist[t, second]
                    for j in range(n):
                        cnt += max(row[j], row2[j]) <= r
                else:
                    for j in range(n):
                        tmp[j] = 0.0
                    for v in range(nv):
                        if spaces[s, v]:
                            row = dist[t, v]
                            for j in range(n):
                                tmp[j] = max(tmp[j], row[j])
                    for j in range(n):
                        cnt += tmp[j] <= r
                # i itself and the window rows were counted if within the radius
                for j in range(max(0, i - theiler), min(n, i + theiler + 1)):
                    dd = 0.0
                    for v in range(nv):
                        if spaces[s, v]:
                            dd = max(dd, dist[t, v, j])
                    cnt -= dd <= r
                counts[s, i] = cnt
