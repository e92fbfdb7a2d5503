"""Exact max-norm self range counts on a rank grid, for point sets of 2 to 4 columns.

A kd-tree range count spends most of its time walking the nodes that straddle the query
cube's surface.  For few columns a grid does the same job with regular, branch-light work,
and a prefix-count table counts the cube's interior without looking at its points:

* each column ``k`` is cut into ``C_k`` *slabs* of equal rank width (slab ``s`` holds the
  points of sorted positions ``s w_k .. (s + 1) w_k - 1``: quantile slabs, none empty);
  a point's *cell* is the tuple of its slabs;
* for a query (point ``q``, radius ``r``) each column's slabs split into those entirely
  inside ``[q - r, q + r]`` (``I_k``), the at most two others touching it (``B_k``) and
  the rest.  The cells of ``T = (I_0 ∪ B_0) × ... × (I_{d-1} ∪ B_{d-1})`` are cut into
  disjoint pieces: the *interior* ``I_0 × ... × I_{d-1}``, counted with ``2^d`` lookups
  in a summed-area table ``sat`` of the cell counts, and for ``j = 0 .. d - 1`` the
  *shell piece* ``I_0 × .. × I_{j-1} × B_j × T_{j+1} × .. × T_{d-1}``, whose points are
  scanned.  Only the shell (one slab thick) is scanned: about ``2 d M / S`` points for
  a cube holding ``M`` points and spanning ``S`` slabs per column;
* points are stored twice, sorted by cell in two row-major orders.  Layout A (columns in
  order, all coordinates) holds the pieces ``j < d - 1`` as runs of cells along the last
  column; layout B (column ``d - 1`` slowest, then ``0 .. d - 2``; only the last column's
  coordinates) holds piece ``d - 1`` as runs along column ``d - 2``, where only the last
  column needs checking.  ``start_a``/``start_b`` are the cells' first positions.

Exactness: "inside" and "touching" are decided from each slab's actual smallest and
largest coordinate with the same predicate ``|p - q| <= r`` that the scans use.  In
floating point ``fl(p - q)`` is monotone in ``p``, so the coordinates that pass form an
interval of sorted positions; a slab is inside iff both its end values pass, and touches
iff it meets that interval.  No rounded cell geometry is used, and ties may straddle slab
boundaries (a slab is a rank range).

The slab counts balance the two costs of a query: runs visited (about ``2 d S^(d-2)``,
each a few lookups and a short loop) and shell points scanned (``2 d M / S``).  With
``RUN_COST`` points per run, ``S = (M / ((d - 2) RUN_COST))^(1/(d-1))`` for 3 and 4
columns; the last column gets ``LAST_FACTOR`` times more slabs (thinner end cells in the
runs of layout A and a thinner piece in layout B, no more runs).  For 2 columns the runs
per query do not depend on ``S`` (four), so the slabs are as fine as the memory cap allows.
``M`` and each column's cube width (in points) are medians over an evenly spaced sample of
the queries.  Memory: at most ``MAX_CELLS_PER_POINT`` cells per point (two position tables
and the summed-area table, int32 below 2^31 points) besides the two layouts.

The scans index the columns with unsigned positions: numba wraps a negative signed index
around, and that check turned the vectorised column loads into one scalar load per point
(3-4x more time per point).  A run's points are tested only on the columns that can
fail there: the piece's boundary column, the later columns whose slab in that row is a
boundary slab, and the last column (columns before the boundary one, and inside slabs,
pass for every point of the run).

Measured (``benchmarks/dev/knn_stages.py``, KSG-1 radii, min of 3 interleaved runs,
benchmarks/RESULTS.md "Rank-space grid counts" and "Grid scans with unsigned
positions"): with these scans ``RUN_COST`` = 200 points per run (130-300 are within noise
for 3 columns, 100 is 5% faster for 4), so at N = 10^6 the cube spans about 3 slabs per
column and the shell scanned holds more points than the cube (3 columns: ~15 runs and
~2,600 points per query, ~1.4 us).  CPU time of the marginal count at N = 10^6 against
the grid with signed scans and ``RUN_COST`` = 40: 0.51x for 3 columns, 0.44x for 4 and
0.74x for 2 (0.5-0.7x at 10^4-10^5; 2 columns at 10^4 unchanged).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from infometer.core.jit import nb

#: Cost of visiting one run of cells, in points scanned (sets the slab counts, see above).
RUN_COST = 200.0
#: The last column is cut this many times finer than the others (thinner end cells in the
#: runs of layout A and a thinner shell piece in layout B, no more runs).
LAST_FACTOR = 4.0
#: The grid has at most this many cells per point (memory stays O(n)).
MAX_CELLS_PER_POINT = 1
#: Up to this many points, positions and counts (all <= n) are stored as int32.
INT32_MAX_POINTS = 2**31 - 1
#: Queries sampled to choose the number of slabs.
_SAMPLE = 1000


@dataclass(frozen=True)
class Grid:
    """Points sorted by grid cell (two layouts), with what the count kernel needs."""

    order: np.ndarray  # layout-A position -> original row
    data: np.ndarray  # (d, n) coordinates in layout-A order, one contiguous row per column
    slab: np.ndarray  # (n, d) slab index of each point per column, layout-A order
    n_slabs: np.ndarray  # (d,) slabs per column
    lo: np.ndarray  # (d, max C) smallest coordinate in each slab
    hi: np.ndarray  # (d, max C) largest coordinate in each slab
    start_a: np.ndarray  # (G + 1,) first layout-A position of each cell, then n
    radix_a: np.ndarray  # (d,) layout-A strides of the cell index (row-major, columns 0..d-1)
    start_b: np.ndarray  # (G + 1,) the same for layout B
    radix_b: np.ndarray  # (d,) layout-B strides (column d-1 slowest, then 0..d-2)
    data_b: np.ndarray  # (n,) last column's coordinates in layout-B order
    sat: np.ndarray  # prod(C + 1) counts of points with slab < a per column, flattened
    sat_radix: np.ndarray  # (d,) strides of ``sat``

    def args(self) -> tuple:
        """The arrays :func:`count` takes before ``radii``."""
        return (
            self.data,
            self.slab,
            self.n_slabs,
            self.lo,
            self.hi,
            self.start_a,
            self.radix_a,
            self.start_b,
            self.radix_b,
            self.data_b,
            self.sat,
            self.sat_radix,
        )


def _n_slabs(points: np.ndarray, cols: list[np.ndarray], radii: np.ndarray) -> list[int]:
    """Slabs per column from the median cube width (in points) of sampled queries."""
    n, d = points.shape
    sample = np.unique(np.linspace(0, n - 1, min(n, _SAMPLE)).astype(np.int64))
    r = np.maximum(radii[sample], 0.0)
    mass = np.empty(d)
    for k in range(d):
        s, q = cols[k], points[sample, k]
        width = np.searchsorted(s, q + r, "right") - np.searchsorted(s, q - r, "left")
        mass[k] = max(float(np.median(width)), 1.0) / n  # fraction of the points
    m = n * float(np.prod(mass))  # points in a typical cube (independent columns)
    if d == 2:
        span = np.inf  # runs per query do not grow with the span: as fine as memory allows
    else:
        span = max(m / ((d - 2) * RUN_COST), 1.0) ** (1.0 / (d - 1))
    # prod(span * factor_k / mass_k) <= cap
    cap = MAX_CELLS_PER_POINT * n * float(np.prod(mass)) / (LAST_FACTOR if d > 2 else 1.0)
    span = min(span, cap ** (1.0 / d))
    factor = [1.0] * (d - 1) + [LAST_FACTOR if d > 2 else 1.0]
    return [int(np.clip(round(span * f / w), 1, n)) for f, w in zip(factor, mass, strict=True)]


@nb.njit(inline="always")
def _sort_cells(cell, n_cells, order, start, fill):
    """Counting sort by cell index: ``order`` (position -> row) and ``start`` (the
    ``n_cells + 1`` first positions; zero on entry).  ``fill`` is scratch (``n_cells``)."""
    n = cell.shape[0]
    for i in range(n):
        start[cell[i] + 1] += 1
    for g in range(n_cells):
        start[g + 1] += start[g]
        fill[g] = start[g]
    for i in range(n):
        order[fill[cell[i]]] = i
        fill[cell[i]] += 1


@nb.njit(cache=True, nogil=True)
def _lay_out(points, ranks, width, radix_a, radix_b, out):
    """Fill the grid's arrays: slabs of equal rank ``width`` per column (``ranks[k]`` =
    argsort of column k) and the layouts A and B (counting sorts by cell).
    ``out`` = (order, data, slab, start_a, start_b, data_b)."""
    order, data, slab, start_a, start_b, data_b = out
    n, d = points.shape
    own = np.empty((n, d), slab.dtype)
    for k in range(d):
        for j in range(n):
            own[ranks[k, j], k] = j // width[k]
    cell = np.zeros(n, np.int64)
    n_cells = start_a.shape[0] - 1
    fill = np.empty(n_cells, np.int64)
    for i in range(n):
        for k in range(d):
            cell[i] += own[i, k] * radix_a[k]
    _sort_cells(cell, n_cells, order, start_a, fill)
    for t in range(n):
        src = order[t]
        for k in range(d):
            data[k, t] = points[src, k]
            slab[t, k] = own[src, k]
    cell[:] = 0
    for i in range(n):
        for k in range(d):
            cell[i] += own[i, k] * radix_b[k]
    order_b = np.empty(n, np.int64)
    _sort_cells(cell, n_cells, order_b, start_b, fill)
    for t in range(n):
        data_b[t] = points[order_b[t], d - 1]


def _strides(sizes: np.ndarray, order: list[int]) -> np.ndarray:
    """Row-major strides of a cell index over ``sizes``, ``order[0]`` slowest."""
    radix = np.zeros(len(sizes), np.int64)
    step = 1
    for k in reversed(order):
        radix[k] = step
        step *= int(sizes[k])
    return radix


def build(points: np.ndarray, ranks: list[np.ndarray], cols: list[np.ndarray], radii) -> Grid:
    """Lay ``points`` (n, d) out on a grid sized for ``radii``.

    ``ranks[k]`` is ``argsort(points[:, k])`` and ``cols[k]`` the sorted column (computed
    once, before the radii are known).
    """
    n, d = points.shape
    itype = np.int32 if n <= INT32_MAX_POINTS else np.int64  # positions and counts are <= n
    width = np.empty(d, np.int64)
    sizes = np.empty(d, np.int64)
    for k, c in enumerate(_n_slabs(points, cols, radii)):
        width[k] = -(-n // c)  # slab width in sorted positions; the last may be narrower
        sizes[k] = -(-n // width[k])
    lo = np.zeros((d, int(sizes.max())))
    hi = np.zeros_like(lo)
    for k in range(d):
        first = np.arange(sizes[k]) * width[k]
        lo[k, : sizes[k]] = cols[k][first]
        hi[k, : sizes[k]] = cols[k][np.minimum(first + width[k], n) - 1]
    n_cells = int(np.prod(sizes))
    radix_a = _strides(sizes, list(range(d)))  # layout A: columns 0..d-1
    radix_b = _strides(sizes, [d - 1, *range(d - 1)])  # layout B: d-1, then 0..d-2
    out = (
        np.empty(n, np.int64),  # order
        np.empty((d, n)),  # data, column-major: the scans read contiguous columns
        np.empty((n, d), itype),  # slab
        np.zeros(n_cells + 1, itype),  # start_a (int32 halves its cache footprint)
        np.zeros(n_cells + 1, itype),  # start_b
        np.empty(n),  # data_b
    )
    _lay_out(points, np.asarray(ranks), width, radix_a, radix_b, out)
    order, data, slab, start_a, start_b, data_b = out
    # summed-area table over the cells: sat[a_0, .., a_{d-1}] = #points with slab_k < a_k
    sat = np.zeros(tuple(int(c) + 1 for c in sizes), itype)
    sat[(slice(1, None),) * d] = np.diff(start_a).reshape(tuple(sizes))
    for k in range(d):
        np.cumsum(sat, axis=k, out=sat)
    return Grid(
        order=order,
        data=data,
        slab=slab,
        n_slabs=sizes,
        lo=lo,
        hi=hi,
        start_a=start_a,
        radix_a=radix_a,
        start_b=start_b,
        radix_b=radix_b,
        data_b=data_b,
        sat=sat.ravel(),
        sat_radix=np.asarray(sat.strides, np.int64) // sat.itemsize,
    )


@nb.njit(cache=True, nogil=True)
def count(
    data,
    slab,
    n_slabs,
    lo,
    hi,
    start_a,
    radix_a,
    start_b,
    radix_b,
    data_b,
    sat,
    sat_radix,
    radii,
    out,
    q_lo,
    q_hi,
):
    """``out[i]`` = number of other points within max-norm ``radii[i]`` of point i (layout-A
    order), for ``i`` in ``q_lo..q_hi-1``.  A negative or NaN radius counts nothing.  The grid
    has 2 to 4 columns; ``data`` is column-major ``(d, n)``, so the branch-free scans read
    contiguous columns (and vectorise).
    """
    dim = data.shape[0]
    last = dim - 1
    t_lo = np.empty(dim, np.int64)  # touching slabs t_lo..t_hi
    t_hi = np.empty(dim, np.int64)
    i_lo = np.empty(dim, np.int64)  # inside slabs i_lo..i_hi (may be empty)
    i_hi = np.empty(dim, np.int64)
    a = np.empty(dim, np.int64)  # the current piece's slab ranges a..b per column
    b = np.empty(dim, np.int64)
    row = np.empty(dim, np.int64)
    need = np.zeros(4, np.int64)  # the columns a run's points are tested on
    qv = np.zeros(4)  # and the query's coordinates there
    for i in range(q_lo, q_hi):
        r = radii[i]
        if not r >= 0:  # negative or NaN
            out[i] = 0
            continue
        n_inside = 0  # columns whose inside range is not empty
        for k in range(dim):
            q = data[k, i]
            s = slab[i, k]  # q's own slab touches (|q - q| = 0 <= r)
            while s + 1 < n_slabs[k] and (lo[k, s + 1] <= q or abs(lo[k, s + 1] - q) <= r):
                s += 1
            t_hi[k] = s
            s = slab[i, k]
            while s > 0 and (hi[k, s - 1] >= q or abs(hi[k, s - 1] - q) <= r):
                s -= 1
            t_lo[k] = s
            s = t_lo[k]
            while s <= t_hi[k] and not (abs(lo[k, s] - q) <= r and abs(hi[k, s] - q) <= r):
                s += 1
            i_lo[k] = s
            s = t_hi[k]
            while s >= i_lo[k] and not (abs(lo[k, s] - q) <= r and abs(hi[k, s] - q) <= r):
                s -= 1
            i_hi[k] = s
            if i_lo[k] <= i_hi[k]:
                n_inside += 1
        ql = data[last, i]
        cnt = 0
        if n_inside == dim:  # the interior: inclusion-exclusion over the 2^d corners
            for corner in range(1 << dim):
                idx = 0
                neg = 0
                for k in range(dim):
                    if (corner >> k) & 1:
                        idx += (i_hi[k] + 1) * sat_radix[k]
                    else:
                        idx += i_lo[k] * sat_radix[k]
                        neg ^= 1
                cnt += -sat[idx] if neg else sat[idx]
        # shell pieces j < last, layout A: columns < j inside, j boundary, > j touching
        for j in range(last):
            if j > 0 and i_lo[j - 1] > i_hi[j - 1]:
                break  # an empty inside range: this piece and all later ones are empty
            for k in range(j):
                a[k], b[k] = i_lo[k], i_hi[k]
            for k in range(j + 1, last):
                a[k], b[k] = t_lo[k], t_hi[k]
            for side in range(2):  # the boundary slabs of column j: below, then above I_j
                if i_lo[j] > i_hi[j]:  # nothing inside: all touching slabs are boundary
                    if side == 1:
                        break
                    a[j], b[j] = t_lo[j], t_hi[j]
                elif side == 0:
                    a[j], b[j] = t_lo[j], i_lo[j] - 1
                else:
                    a[j], b[j] = i_hi[j] + 1, t_hi[j]
                if a[j] > b[j]:
                    continue
                for k in range(last):
                    row[k] = a[k]
                while True:
                    base = 0
                    for k in range(last):
                        base += row[k] * radix_a[k]
                    t0, t1 = start_a[base + t_lo[last]], start_a[base + t_hi[last] + 1]
                    # the columns to test: j, the later ones whose slab in this row is a
                    # boundary slab, and the last (columns < j and inside slabs pass)
                    m = 0
                    for k in range(j, last):
                        if k == j or row[k] < i_lo[k] or row[k] > i_hi[k]:
                            need[m] = k
                            qv[m] = data[k, i]
                            m += 1
                    need[m] = last
                    qv[m] = ql
                    ka, qa = need[0], qv[0]
                    kb, qb = need[1], qv[1]
                    u0, u1 = np.uint64(t0), np.uint64(t1)  # unsigned: no index wrap-around
                    if m == 1:  # m + 1 columns, written out per count: faster than a loop
                        for t in range(u0, u1):
                            cnt += (abs(data[ka, t] - qa) <= r) & (abs(data[kb, t] - qb) <= r)
                    elif m == 2:
                        kc, qc = need[2], qv[2]
                        for t in range(u0, u1):
                            cnt += (
                                (abs(data[ka, t] - qa) <= r)
                                & (abs(data[kb, t] - qb) <= r)
                                & (abs(data[kc, t] - qc) <= r)
                            )
                    else:
                        kc, qc = need[2], qv[2]
                        kd, qd = need[3], qv[3]
                        for t in range(u0, u1):
                            cnt += (
                                (abs(data[ka, t] - qa) <= r)
                                & (abs(data[kb, t] - qb) <= r)
                                & (abs(data[kc, t] - qc) <= r)
                                & (abs(data[kd, t] - qd) <= r)
                            )
                    k = last - 1  # next row: odometer over columns 0..last-1
                    while k >= 0:
                        row[k] += 1
                        if row[k] <= b[k]:
                            break
                        row[k] = a[k]
                        k -= 1
                    if k < 0:
                        break
        # shell piece last, layout B: columns < last inside, last boundary; runs along
        # column last-1 over its inside slabs, where only the last column needs checking
        ok = True
        for k in range(last):
            ok &= i_lo[k] <= i_hi[k]
        if ok:
            for side in range(2):
                if i_lo[last] > i_hi[last]:
                    if side == 1:
                        break
                    sa, sb = t_lo[last], t_hi[last]
                elif side == 0:
                    sa, sb = t_lo[last], i_lo[last] - 1
                else:
                    sa, sb = i_hi[last] + 1, t_hi[last]
                for s in range(sa, sb + 1):
                    for k in range(last - 1):
                        row[k] = i_lo[k]
                    while True:
                        base = s * radix_b[last]
                        for k in range(last - 1):
                            base += row[k] * radix_b[k]
                        t0 = start_b[base + i_lo[last - 1]]
                        t1 = start_b[base + i_hi[last - 1] + 1]
                        for t in range(np.uint64(t0), np.uint64(t1)):
                            cnt += abs(data_b[t] - ql) <= r
                        k = last - 2
                        while k >= 0:
                            row[k] += 1
                            if row[k] <= i_hi[k]:
                                break
                            row[k] = i_lo[k]
                            k -= 1
                        if k < 0:
                            break
        out[i] = cnt - 1  # the point itself
