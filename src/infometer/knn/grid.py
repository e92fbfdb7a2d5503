"""Exact max-norm self range counts on a quantile grid, for point sets of 2 to 4 columns.

A kd-tree range count spends most of its time walking the nodes that straddle the query
cube's surface.  For few columns a grid does the same job with regular, branch-light work:

* each column is cut into ``C_k`` *slabs* at its empirical quantiles (equal values always
  share a slab), and each point's cell is the tuple of its slabs;
* points are stored sorted by cell in row-major order, so a *row* (all cells that share
  their first ``d - 1`` slabs) is one contiguous run, with a prefix count ``start``;
* for a query (point ``q``, radius ``r``) each column's slabs split into those entirely
  inside ``[q - r, q + r]``, those touching it and the rest.  In a row whose first
  ``d - 1`` slabs are all inside, the inside cells are counted with two lookups in
  ``start`` and only the (at most two) touching end cells are scanned; other touching
  rows are scanned point by point.

Exactness: "inside" is decided from each slab's actual smallest and largest coordinate
with the same predicate ``|p - q| <= r`` that the scan uses.  In floating point
``fl(p - q)`` is monotone in ``p``, so the set of coordinates that pass is an interval and
a slab passes entirely iff both its end values pass; no rounded cell geometry is used.

``C_k`` is chosen so that the median query cube spans about ``SPAN`` slabs per column,
``SPAN_LAST`` along the last one (measured on an evenly spaced sample of the queries),
with at most ``MAX_CELLS_PER_POINT`` cells per point in all.  Quantile slabs keep heavy
tails from blowing up the grid.  ``data`` is stored column-major, so the branch-free
scans read contiguous columns.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..jit import nb

#: Target number of slabs a typical query cube spans per column (all but the last) ...
SPAN = 4.0
#: ... and along the last column.  Finer slabs there shrink the end cells that rows inside
#: the cube scan, and add no rows (a row spans the last column); coarser slabs on the other
#: columns keep the number of rows per query low.  At N = 10^6 (3 columns, KSG-1 radii)
#: 4 / 16 scans 1,900 points and 25 rows per query against 3,400 and 16 for 3 / 3
#: (grid count CPU 3.7 s against 5.0-5.1 s); at N = 10^5 they are even.
SPAN_LAST = 16.0
#: The grid has at most this many cells per point (memory stays O(n)).
MAX_CELLS_PER_POINT = 4
#: Queries sampled to choose the number of slabs.
_SAMPLE = 1000


@dataclass(frozen=True)
class Grid:
    """Points sorted by grid cell, with what the count kernel needs."""

    order: np.ndarray  # grid position -> original row
    data: np.ndarray  # (d, n) coordinates in grid order, one contiguous row per column
    slab: np.ndarray  # (n, d) slab index of each point per column, grid order
    start: np.ndarray  # (G + 1,) first grid position of each cell (row-major), then n
    n_slabs: np.ndarray  # (d,) slabs per column
    radix: np.ndarray  # (d,) row-major strides of the cell index
    lo: np.ndarray  # (d, max C) smallest coordinate in each slab
    hi: np.ndarray  # (d, max C) largest coordinate in each slab


def _n_slabs(points: np.ndarray, cols: list[np.ndarray], radii: np.ndarray) -> list[int]:
    n, d = points.shape
    sample = np.unique(np.linspace(0, n - 1, min(n, _SAMPLE)).astype(np.int64))
    r = np.maximum(radii[sample], 0.0)
    out = []
    for k in range(d):
        s, q = cols[k], points[sample, k]
        mass = (np.searchsorted(s, q + r, "right") - np.searchsorted(s, q - r, "left")) / n
        span = SPAN_LAST if k == d - 1 else SPAN
        out.append(int(np.clip(round(span / max(float(np.median(mass)), 1.0 / n)), 1, n)))
    total = float(np.prod(np.asarray(out, dtype=np.float64)))
    cap = MAX_CELLS_PER_POINT * n
    if total > cap:
        shrink = (cap / total) ** (1.0 / d)
        out = [max(1, int(c * shrink)) for c in out]
    return out


def _slabs(s: np.ndarray, c: int) -> tuple[np.ndarray, ...]:
    """Slab of each *sorted* position and each slab's (lo, hi) for sorted values ``s``.

    Slab j holds the values in ``[cuts[j-1], cuts[j])``, so equal values share a slab;
    an empty slab gets ``lo = hi =`` the previous slab's ``hi``, which keeps ``lo`` and
    ``hi`` non-decreasing (it holds no point, so how it is classified does not matter).
    """
    n = s.shape[0]
    cuts = s[(np.arange(1, c) * n) // c]
    pos = np.concatenate([[0], np.searchsorted(s, cuts, "left"), [n]])
    size = np.diff(pos)
    full = size > 0
    lo = s[np.minimum(pos[:-1], n - 1)]
    hi = s[np.maximum(pos[1:] - 1, 0)]
    last = np.maximum.accumulate(np.where(full, np.arange(c), -1))
    fill = np.where(last >= 0, hi[np.maximum(last, 0)], s[0])
    return np.repeat(np.arange(c), size), np.where(full, lo, fill), np.where(full, hi, fill)


@nb.njit(cache=True, nogil=True)
def _by_cell(points, slab, radix, n_cells, order, data, slab_out, start):
    """Counting sort of the points by row-major cell index, into the last four arrays
    (``data`` column-major, ``(d, n)``)."""
    n, d = points.shape
    cell = np.zeros(n, np.int64)
    for i in range(n):
        for k in range(d):
            cell[i] += slab[i, k] * radix[k]
    for i in range(n):
        start[cell[i] + 1] += 1
    for g in range(n_cells):
        start[g + 1] += start[g]
    fill = start[:-1].copy()
    for i in range(n):
        order[fill[cell[i]]] = i
        fill[cell[i]] += 1
    for t in range(n):
        src = order[t]
        for k in range(d):
            data[k, t] = points[src, k]
            slab_out[t, k] = slab[src, k]


def build(points: np.ndarray, ranks: list[np.ndarray], radii: np.ndarray) -> Grid:
    """Lay ``points`` (n, d) out on a grid sized for ``radii``.

    ``ranks[k]`` is ``argsort(points[:, k])`` (computed once, before the radii are known).
    """
    n, d = points.shape
    cols = [points[rk, k] for k, rk in enumerate(ranks)]
    n_slabs = _n_slabs(points, cols, radii)
    width = max(n_slabs)
    slab = np.empty((n, d), np.int32 if n < 2**31 else np.int64)  # slab ids are < n
    lo = np.zeros((d, width))
    hi = np.zeros((d, width))
    for k, c in enumerate(n_slabs):
        sorted_slab, lo[k, :c], hi[k, :c] = _slabs(cols[k], c)
        slab[ranks[k], k] = sorted_slab
    radix = np.ones(d, np.int64)
    for k in range(d - 2, -1, -1):
        radix[k] = radix[k + 1] * n_slabs[k + 1]
    n_cells = int(radix[0]) * n_slabs[0]
    order = np.empty(n, np.int64)
    data = np.empty((d, n))  # column-major: the scans below run on contiguous columns
    slab_out = np.empty_like(slab)
    start = np.zeros(n_cells + 1, slab.dtype)  # positions < n: int32 halves its cache footprint
    _by_cell(points, slab, radix, n_cells, order, data, slab_out, start)
    slab = slab_out
    return Grid(order, data, slab, start, np.asarray(n_slabs, np.int64), radix, lo, hi)


@nb.njit(cache=True, nogil=True)
def count(data, slab, start, n_slabs, radix, lo, hi, radii, out, q_lo, q_hi):
    """``out[i]`` = number of other points within max-norm ``radii[i]`` of point i (grid
    order), for ``i`` in ``q_lo..q_hi-1``.  A negative radius counts nothing.  The grid
    has 2 to 4 columns; ``data`` is column-major ``(d, n)``, so the branch-free scans read
    contiguous columns (and vectorise).
    """
    dim = data.shape[0]
    c0, c1 = data[0], data[1]
    c2 = data[2] if dim > 2 else data[0]
    c3 = data[3] if dim > 3 else data[0]
    cl = data[dim - 1]
    last = dim - 1
    t_lo = np.empty(dim, np.int64)  # touching slabs t_lo..t_hi
    t_hi = np.empty(dim, np.int64)
    i_lo = np.empty(dim, np.int64)  # inside slabs i_lo..i_hi (may be empty)
    i_hi = np.empty(dim, np.int64)
    row = np.empty(dim, np.int64)
    for i in range(q_lo, q_hi):
        r = radii[i]
        if r < 0:
            out[i] = 0
            continue
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
        cnt = 0
        ql = cl[i]
        q0, q1 = c0[i], c1[i]
        q2 = c2[i] if dim > 2 else 0.0
        q3 = c3[i] if dim > 3 else 0.0
        for k in range(last):
            row[k] = t_lo[k]
        while True:
            base = 0
            inside = True
            for k in range(last):
                base += row[k] * radix[k]
                inside &= (row[k] >= i_lo[k]) & (row[k] <= i_hi[k])
            if inside and i_lo[last] <= i_hi[last]:
                a = start[base + i_lo[last]]
                b = start[base + i_hi[last] + 1]
                cnt += b - a
                for t in range(start[base + t_lo[last]], a):
                    cnt += abs(cl[t] - ql) <= r
                for t in range(b, start[base + t_hi[last] + 1]):
                    cnt += abs(cl[t] - ql) <= r
            else:  # written out per dimension (2 to 4): twice as fast as a loop over c
                t0, t1 = start[base + t_lo[last]], start[base + t_hi[last] + 1]
                if dim == 2:
                    for t in range(t0, t1):
                        cnt += (abs(c0[t] - q0) <= r) & (abs(c1[t] - q1) <= r)
                elif dim == 3:
                    for t in range(t0, t1):
                        cnt += (
                            (abs(c0[t] - q0) <= r) & (abs(c1[t] - q1) <= r) & (abs(c2[t] - q2) <= r)
                        )
                else:
                    for t in range(t0, t1):
                        cnt += (
                            (abs(c0[t] - q0) <= r)
                            & (abs(c1[t] - q1) <= r)
                            & (abs(c2[t] - q2) <= r)
                            & (abs(c3[t] - q3) <= r)
                        )
            k = last - 1  # next row: odometer over the first d - 1 columns
            while k >= 0:
                row[k] += 1
                if row[k] <= t_hi[k]:
                    break
                row[k] = t_lo[k]
                k -= 1
            if k < 0:
                break
        out[i] = cnt - 1  # the point itself
