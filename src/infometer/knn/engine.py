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
  re-rounded sum ``v + r`` is not: it misplaces the boundary for about half the points);
* range counts on 2 to ``GRID_MAX_DIM`` columns use the quantile grid of
  :mod:`infometer.knn.grid` (:class:`RangeCounter` picks the structure);
* kernels are compiled per dimension up to ``MAX_UNROLLED`` (see :func:`_unrolled`);
  a large tree builds its root's two subtrees on two threads (:func:`_build_halves`),
  giving exactly the serial tree; :func:`start` builds several structures concurrently.

Memory is O(n·d) (plus O(n·k) for neighbour indices); no pairwise matrices.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import TypeVar

import numba as nb
import numpy as np

from . import grid

__all__ = [
    "KDTree",
    "RangeCounter",
    "kth_neighbours",
    "kth_distance_to",
    "count_within",
    "start",
    "LEAFSIZE",
]

T = TypeVar("T")

#: Points per kd-tree leaf.
LEAFSIZE = 16
#: Below this many queries the kernels run on one thread: a parallel region costs more
#: (thread wake-up and barrier, ~10 ms on a busy 2-core machine) than it saves.
PARALLEL_MIN = 20_000
#: Point sets with up to this many columns get kernels compiled for their dimension, so
#: the per-coordinate loops are unrolled (about 1.5x faster range counts in 3-D); wider
#: ones share one kernel with a run-time dimension.
MAX_UNROLLED = 8
#: Range counts on 2 to this many columns and at least ``GRID_MIN_POINTS`` points use the
#: quantile grid of :mod:`infometer.knn.grid`, otherwise the kd-tree: the crossovers
#: measured by ``benchmarks/knn.py --counts`` (benchmarks/RESULTS.md).
GRID_MAX_DIM = 4
GRID_MIN_POINTS = 2000
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


@nb.njit(cache=True, nogil=True)
def _build(pts: np.ndarray, leafsize: int, inplace: bool = False):
    """Build a kd-tree; ``inplace=True`` permutes ``pts`` itself instead of a copy."""
    n, d = pts.shape
    work = pts if inplace else pts.copy()
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
    return (
        idx,
        work,
        leaf_of,
        lo_a[:n_nodes],
        hi_a[:n_nodes],
        child[:n_nodes],
        bmin[:n_nodes],
        bmax[:n_nodes],
    )


@nb.njit(cache=True, nogil=True)
def _split_root(pts: np.ndarray):
    """The root step of :func:`_build`: its box, and its median split (``mid = -1``: a leaf)."""
    n, d = pts.shape
    work = pts.copy()
    idx = np.arange(n)
    bmin = np.full(d, np.inf)
    bmax = np.full(d, -np.inf)
    for t in range(n):
        for c in range(d):
            v = work[t, c]
            if v < bmin[c]:
                bmin[c] = v
            if v > bmax[c]:
                bmax[c] = v
    dim, ext = 0, -1.0
    for c in range(d):
        e = bmax[c] - bmin[c]
        if e > ext:
            dim, ext = c, e
    if ext <= 0.0:
        return work, idx, -1, bmin, bmax
    mid = n // 2
    _select(work, idx, dim, 0, n, mid)
    return work, idx, mid, bmin, bmax


def _build_halves(pts: np.ndarray, leafsize: int) -> tuple:
    """:func:`_build` with the two subtrees of the root built on two threads.

    The root split is the one :func:`_build` makes, and each half is built by
    :func:`_build` itself, so the tree (point order, boxes, leaves) is the same as a serial
    build; only the node numbering differs.  Results never depend on the thread count.
    """
    work, idx, mid, rmin, rmax = _split_root(pts)
    if mid < 0:
        return _build(pts, leafsize)
    with ThreadPoolExecutor(max_workers=1) as pool:
        left_future = pool.submit(_build, work[:mid], leafsize, True)
        right = _build(work[mid:], leafsize, True)
        left = left_future.result()
    n_left, n_right = len(left[3]), len(right[3])
    # node ids: root 0, the two subtree roots 1 and 2 (siblings are adjacent), then the
    # other nodes of the left subtree, then those of the right one
    remap = [
        np.concatenate([[1], 2 + np.arange(1, n_left)]),
        np.concatenate([[2], 1 + n_left + np.arange(1, n_right)]),
    ]
    total = 1 + n_left + n_right
    lo_a = np.empty(total, np.int64)
    hi_a = np.empty(total, np.int64)
    child = np.empty(total, np.int64)
    bmin = np.empty((total, pts.shape[1]))
    bmax = np.empty((total, pts.shape[1]))
    lo_a[0], hi_a[0], child[0], bmin[0], bmax[0] = 0, pts.shape[0], 1, rmin, rmax
    leaf_of = []
    for part, ids, offset in ((left, remap[0], 0), (right, remap[1], mid)):
        _, _, p_leaf, p_lo, p_hi, p_child, p_bmin, p_bmax = part
        lo_a[ids], hi_a[ids] = p_lo + offset, p_hi + offset
        child[ids] = np.where(p_child >= 0, ids[np.maximum(p_child, 0)], -1)
        bmin[ids], bmax[ids] = p_bmin, p_bmax
        leaf_of.append(ids[p_leaf])
    perm = np.concatenate([idx[:mid][left[0]], idx[mid:][right[0]]])
    data = work  # both halves were permuted in place
    return perm, data, np.concatenate(leaf_of), lo_a, hi_a, child, bmin, bmax


