"""The compiled kernels of the neighbour engine (numba; see :mod:`infometer.knn.engine`).

Every kernel is compiled once, for any dimension (the dimension is read from the data),
releases the GIL, and works on a range ``lo..hi`` of its queries so that
:func:`infometer.knn.engine._run` can split the queries over threads.  Compiled code is
cached on disk by numba (``cache=True``); this module is imported only when the engine
uses the compiled backend, so ``import infometer`` and small problems never load numba.
"""

from __future__ import annotations

import numba as nb
import numpy as np

_STACK = 256  # DFS stack; the tree depth is ~log2(n / LEAFSIZE) + 1, far below this


# ------------------------------------------------------------------------ build
@nb.njit(inline="always")
def _swap(work: np.ndarray, idx: np.ndarray, a: int, b: int) -> None:
    idx[a], idx[b] = idx[b], idx[a]
    for c in range(work.shape[1]):
        work[a, c], work[b, c] = work[b, c], work[a, c]


@nb.njit(cache=True, nogil=True)
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
def _build(work, leafsize, idx, leaf_of, lo_a, hi_a, child, bmin, bmax):
    """Build a kd-tree over ``work`` (n, d), permuting its rows in place; returns the
    number of nodes.

    Fills ``idx`` (tree position -> row), ``leaf_of`` (the leaf of each tree position) and,
    per node, its first and last position, its left child (-1 for a leaf; the right child
    is the next node) and its bounding box.
    """
    n, d = work.shape
    for t in range(n):
        idx[t] = t
    stack = np.empty(_STACK, np.int64)
    lo_a[0], hi_a[0] = 0, n
    n_nodes = 1
    sp = 1
    stack[0] = 0
    while sp > 0:
        sp -= 1
        nd = stack[sp]
        lo, hi = lo_a[nd], hi_a[nd]
        child[nd] = -1
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
    return n_nodes


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


@nb.njit(cache=True, nogil=True)
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
    q_lo,
    q_hi,
):
    """k nearest points of ``tdata`` to queries ``q_lo..q_hi-1``, skipping tree position
    ``self_pos[q]``.

    When ``start_leaf[q] >= 0`` that leaf is scanned first (the query's own leaf), which
    gives a tight bound before the depth-first search from the root.  Results for query
    ``q`` go to row ``out_row[q]``; neighbour indices are mapped through ``perm``.
    """
    dim = tdata.shape[1]
    hd = np.empty(k)
    hi_ = np.empty(k, np.int64)
    stack = np.empty(_STACK, np.int64)
    sdist = np.empty(_STACK)
    for qi in range(q_lo, q_hi):
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
@nb.njit(cache=True, nogil=True)
def _count(tdata, lo_a, hi_a, child, bmin, bmax, queries, radii, out, q_lo, q_hi):
    """Number of points of ``tdata`` with max-norm distance <= radii[q] from queries
    ``q_lo..q_hi-1``.

    Boundary leaves are scanned without branches (``cnt += all |p_c - q_c| <= r``): about
    half their points are inside, so a per-point branch is mispredicted half the time.
    """
    dim = tdata.shape[1]
    stack = np.empty(_STACK, np.int64)
    for qi in range(q_lo, q_hi):
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


@nb.njit(cache=True, nogil=True)
def _count_sorted(s: np.ndarray, radii_sorted: np.ndarray, out: np.ndarray, p_lo, p_hi) -> None:
    """For sorted positions p in ``p_lo..p_hi-1``: #{j != p : |s_j - s_p| <= radii_sorted[p]}
    (exact)."""
    n = s.shape[0]
    for p in range(p_lo, p_hi):
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
