"""The neighbour engine: exact k-th neighbour distances and exact range counts.

Everything the kNN estimators need reduces to two primitives on a point set
``P`` (n rows, d columns):

* :func:`kth_neighbours`: for every point, the distance to its k-th nearest *other*
  point (and the indices of its k neighbours), with the max-norm or the Euclidean norm;
  :func:`kth_distance_to` does the same against a second sample (KL divergence).
* :func:`count_within`: for every point i, the number of *other* points j with
  ``dist(p_j, p_i) <= r_i`` (max-norm).

Strict counts (``< r``, as KSG-1 and Frenzel-Pompe need) are non-strict counts at
``np.nextafter(r, 0)``: no float lies strictly between the two, so this is exact, not an
epsilon.  Distances are computed exactly as ``|a - b|`` per coordinate in float64 in
every kernel (and in the brute-force tests), so a boundary point is classified the
same way by the joint search and by the marginal counts.

Implementation (numba, ``parallel=True``: queries are split across all cores):

* a kd-tree (median split on the widest coordinate, leaves of ``LEAFSIZE`` points,
  a bounding box per node) built once per point set; kNN queries are depth-first with
  box pruning; range counts add a whole node's size when its box lies inside the
  query ball and skip it when the box lies outside, so only boundary leaves are scanned;
* one-dimensional marginals use a sorted copy instead: exponential ("galloping")
  search from the point's own rank with the *exact* predicate ``|s_j - v| <= r``.
  Because ``s_j - v`` rounds monotonically in ``s_j``, the predicate is monotone along
  the sorted array and the boundary found is exact (a ``searchsorted(v + r)`` on the
  re-rounded sum ``v + r`` is not: it misplaces the boundary for about half the points).

Memory is O(n·d) (plus O(n·k) for neighbour indices); no pairwise matrices.
"""

from __future__ import annotations

from contextlib import contextmanager

import numba as nb
import numpy as np

__all__ = ["KDTree", "kth_neighbours", "kth_distance_to", "count_within", "LEAFSIZE"]

#: Points per kd-tree leaf.
LEAFSIZE = 16
#: Below this many queries the kernels run on one thread: a parallel region costs more
#: (thread wake-up and barrier, ~10 ms on a busy 2-core machine) than it saves.
PARALLEL_MIN = 20_000
_STACK = 256  # DFS stack; the tree depth is ~log2(n / LEAFSIZE) + 1, far below this


# ------------------------------------------------------------------------ build
@nb.njit(inline="always")
def _swap(work: np.ndarray, idx: np.ndarray, a: int, b: int) -> None:
    idx[a], idx[b] = idx[b], idx[a]
    for c in range(work.shape[1]):
        work[a, c], work[b, c] = work[b, c], work[a, c]