# ---------------------------------------------------------------- distances
@nb.njit(inline="always")
def _dist(pts: np.ndarray, t: int, q: np.ndarray, euclid: bool, dim: int) -> float:
    """Distance from row ``t`` of ``pts`` to ``q`` (squared when Euclidean)."""
    s = 0.0
    if euclid:
        for c in range(dim):
            u = pts[t, c] - q[c]
            s += u * u
    else:
        for c in range(dim):
            s = max(s, abs(pts[t, c] - q[c]))
    return s


@nb.njit(inline="always")
def _box_min(q: np.ndarray, bmin: np.ndarray, bmax: np.ndarray, nd: int, euclid: bool, dim: int):
    """Distance from ``q`` to the box of node ``nd`` (squared when Euclidean)."""
    s = 0.0
    for c in range(dim):
        t = max(bmin[nd, c] - q[c], q[c] - bmax[nd, c], 0.0)
        if euclid:
            s += t * t
        else:
            s = max(s, t)
    return s


@nb.njit(inline="always")
def _rel(q: np.ndarray, bmin: np.ndarray, bmax: np.ndarray, nd: int, r: float, dim: int) -> int:
    """Max-norm box of node ``nd`` vs the ball of radius r: 0 disjoint, 2 inside, 1 straddling.

    Exact: ``-a`` below is exactly ``lo - q`` (float negation is exact).
    """
    mn = 0.0
    mx = 0.0
    for c in range(dim):
        a = q[c] - bmin[nd, c]
        b = bmax[nd, c] - q[c]
        mn = max(mn, -a, -b)
        mx = max(mx, a, b)
    if mn > r:
        return 0
    return 2 if mx <= r else 1


# ---------------------------------------------------------------- kNN query
@nb.njit(inline="always")
def _scan_leaf(tdata, lo, hi, q, me, euclid, dim, hd, hi_):
    k = hd.shape[0]
    for t in range(lo, hi):
        if t == me:
            continue
        dd = _dist(tdata, t, q, euclid, dim)
        if dd < hd[k - 1]:
            a = k - 1
            while a > 0 and hd[a - 1] > dd:
                hd[a] = hd[a - 1]
                hi_[a] = hi_[a - 1]
                a -= 1
            hd[a] = dd
            hi_[a] = t


@nb.njit(parallel=True, cache=True)
def _knn(
    tdata,
    lo_a,
    hi_a,
    child,
    bmin,
    bmax,
    queries,
    self_pos,
    start_leaf,
    k,
    euclid,
    out_row,
    perm,
    out_d,
    out_i,
    D,
):
    """k nearest points of ``tdata`` to each query, skipping tree position ``self_pos[q]``.

    When ``start_leaf[q] >= 0`` that leaf is scanned first (the query's own leaf), which
    gives a tight bound before the depth-first search from the root.  Results for query
    ``q`` go to row ``out_row[q]``; neighbour indices are mapped through ``perm``.
    ``D`` carries the dimension as a compile-time constant (see :func:`_unrolled`).
    """
    dim = tdata.shape[1] if len(D) == 0 else len(D)
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
                _scan_leaf(tdata, lo_a[first], hi_a[first], q, me, euclid, dim, hd, hi_)
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
                    _scan_leaf(tdata, lo_a[nd], hi_a[nd], q, me, euclid, dim, hd, hi_)
                    continue
                d0 = _box_min(q, bmin, bmax, c0, euclid, dim)
                d1 = _box_min(q, bmin, bmax, c0 + 1, euclid, dim)
                if d0 <= d1:  # push the far child first so the near one is searched first
                    stack[sp], sdist[sp] = c0 + 1, d1
                    stack[sp + 1], sdist[sp + 1] = c0, d0
                else:
                    stack[sp], sdist[sp] = c0, d0
                    stack[sp + 1], sdist[sp + 1] = c0 + 1, d1
                sp += 2
            row = out_row[qi]
            for a in range(k):
                out_d[row, a] = np.sqrt(hd[a]) if euclid else hd[a]
                out_i[row, a] = perm[hi_[a]]


