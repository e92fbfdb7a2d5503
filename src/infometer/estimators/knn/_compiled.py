"""The compiled kernels of the neighbour engine (numba; see :mod:`infometer.estimators.knn.engine`).

Every kernel is compiled once, for any dimension (the dimension is read from the data),
releases the GIL, and works on a range ``lo..hi`` of its queries so that
:func:`infometer.estimators.knn.engine._run` can split the queries over threads.  Compiled code is
cached on disk by numba (``cache=True``); this module is imported only when the engine
uses the compiled backend, so ``import infometer`` and small problems never load numba.
"""

from __future__ import annotations

import numpy as np

from infometer.core.jit import nb

from ._intrinsics import BLOCK as _BLOCK
from ._intrinsics import block_dist, ctz

_STACK = 256  # DFS stack; the tree depth is ~log2(n / LEAFSIZE) + 1, far below this


# ------------------------------------------------------------------------ build
@nb.njit(inline="always")
def _swap(work: np.ndarray, idx: np.ndarray, a: int, b: int) -> None:
    idx[a], idx[b] = idx[b], idx[a]
    for c in range(work.shape[1]):
        work[a, c], work[b, c] = work[b, c], work[a, c]


@nb.njit(cache=True, nogil=True)
def _select(work: np.ndarray, idx: np.ndarray, dim: int, lo: int, hi: int, kth: int) -> None:
    """Reorder rows ``lo:hi`` so that row ``kth`` holds the kth key along ``dim`` and no row
    before it has a larger key, none after it a smaller one (quickselect, Hoare partition
    around a median-of-three pivot: about a quarter of the rows swapped per pass).

    ``work`` (the points) and ``idx`` (their original rows) are permuted together, so the
    points of every node stay contiguous in memory.
    """
    while hi - lo > 2:
        a = work[lo, dim]
        b = work[(lo + hi) // 2, dim]
        c = work[hi - 1, dim]
        pivot = max(min(a, b), min(max(a, b), c))
        i = lo
        j = hi - 1
        while True:  # the pivot value is in the range, so both scans stop inside it
            while work[i, dim] < pivot:
                i += 1
            while work[j, dim] > pivot:
                j -= 1
            if i >= j:
                break
            _swap(work, idx, i, j)
            i += 1
            j -= 1
        # rows lo..j have keys <= pivot, rows j+1..hi-1 keys >= pivot (i >= j)
        if i == j:  # row i == j holds the pivot value itself: it is in place
            if kth == i:
                return
            if kth < i:
                hi = i
            else:
                lo = i + 1
        elif kth <= j:
            hi = j + 1
        else:
            lo = j + 1
    if hi - lo == 2 and work[lo, dim] > work[lo + 1, dim]:
        _swap(work, idx, lo, lo + 1)


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
    mn = np.empty(d)
    mx = np.empty(d)
    lo_a[0], hi_a[0] = 0, n
    n_nodes = 1
    sp = 1
    stack[0] = 0
    while sp > 0:
        sp -= 1
        nd = stack[sp]
        lo, hi = lo_a[nd], hi_a[nd]
        child[nd] = -1
        for c in range(d):  # the box: running min and max in local arrays, stored once
            mn[c] = np.inf
            mx[c] = -np.inf
        for t in range(lo, hi):
            for c in range(d):
                v = work[t, c]
                a = mn[c]
                b = mx[c]
                mn[c] = v if v < a else a
                mx[c] = v if v > b else b
        for c in range(d):
            bmin[nd, c] = mn[c]
            bmax[nd, c] = mx[c]
        dim, ext = np.int64(0), -1.0  # not a literal 0: _select would compile twice
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


# ---------------------------------------------------------------- kNN query
# The query and count kernels are written out in one piece (no helper functions, the query
# point copied to a local array): numba copies array arguments of inlined helpers and array
# views, with reference counting in the innermost loops, which made the kNN query 2.4x
# slower than this form.

#: Points per vectorised step of a leaf scan: the kNN kernel reads each leaf's points in
#: blocks of this many, column-major within a block (see ``engine._search_layout``), one
#: LLVM vector per coordinate (:func:`.intrinsics.block_dist`).
BLOCK = _BLOCK


@nb.njit(cache=True, nogil=True)
def _knn(
    blocks,
    lblk,
    lo_a,
    hi_a,
    child,
    parent,
    cbox,
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
    """k nearest points of the tree to queries ``q_lo..q_hi-1``, skipping tree position
    ``self_pos[q]``; distances are squared when Euclidean until the end.

    ``blocks`` (number of blocks, d, BLOCK) holds the points of each leaf in blocks of
    ``BLOCK`` points, column-major within a block (lanes past a leaf's end are padding),
    the first block of leaf ``nd`` being ``lblk[nd]``; ``cbox[(child[p] - 1) >> 1]``
    (d, 4) holds the boxes of the two children of node p, per coordinate ``(min left,
    min right, max left, max right)``; ``parent`` is each node's parent.

    Search: a query that is a point of the tree (``start_leaf[q] >= 0``) starts in its own
    leaf and climbs: at each ancestor the sibling subtree is searched if its box is within
    the current k-th distance.  Other queries start at the root.  Subtrees are searched
    depth first, the nearer child at once and the farther one stacked only if its box is
    within reach (and skipped when popped if the bound has shrunk past it).  A leaf is
    scanned ``BLOCK`` points at a time, one vector operation per coordinate
    (:func:`.intrinsics.block_dist`), and only the lanes within reach are visited.  Ties
    at the k-th distance keep the lowest row (original index), so the neighbour lists do
    not depend on the search order, the tree's node numbering or the thread count.
    Results for query ``q`` go to row ``out_row[q]``; neighbour indices are rows of the
    original data (``perm`` maps tree positions to rows).
    """
    dim = blocks.shape[1]
    hd = np.empty(k)
    hp = np.empty(k, np.int64)
    stack = np.empty(_STACK, np.int64)
    sdist = np.empty(_STACK)
    q = np.empty(dim)
    tmp = np.empty(BLOCK)
    one = np.uint64(1)
    big = np.int64(1) << 62
    for qi in range(q_lo, q_hi):
        for c in range(dim):
            q[c] = queries[qi, c]
        me = self_pos[qi]
        for a in range(k):
            hd[a] = np.inf
            hp[a] = big
        worst = np.inf
        wrow = big
        nd = start_leaf[qi]
        if nd < 0:
            nd = 0  # not a point of the tree: a depth-first search from the root
        cur = nd  # the subtree of cur is searched before the climb goes above it
        sp = 0
        while True:
            # descend from nd: nearer child next, the farther one stacked if within reach
            c0 = child[nd]
            while c0 >= 0:
                pb = (c0 - 1) >> 1
                d0 = 0.0
                d1 = 0.0
                for c in range(dim):  # both children's boxes from one record, pairwise
                    qc = q[c]
                    a0 = cbox[pb, c, 0] - qc
                    a1 = cbox[pb, c, 1] - qc
                    e0 = qc - cbox[pb, c, 2]
                    e1 = qc - cbox[pb, c, 3]
                    t0 = a0 if a0 > e0 else e0
                    t1 = a1 if a1 > e1 else e1
                    if euclid:
                        t0 = t0 if t0 > 0.0 else 0.0
                        t1 = t1 if t1 > 0.0 else 0.0
                        d0 += t0 * t0
                        d1 += t1 * t1
                    else:  # d0, d1 start at 0, so negative t0, t1 count as 0
                        d0 = t0 if t0 > d0 else d0
                        d1 = t1 if t1 > d1 else d1
                second = d1 < d0
                dn = d1 if second else d0
                df = d0 if second else d1
                stack[sp] = c0 + 1 - second
                sdist[sp] = df
                sp += df <= worst  # no branch: the slot is overwritten if not kept
                if dn > worst:
                    nd = -1
                    break
                nd = c0 + second
                c0 = child[nd]
            if nd >= 0:  # a leaf within reach: scan it, BLOCK points per step
                b = lblk[nd]
                for b0 in range(lo_a[nd], hi_a[nd], BLOCK):
                    # one vector op per coordinate; the lanes within reach (usually none)
                    # as a mask, padding lanes past the leaf's end cleared
                    near = block_dist(blocks, b, q, euclid, worst, tmp)
                    near &= (np.uint64(1) << np.uint64(min(BLOCK, hi_a[nd] - b0))) - one
                    b += 1
                    while near:
                        j = np.int64(ctz(near))
                        near &= near - one
                        dd = tmp[j]
                        if dd > worst:  # the bound has shrunk since the mask was made
                            continue
                        t = b0 + j
                        if t == me:
                            continue
                        row = perm[t]
                        if dd == worst and row > wrow:
                            continue  # a tie at the k-th distance: the lower row stays
                        a = k - 1
                        while a > 0 and (hd[a - 1] > dd or (hd[a - 1] == dd and hp[a - 1] > row)):
                            hd[a] = hd[a - 1]
                            hp[a] = hp[a - 1]
                            a -= 1
                        hd[a] = dd
                        hp[a] = row
                        worst = hd[k - 1]
                        wrow = hp[k - 1]
            # the next subtree: from the stack, else the sibling of the next ancestor
            nd = -1
            while sp > 0:
                sp -= 1
                if sdist[sp] <= worst:
                    nd = stack[sp]
                    break
            while nd < 0 and cur != 0:
                par = parent[cur]
                s = child[par]
                j = np.int64(s == cur)  # 1: the sibling is the right child
                s += j
                cur = par
                pb = (child[par] - 1) >> 1
                bd = 0.0
                for c in range(dim):
                    qc = q[c]
                    t0 = max(cbox[pb, c, j] - qc, qc - cbox[pb, c, 2 + j], 0.0)
                    if euclid:
                        bd += t0 * t0
                    else:
                        bd = max(bd, t0)
                if bd <= worst:
                    nd = s
            if nd < 0:
                break
        row = out_row[qi]
        for a in range(k):
            out_d[row, a] = np.sqrt(hd[a]) if euclid else hd[a]
            out_i[row, a] = hp[a]


# -------------------------------------------------------------- range count
@nb.njit(cache=True, nogil=True)
def _count(tdata, lo_a, hi_a, child, bmin, bmax, queries, radii, out, q_lo, q_hi):
    """Number of points of ``tdata`` with max-norm distance <= radii[q] from queries
    ``q_lo..q_hi-1``.

    Each node's box is classified against the query cube: disjoint (skipped), inside (its
    size is added) or straddling (searched).  Exact: ``q - lo`` and ``hi - q`` are the
    distances the scan would compute for points on the box faces.  Boundary leaves are
    scanned without branches (``cnt += all |p_c - q_c| <= r``): about half their points
    are inside, so a per-point branch is mispredicted half the time.
    """
    dim = tdata.shape[1]
    stack = np.empty(_STACK, np.int64)
    q = np.empty(dim)
    for qi in range(q_lo, q_hi):
        for c in range(dim):
            q[c] = queries[qi, c]
        r = radii[qi]
        cnt = 0
        stack[0] = 0  # the root, as if it were a straddling child
        sp = 1
        root = True
        while sp > 0:
            sp -= 1
            nd = stack[sp]
            c0 = child[nd]
            if root:  # classify the root like the children below
                root = False
                c0 = -2
            if c0 == -1:  # a straddling leaf: scan it
                for t in range(lo_a[nd], hi_a[nd]):
                    inside = True
                    c = 0
                    while c + 4 <= dim:  # four coordinates per step
                        inside &= (
                            (abs(tdata[t, c] - q[c]) <= r)
                            & (abs(tdata[t, c + 1] - q[c + 1]) <= r)
                            & (abs(tdata[t, c + 2] - q[c + 2]) <= r)
                            & (abs(tdata[t, c + 3] - q[c + 3]) <= r)
                        )
                        c += 4
                    while c < dim:
                        inside &= abs(tdata[t, c] - q[c]) <= r
                        c += 1
                    cnt += inside
                continue
            first = nd if c0 == -2 else c0
            last = nd if c0 == -2 else c0 + 1
            for ch_ in range(first, last + 1):
                mn = 0.0  # distance to the box, and to its farthest corner
                mx = 0.0
                for c in range(dim):
                    lo_d = q[c] - bmin[ch_, c]
                    hi_d = bmax[ch_, c] - q[c]
                    mn = max(mn, -lo_d, -hi_d)
                    mx = max(mx, lo_d, hi_d)
                if mn > r:
                    continue
                if mx <= r:
                    cnt += hi_a[ch_] - lo_a[ch_]
                else:
                    stack[sp] = ch_
                    sp += 1
        out[qi] = cnt


@nb.njit(inline="always")
def _bounds(s: np.ndarray, p: int, r: float) -> tuple:
    """First and one-past-last sorted positions ``j`` with ``|s_j - s_p| <= r`` (exact;
    ``(p, p)`` when ``r`` is negative or NaN).

    Exponential ("galloping") search from ``p`` then bisection, with the exact predicate:
    ``s_j - v`` rounds monotonically in ``s_j``, so the passing positions are one interval.
    """
    n = s.shape[0]
    if not r >= 0:  # negative or NaN
        return p, p
    v = s[p]
    # upwards: largest lo with s[lo] - v <= r
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
    top = lo + 1
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
    return hi, top


@nb.njit(cache=True, nogil=True)
def _count_sorted(s: np.ndarray, radii_sorted: np.ndarray, out: np.ndarray, p_lo, p_hi) -> None:
    """For sorted positions p in ``p_lo..p_hi-1``: #{j != p : |s_j - s_p| <= radii_sorted[p]}
    (exact; 0 for a negative radius)."""
    for p in range(p_lo, p_hi):
        a, b = _bounds(s, p, radii_sorted[p])
        out[p] = max(b - a - 1, 0)


@nb.njit(cache=True, nogil=True)
def _rank_bounds(s: np.ndarray, radii_sorted: np.ndarray, lo_out, hi_out, p_lo, p_hi) -> None:
    """For sorted positions p in ``p_lo..p_hi-1``: the sorted positions ``lo_out[p] <= j <
    hi_out[p]`` are exactly those with ``|s_j - s_p| <= radii_sorted[p]`` (empty, ``p..p``,
    for a negative radius).  One column of a rank-space range query: a point lies in the
    max-norm cube of radius r around point i iff, in every column, its sorted position
    lies in that column's interval."""
    for p in range(p_lo, p_hi):
        lo_out[p], hi_out[p] = _bounds(s, p, radii_sorted[p])