@nb.njit(cache=True)
def _select(work: np.ndarray, idx: np.ndarray, dim: int, lo: int, hi: int, kth: int) -> None:
    """Reorder rows ``lo:hi`` so row ``kth`` holds the kth key along ``dim`` (3-way quickselect).

    ``work`` (the points) and ``idx`` (their original rows) are permuted together, so the
    points of every node stay contiguous in memory.
    """
    while hi - lo > 1:
        a = work[lo, dim]
        b = work[(lo + hi) // 2, dim]
        c = work[hi - 1, dim]
        pivot = max(min(a, b), min(max(a, b), c))
        lt, i, gt = lo, lo, hi
        while i < gt:
            v = work[i, dim]
            if v < pivot:
                _swap(work, idx, lt, i)
                lt += 1
                i += 1
            elif v > pivot:
                gt -= 1
                _swap(work, idx, i, gt)
            else:
                i += 1
        if kth < lt:
            hi = lt
        elif kth >= gt:
            lo = gt
        else:
            return


@nb.njit(cache=True)
def _build(pts: np.ndarray, leafsize: int):
    n, d = pts.shape
    work = pts.copy()
    max_nodes = 4 * (n // leafsize + 1) + 3
    lo_a = np.empty(max_nodes, np.int64)
    hi_a = np.empty(max_nodes, np.int64)
    child = np.full(max_nodes, -1, np.int64)  # left child; right child is child + 1
    bmin = np.empty((max_nodes, d))
    bmax = np.empty((max_nodes, d))
    leaf_of = np.empty(n, np.int64)  # tree position -> its leaf
    idx = np.arange(n)
    stack = np.empty(_STACK, np.int64)
    lo_a[0], hi_a[0] = 0, n
    n_nodes = 1
    sp = 1
    stack[0] = 0
    while sp > 0:
        sp -= 1
        nd = stack[sp]
        lo, hi = lo_a[nd], hi_a[nd]
        for c in range(d):
            bmin[nd, c] = np.inf
            bmax[nd, c] = -np.inf
        for t in range(lo, hi):
            for c in range(d):
                v = work[t, c]
                if v < bmin[nd, c]:
                    bmin[nd, c] = v
                if v > bmax[nd, c]:
                    bmax[nd, c] = v
        dim, ext = 0, -1.0
        for c in range(d):
            e = bmax[nd, c] - bmin[nd, c]
            if e > ext:
                dim, ext = c, e
        if hi - lo <= leafsize or ext <= 0.0:  # a leaf (or identical points: one leaf)
            for t in range(lo, hi):
                leaf_of[t] = nd
            continue
        mid = (lo + hi) // 2
        _select(work, idx, dim, lo, hi, mid)
        left = n_nodes
        n_nodes += 2
        child[nd] = left
        lo_a[left], hi_a[left] = lo, mid
        lo_a[left + 1], hi_a[left + 1] = mid, hi
        stack[sp] = left
        stack[sp + 1] = left + 1
        sp += 2
    return (idx, work, leaf_of, lo_a[:n_nodes], hi_a[:n_nodes], child[:n_nodes],
            bmin[:n_nodes], bmax[:n_nodes])


# ---------------------------------------------------------------- distances
@nb.njit(inline="always")
def _dist(a: np.ndarray, b: np.ndarray, euclid: bool) -> float:
    s = 0.0
    if euclid:
        for c in range(a.shape[0]):
            t = a[c] - b[c]
            s += t * t
    else:
        for c in range(a.shape[0]):
            s = max(s, abs(a[c] - b[c]))
    return s


@nb.njit(inline="always")
def _box_min(q: np.ndarray, lo: np.ndarray, hi: np.ndarray, euclid: bool) -> float:
    s = 0.0
    for c in range(q.shape[0]):
        t = max(lo[c] - q[c], q[c] - hi[c], 0.0)
        if euclid:
            s += t * t
        else:
            s = max(s, t)
    return s


@nb.njit(inline="always")
def _box_max(q: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> float:
    s = 0.0
    for c in range(q.shape[0]):
        t = max(q[c] - lo[c], hi[c] - q[c])
        if t > s:
            s = t
    return s


# ---------------------------------------------------------------- kNN query
@nb.njit(inline="always")
def _scan_leaf(tdata, lo, hi, q, me, euclid, hd, hi_):
    k = hd.shape[0]
    for t in range(lo, hi):
        if t == me:
            continue
        dd = _dist(tdata[t], q, euclid)
        if dd < hd[k - 1]:
            a = k - 1
            while a > 0 and hd[a - 1] > dd:
                hd[a] = hd[a - 1]
                hi_[a] = hi_[a - 1]
                a -= 1
            hd[a] = dd
            hi_[a] = t


@nb.njit(parallel=True, cache=True)
def _knn(tdata, lo_a, hi_a, child, bmin, bmax, queries, self_pos, start_leaf, k, euclid,
         out_d, out_i):
    """k nearest points of ``tdata`` to each query, skipping tree position ``self_pos[q]``.

    When ``start_leaf[q] >= 0`` that leaf is scanned first (the query's own leaf), which
    gives a tight bound before the depth-first search from the root.
    """
    m = queries.shape[0]
    chunk = 256
    n_chunks = (m + chunk - 1) // chunk
    for ch in nb.prange(n_chunks):
        hd = np.empty(k)
        hi_ = np.empty(k, np.int64)
        stack = np.empty(_STACK, np.int64)
        sdist = np.empty(_STACK)
        for qi in range(ch * chunk, min(m, (ch + 1) * chunk)):
            q = queries[qi]
            me = self_pos[qi]
            first = start_leaf[qi]
            for a in range(k):
                hd[a] = np.inf
                hi_[a] = -1
            if first >= 0:
                _scan_leaf(tdata, lo_a[first], hi_a[first], q, me, euclid, hd, hi_)
            stack[0] = 0
            sdist[0] = 0.0
            sp = 1
            while sp > 0:
                sp -= 1
                nd = stack[sp]
                if sdist[sp] > hd[k - 1] or nd == first:
                    continue
                c0 = child[nd]
                if c0 < 0:
                    _scan_leaf(tdata, lo_a[nd], hi_a[nd], q, me, euclid, hd, hi_)
                    continue
                d0 = _box_min(q, bmin[c0], bmax[c0], euclid)
                d1 = _box_min(q, bmin[c0 + 1], bmax[c0 + 1], euclid)
                if d0 <= d1:  # push the far child first so the near one is searched first
                    stack[sp], sdist[sp] = c0 + 1, d1
                    stack[sp + 1], sdist[sp + 1] = c0, d0
                else:
                    stack[sp], sdist[sp] = c0, d0
                    stack[sp + 1], sdist[sp + 1] = c0 + 1, d1
                sp += 2
            for a in range(k):
                out_d[qi, a] = np.sqrt(hd[a]) if euclid else hd[a]
                out_i[qi, a] = hi_[a]


# -------------------------------------------------------------- range count
@nb.njit(parallel=True, cache=True)
def _count(tdata, lo_a, hi_a, child, bmin, bmax, queries, radii, out):
    """Number of points of ``tdata`` with max-norm distance <= radii[q] from each query."""
    m = queries.shape[0]
    chunk = 256
    n_chunks = (m + chunk - 1) // chunk
    for ch in nb.prange(n_chunks):
        stack = np.empty(_STACK, np.int64)
        for qi in range(ch * chunk, min(m, (ch + 1) * chunk)):
            q = queries[qi]
            r = radii[qi]
            cnt = 0
            stack[0] = 0
            sp = 1
            while sp > 0:
                sp -= 1
                nd = stack[sp]
                if _box_min(q, bmin[nd], bmax[nd], False) > r:
                    continue
                if _box_max(q, bmin[nd], bmax[nd]) <= r:
                    cnt += hi_a[nd] - lo_a[nd]
                    continue
                c0 = child[nd]
                if c0 < 0:
                    for t in range(lo_a[nd], hi_a[nd]):
                        if _dist(tdata[t], q, False) <= r:
                            cnt += 1
                    continue
                stack[sp] = c0
                stack[sp + 1] = c0 + 1
                sp += 2
            out[qi] = cnt


@nb.njit(parallel=True, cache=True)
def _count_sorted(s: np.ndarray, radii_sorted: np.ndarray, out: np.ndarray) -> None:
    """For each sorted position p: #{j != p : |s_j - s_p| <= radii_sorted[p]} (exact)."""
    n = s.shape[0]
    chunk = 1024
    n_chunks = (n + chunk - 1) // chunk
    for ch in nb.prange(n_chunks):
        for p in range(ch * chunk, min(n, (ch + 1) * chunk)):
            v = s[p]
            r = radii_sorted[p]
            # upwards: largest lo with s[lo] - v <= r (galloping, then bisection)
            lo, step, hi = p, 1, p + 1
            while hi < n and s[hi] - v <= r:
                lo = hi
                step *= 2
                hi = p + step
            if hi > n:
                hi = n
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if s[mid] - v <= r:
                    lo = mid
                else:
                    hi = mid
            up = lo - p
            # downwards: smallest hi with v - s[hi] <= r
            hi, step, lo = p, 1, p - 1
            while lo >= 0 and v - s[lo] <= r:
                hi = lo
                step *= 2
                lo = p - step
            if lo < -1:
                lo = -1
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if v - s[mid] <= r:
                    hi = mid
                else:
                    lo = mid
            out[p] = up + (p - hi)


# ------------------------------------------------------------------- wrappers
@contextmanager
def _threads(m: int):
    """Use all numba threads for ``m >= PARALLEL_MIN`` queries, one thread below."""
    prev = nb.get_num_threads()
    nb.set_num_threads(prev if m >= PARALLEL_MIN else 1)
    try:
        yield
    finally:
        nb.set_num_threads(prev)


class KDTree:
    """A kd-tree over ``points`` (n, d) for exact kNN queries and max-norm range counts.

    Parameters
    ----------
    points
        Float array (n, d); a 1-D array is one column.
    leafsize
        Points per leaf.
    """

    def __init__(self, points: np.ndarray, leafsize: int = LEAFSIZE) -> None:
        pts = np.ascontiguousarray(np.asarray(points, dtype=np.float64))
        if pts.ndim == 1:
            pts = pts.reshape(-1, 1)
        self.n, self.d = pts.shape
        built = _build(pts, leafsize)
        self.perm, self.data, self._leaf_of = built[:3]  # tree position -> row; rows in tree order
        self._lo, self._hi, self._child, self._bmin, self._bmax = built[3:]

    def _nodes(self) -> tuple:
        return (self.data, self._lo, self._hi, self._child, self._bmin, self._bmax)

    def knn_self(self, k: int, metric: str = "max") -> tuple[np.ndarray, np.ndarray]:
        """Distances (n, k) and original indices (n, k) of each point's k nearest others."""
        d = np.empty((self.n, k))
        i = np.empty((self.n, k), np.int64)
        with _threads(self.n):
            _knn(*self._nodes(), self.data, np.arange(self.n), self._leaf_of, k,
                 metric == "euclidean", d, i)
        out_d = np.empty_like(d)
        out_i = np.empty_like(i)
        out_d[self.perm] = d
        out_i[self.perm] = self.perm[i]
        return out_d, out_i

    def knn(self, queries: np.ndarray, k: int, metric: str = "max") -> np.ndarray:
        """Distances (m, k) from each query row to its k nearest points of the tree."""
        q = np.ascontiguousarray(np.asarray(queries, dtype=np.float64).reshape(-1, self.d))
        d = np.empty((q.shape[0], k))
        i = np.empty((q.shape[0], k), np.int64)
        none = np.full(q.shape[0], -1)
        with _threads(q.shape[0]):
            _knn(*self._nodes(), q, none, none, k, metric == "euclidean", d, i)
        return d

    def count_self(self, radii: np.ndarray) -> np.ndarray:
        """For each point i, the number of *other* points within max-norm distance <= radii[i]."""
        r = np.ascontiguousarray(np.asarray(radii, dtype=np.float64)[self.perm])
        c = np.empty(self.n, np.int64)
        with _threads(self.n):
            _count(*self._nodes(), self.data, r, c)
        out = np.empty(self.n, np.int64)
        out[self.perm] = c - 1  # the point itself is always within r >= 0
        return out


def kth_neighbours(
    points: np.ndarray, k: int, metric: str = "max"
) -> tuple[np.ndarray, np.ndarray]:
    """Distance to the k-th nearest other point and the indices (n, k) of the k nearest.

    Parameters
    ----------
    points
        (n, d) float array.
    k
        Neighbour order, ``1 <= k < n``.
    metric
        ``"max"`` (Chebyshev) or ``"euclidean"``.
    """
    d, i = KDTree(points).knn_self(k, metric)
    return d[:, k - 1].copy(), i


def kth_distance_to(
    ref: np.ndarray, queries: np.ndarray, k: int, metric: str = "max"
) -> np.ndarray:
    """Distance from each query row to its k-th nearest row of ``ref`` (no self exclusion)."""
    return KDTree(ref).knn(queries, k, metric)[:, k - 1].copy()


def count_within(points: np.ndarray, radii: np.ndarray, *, strict: bool = False) -> np.ndarray:
    """For each point i, the number of other points j with ``max|p_j - p_i| <= radii[i]``.

    ``strict=True`` counts ``< radii[i]`` instead (exactly, via ``np.nextafter(r, 0)``).
    One-dimensional point sets are counted on a sorted copy, others with a kd-tree.
    """
    pts = np.asarray(points, dtype=np.float64)
    r = np.asarray(radii, dtype=np.float64)
    if strict:
        r = np.where(r > 0, np.nextafter(r, 0), -1.0)  # nothing is at distance < 0
    if pts.ndim == 1 or pts.shape[1] == 1:
        col = pts.reshape(-1)
        order = np.argsort(col, kind="stable")
        s = np.ascontiguousarray(col[order])
        c = np.empty(col.shape[0], np.int64)
        with _threads(len(c)):
            _count_sorted(s, np.ascontiguousarray(r[order]), c)
        out = np.empty_like(c)
        out[order] = c
    else:
        out = KDTree(pts).count_self(r)
    if strict:
        out[r < 0] = 0
    return out