# -------------------------------------------------------------- range count
@nb.njit(parallel=True, cache=True)
def _count(tdata, lo_a, hi_a, child, bmin, bmax, queries, radii, out, D):
    """Number of points of ``tdata`` with max-norm distance <= radii[q] from each query.

    Boundary leaves are scanned without branches (``cnt += all |p_c - q_c| <= r``): about
    half their points are inside, so a per-point branch is mispredicted half the time.
    """
    dim = tdata.shape[1] if len(D) == 0 else len(D)
    m = queries.shape[0]
    chunk = 256
    n_chunks = (m + chunk - 1) // chunk
    for ch in nb.prange(n_chunks):
        stack = np.empty(_STACK, np.int64)
        for qi in range(ch * chunk, min(m, (ch + 1) * chunk)):
            q = queries[qi]
            r = radii[qi]
            cnt = 0
            # classify the root, then each child before pushing it: 0 disjoint, 2 inside
            rel = _rel(q, bmin, bmax, 0, r, dim)
            if rel == 2:
                cnt = hi_a[0] - lo_a[0]
            sp = 0
            if rel == 1:
                stack[0] = 0
                sp = 1
            while sp > 0:
                sp -= 1
                nd = stack[sp]
                c0 = child[nd]
                if c0 < 0:
                    for t in range(lo_a[nd], hi_a[nd]):
                        inside = True
                        for c in range(dim):
                            inside &= abs(tdata[t, c] - q[c]) <= r
                        cnt += inside
                    continue
                for ch_ in (c0, c0 + 1):
                    rel = _rel(q, bmin, bmax, ch_, r, dim)
                    if rel == 2:
                        cnt += hi_a[ch_] - lo_a[ch_]
                    elif rel == 1:
                        stack[sp] = ch_
                        sp += 1
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


def _unrolled(d: int) -> tuple:
    """The dimension as a kernel argument whose *type* fixes it at compile time.

    A tuple of ``d`` zeros has its length in its numba type (``UniTuple(int64, d)``), so
    each dimension gets its own compiled (and disk-cached) kernel with unrolled loops;
    the empty tuple means "read the dimension from the data at run time".
    """
    return (0,) * d if d <= MAX_UNROLLED else ()


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
        halves = self.n >= PARALLEL_MIN and nb.get_num_threads() > 1
        built = _build_halves(pts, leafsize) if halves else _build(pts, leafsize)
        self.perm, self.data, self._leaf_of = built[:3]  # tree position -> row; rows in tree order
        self._lo, self._hi, self._child, self._bmin, self._bmax = built[3:]

    def _nodes(self) -> tuple:
        return (self.data, self._lo, self._hi, self._child, self._bmin, self._bmax)

    def knn_self(self, k: int, metric: str = "max") -> tuple[np.ndarray, np.ndarray]:
        """Distances (n, k) and original indices (n, k) of each point's k nearest others."""
        d = np.empty((self.n, k))
        i = np.empty((self.n, k), np.int64)
        with _threads(self.n):
            _knn(
                *self._nodes(),
                self.data,
                np.arange(self.n),
                self._leaf_of,
                k,
                metric == "euclidean",
                self.perm,
                self.perm,
                d,
                i,
                _unrolled(self.d),
            )
        return d, i

    def knn(self, queries: np.ndarray, k: int, metric: str = "max") -> np.ndarray:
        """Distances (m, k) from each query row to its k nearest points of the tree."""
        q = np.ascontiguousarray(np.asarray(queries, dtype=np.float64).reshape(-1, self.d))
        d = np.empty((q.shape[0], k))
        i = np.empty((q.shape[0], k), np.int64)
        none = np.full(q.shape[0], -1)
        with _threads(q.shape[0]):
            _knn(
                *self._nodes(),
                q,
                none,
                none,
                k,
                metric == "euclidean",
                np.arange(q.shape[0]),
                self.perm,
                d,
                i,
                _unrolled(self.d),
            )
        return d

    def count_self(self, radii: np.ndarray) -> np.ndarray:
        """For each point i, the number of *other* points within max-norm distance <= radii[i]."""
        r = np.ascontiguousarray(np.asarray(radii, dtype=np.float64)[self.perm])
        c = np.empty(self.n, np.int64)
        with _threads(self.n):
            _count(*self._nodes(), self.data, r, c, _unrolled(self.d))
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


class RangeCounter:
    """Exact self range counts on one point set (max-norm): ``count(radii)[i]`` is the
    number of other points j with ``max|p_j - p_i| <= radii[i]``.

    One column: a sorted copy with galloping search.  Two to ``GRID_MAX_DIM`` columns and
    at least ``GRID_MIN_POINTS`` points: a quantile grid (:mod:`infometer.knn.grid`, laid
    out when the radii are known, since its slab count depends on them).  Otherwise a
    kd-tree.  Construction (sorting, tree building) is separate from counting, so that it
    can run on another thread while the joint neighbour search runs (see :func:`start`).
    """

    def __init__(self, points: np.ndarray) -> None:
        pts = np.ascontiguousarray(np.asarray(points, dtype=np.float64))
        if pts.ndim == 1:
            pts = pts.reshape(-1, 1)
        self.n, self.d = pts.shape
        self._points = pts
        self._tree: KDTree | None = None
        if self.d == 1:
            self._order = np.argsort(pts[:, 0])
            self._sorted = np.ascontiguousarray(pts[self._order, 0])
        elif self.d <= GRID_MAX_DIM and self.n >= GRID_MIN_POINTS:
            self._ranks = [np.argsort(pts[:, k]) for k in range(self.d)]
        else:
            self._tree = KDTree(pts)

    def count(self, radii: np.ndarray, *, strict: bool = False) -> np.ndarray:
        """Counts within ``radii`` (``strict=True``: strictly closer, exactly)."""
        r = np.asarray(radii, dtype=np.float64)
        if strict:
            r = np.where(r > 0, np.nextafter(r, 0), -1.0)  # nothing is at distance < 0
        if self._tree is not None:
            out = self._tree.count_self(r)
        else:
            c = np.empty(self.n, np.int64)
            if self.d == 1:
                order = self._order
                with _threads(self.n):
                    _count_sorted(self._sorted, np.ascontiguousarray(r[order]), c)
            else:
                g = grid.build(self._points, self._ranks, r)
                order = g.order
                with _threads(self.n):
                    grid.count(
                        g.data,
                        g.slab,
                        g.start,
                        g.n_slabs,
                        g.radix,
                        g.lo,
                        g.hi,
                        np.ascontiguousarray(r[order]),
                        c,
                        _unrolled(self.d),
                    )
            out = np.empty_like(c)
            out[order] = c
        if strict:
            out[r < 0] = 0
        return out


def count_within(points: np.ndarray, radii: np.ndarray, *, strict: bool = False) -> np.ndarray:
    """For each point i, the number of other points j with ``max|p_j - p_i| <= radii[i]``.

    ``strict=True`` counts ``< radii[i]`` instead (exactly, via ``np.nextafter(r, 0)``).
    One-dimensional point sets are counted on a sorted copy, others with a kd-tree.
    """
    return RangeCounter(points).count(radii, strict=strict)


def start(n: int, *makers: Callable[[], T]) -> list[Callable[[], T]]:
    """Start building each structure (tree, counter) on its own thread; one getter each.

    Tree builds are single-threaded and release the GIL, so on a multi-core machine the
    marginal structures of KSG or Frenzel-Pompe are built while the joint tree is built
    and searched, instead of one after another.  Below ``PARALLEL_MIN`` points nothing is
    started: each getter builds its structure when called (threads would cost more).
    """
    if n < PARALLEL_MIN or len(makers) < 2:
        return list(makers)
    pool = ThreadPoolExecutor(max_workers=len(makers), thread_name_prefix="infometer-build")
    futures = [pool.submit(m) for m in makers]
    pool.shutdown(wait=False)
    return [f.result for f in futures]
