"""Pure all-pairs kernels: KSG-1 between 1-D columns on a per-pair grid, Gaussian-copula blocks.

KSG-1 (Kraskov, Stögbauer & Grassberger 2004) for one pair of one-dimensional columns
``x, y`` is ``ψ(k) + ψ(N) − ⟨ψ(n_x + 1) + ψ(n_y + 1)⟩``: ``ε_i`` is the max-norm distance
from point i to its k-th nearest other point, ``n_x(i)`` the number of other points with
``|x_j − x_i| < ε_i`` (strict), likewise ``n_y``.  The values are exactly those of
:func:`infometer.estimators.knn.kernels.ksg` (same predicates on the same float64 differences); only
the search differs, and it reuses what depends on one column only:

* each column's sorted values, the rank of each row, and the row's *slab*: the column's
  sorted order cut into ``C`` runs of equal size (quantile slabs), with each slab's
  smallest and largest value (computed once per column, :func:`column_arrays`);
* per pair, the points are counting-sorted by cell (slab of x, slab of y): O(N + C²).
  The k nearest of a point are found in the 3 x 3 cells around its own cell, then by
  growing that box by the sides whose gap (distance from the point to the nearest value
  outside the box, from the slab bounds) is below the current k-th distance, until every
  gap is at least that distance: no point outside the box can be strictly closer, so the
  k-th distance is exact;
* ``n_x`` and ``n_y`` count the column's sorted values around the point's rank with the
  exact predicate ``|s_j − v| < ε``: a window of 64 on each side without branches
  (vectorised), then blocks of 8 and single steps beyond it; point by point in sorted
  order (the k-th distances are first stored by rank).

The k smallest distances live in eight registers (k ≤ ``MAX_K``), updated without branches.
Nulls: the same kernel on ``y`` permuted (``perms``), counting null values ≥ the observed.
"""

from __future__ import annotations

import numpy as np
from scipy.special import digamma

from infometer.core._deprecation import deprecated_alias
from infometer.core.jit import nb

__all__ = [
    "MAX_K",
    "n_slabs",
    "column_arrays",
    "ksg_block",
    "copula_scores",
    "copula_mutual_info",
    "copula_bias",
]

#: Largest k the register kernel handles; larger k goes through the kNN engine per pair.
MAX_K = 8
_INF = np.inf


def n_slabs(n: int) -> int:
    """Slabs per column: about 2 points per cell of an independent pair.

    With the 3 x 3 start of the search this was the fastest on Gaussian-like pairs
    (``benchmarks/peers/pairwise.py``; C = sqrt(N/4) with a one-cell start is ~15% slower there,
    ~30% faster on very heavy tails or |rho| > 0.99, where ``ranks=True`` also helps).
    """
    return max(1, int(np.sqrt(n / 2.0)))


def column_arrays(values: np.ndarray, c: int) -> dict[str, np.ndarray]:
    """Per-column arrays for :func:`ksg_block` from prepared values (p, n), computed once.

    Returns ``v`` (values), ``s`` (sorted values), ``r`` (rank of each row in ``s``),
    ``sl`` (slab of each row), ``lo`` / ``hi`` (smallest / largest value of each slab).
    """
    v = np.ascontiguousarray(values, dtype=np.float64)
    p, n = v.shape
    order = np.argsort(v, axis=1, kind="stable")
    s = np.take_along_axis(v, order, axis=1)
    r = np.empty((p, n), np.int32)
    np.put_along_axis(r, order, np.arange(n, dtype=np.int32)[None, :].repeat(p, 0), axis=1)
    sl = (r.astype(np.int64) * c // n).astype(np.int32)
    bounds = (np.arange(c + 1) * n + c - 1) // c  # slab t holds ranks bounds[t]..bounds[t+1]-1
    lo = np.ascontiguousarray(s[:, bounds[:-1]])
    hi = np.ascontiguousarray(s[:, bounds[1:] - 1])
    return {"v": v, "s": s, "r": r, "sl": sl, "lo": lo, "hi": hi}


@nb.njit(inline="always")
def _scan(g, start, c0, c1, me, xv, yv, h, k):
    """Push the points of cells ``c0..c1-1`` (one run in cell order) into the k-smallest list."""
    h0, h1, h2, h3, h4, h5, h6, h7 = h
    for u in range(start[c0], start[c1]):
        d = max(abs(g[u, 0] - xv), abs(g[u, 1] - yv))
        if u == me:
            d = _INF
        # sorted insertion without branches: every new slot from the old ones
        if k > 7:
            h7 = min(h7, max(h6, d))
        if k > 6:
            h6 = min(h6, max(h5, d))
        if k > 5:
            h5 = min(h5, max(h4, d))
        if k > 4:
            h4 = min(h4, max(h3, d))
        if k > 3:
            h3 = min(h3, max(h2, d))
        if k > 2:
            h2 = min(h2, max(h1, d))
        if k > 1:
            h1 = min(h1, max(h0, d))
        h0 = min(h0, d)
    return (h0, h1, h2, h3, h4, h5, h6, h7)


_W = 64  # the branch-free window of the counts, per side


@nb.njit(inline="always")
def _count(s, p, r):
    """#{q != p : |s[q] - s[p]| < r} for sorted ``s`` (exact; r <= 0 counts nothing)."""
    n = s.shape[0]
    v = s[p]
    if p + _W < n:  # a fixed window first: compares without branches (vectorised)
        up = 0
        for j in range(1, _W + 1):
            up += s[p + j] - v < r
        q = p + up + 1
    else:
        q = p + 1
    if q == p + _W + 1 or p + _W >= n:
        while q + 8 <= n and s[q + 7] - v < r:
            q += 8
        while q < n and s[q] - v < r:
            q += 1
    up = q - p - 1
    if p - _W >= 0:
        dn = 0
        for j in range(1, _W + 1):
            dn += v - s[p - j] < r
        q = p - dn - 1
    else:
        q = p - 1
    if q == p - _W - 1 or p - _W < 0:
        while q - 7 >= 0 and v - s[q - 7] < r:
            q -= 8
        while q >= 0 and v - s[q] < r:
            q -= 1
    return up + (p - 1 - q)


@nb.njit(nogil=True, cache=True)
def _ksg_pair(vx, slx, rx, sx, lox, hix, vy, sly, ry, sy, loy, hiy, c, k, psi, cnt, g, gi, ex, ey):
    """KSG-1 of one pair; ``cnt``, ``g``, ``gi``, ``ex``, ``ey`` are work buffers of shapes
    (c*c+1,), (n, 2), (n, 4), (n,), (n,)."""
    n = vx.shape[0]
    cnt[:] = 0
    for i in range(n):
        cnt[slx[i] * c + sly[i] + 1] += 1
    for t in range(c * c):
        cnt[t + 1] += cnt[t]
    for i in range(n):  # counting sort by cell; cnt[t] is the next free place in cell t
        t = slx[i] * c + sly[i]
        u = cnt[t]
        cnt[t] = u + 1
        g[u, 0] = vx[i]
        g[u, 1] = vy[i]
        gi[u, 0] = rx[i]
        gi[u, 1] = ry[i]
        gi[u, 2] = slx[i]
        gi[u, 3] = sly[i]
    for t in range(c * c, 0, -1):  # back to cell starts
        cnt[t] = cnt[t - 1]
    cnt[0] = 0
    for u in range(n):
        xv = g[u, 0]
        yv = g[u, 1]
        h = (_INF, _INF, _INF, _INF, _INF, _INF, _INF, _INF)
        x0 = max(gi[u, 2] - 1, 0)
        x1 = min(gi[u, 2] + 1, c - 1)
        y0 = max(gi[u, 3] - 1, 0)
        y1 = min(gi[u, 3] + 1, c - 1)
        for xx in range(x0, x1 + 1):  # the 3 x 3 cells around the point's own cell first
            h = _scan(g, cnt, xx * c + y0, xx * c + y1 + 1, u, xv, yv, h, k)
        while True:
            kth = h[k - 1]
            grow_l = x0 > 0 and xv - hix[x0 - 1] < kth
            grow_r = x1 < c - 1 and lox[x1 + 1] - xv < kth
            grow_d = y0 > 0 and yv - hiy[y0 - 1] < kth
            grow_u = y1 < c - 1 and loy[y1 + 1] - yv < kth
            if not (grow_l or grow_r or grow_d or grow_u):
                break
            if grow_l:
                x0 -= 1
                h = _scan(g, cnt, x0 * c + y0, x0 * c + y1 + 1, u, xv, yv, h, k)
            if grow_r:
                x1 += 1
                h = _scan(g, cnt, x1 * c + y0, x1 * c + y1 + 1, u, xv, yv, h, k)
            if grow_d:
                y0 -= 1
                for xx in range(x0, x1 + 1):
                    t = xx * c + y0
                    h = _scan(g, cnt, t, t + 1, u, xv, yv, h, k)
            if grow_u:
                y1 += 1
                for xx in range(x0, x1 + 1):
                    t = xx * c + y1
                    h = _scan(g, cnt, t, t + 1, u, xv, yv, h, k)
        ex[gi[u, 0]] = h[k - 1]  # the k-th distance, by rank in x and in y
        ey[gi[u, 1]] = h[k - 1]
    # counts in sorted order: neighbouring ranks have similar counts, so the walks' branches
    # are predicted (about 3x faster than counting in cell order)
    acc = 0.0
    for p in range(n):
        acc += psi[_count(sx, p, ex[p]) + 1]
    for p in range(n):
        acc += psi[_count(sy, p, ey[p]) + 1]
    return psi[k] + psi[n] - acc / n


@nb.njit(nogil=True, cache=True)
def _ksg_pairs(ia, ib, v, s, r, sl, lo, hi, c, k, psi, perms, out, null_ge):
    n = v.shape[1]
    cnt = np.empty(c * c + 1, np.int64)
    g = np.empty((n, 2))
    gi = np.empty((n, 4), np.int32)
    ex = np.empty(n)
    ey = np.empty(n)
    pv = np.empty(n)
    psl = np.empty(n, np.int32)
    pr = np.empty(n, np.int32)
    for m in range(ia.shape[0]):
        a = ia[m]
        b = ib[m]
        val = _ksg_pair(
            v[a], sl[a], r[a], s[a], lo[a], hi[a], v[b], sl[b], r[b], s[b], lo[b], hi[b],
            c, k, psi, cnt, g, gi, ex, ey,
        )  # fmt: skip
        out[m] = val
        ge = 0
        for t in range(perms.shape[0]):
            for i in range(n):
                j = perms[t, i]
                pv[i] = v[b, j]
                psl[i] = sl[b, j]
                pr[i] = r[b, j]
            null = _ksg_pair(
                v[a], sl[a], r[a], s[a], lo[a], hi[a], pv, psl, pr, s[b], lo[b], hi[b],
                c, k, psi, cnt, g, gi, ex, ey,
            )  # fmt: skip
            ge += null >= val
        null_ge[m] = ge


def ksg_block(
    arrays: dict[str, np.ndarray],
    ia: np.ndarray,
    ib: np.ndarray,
    k: int,
    perms: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """KSG-1 (nats) of the pairs ``(ia[m], ib[m])`` of rows of ``arrays`` (:func:`column_arrays`).

    With ``perms`` (T, n), also the number of permutations t with
    ``KSG(x, y[perms[t]]) >= KSG(x, y)`` for each pair (else zeros).  Serial and GIL-free:
    run several blocks on threads.
    """
    if not 1 <= k <= MAX_K:
        raise ValueError(f"the register kernel takes 1 <= k <= {MAX_K}, got k={k}")
    n = arrays["v"].shape[1]
    if k >= n:
        raise ValueError(f"k must be smaller than the number of samples ({n}), got k={k}")
    psi = digamma(np.arange(n + 2, dtype=np.float64))
    psi[0] = 0.0  # never used: counts + 1 >= 1
    perms = np.empty((0, n), np.int64) if perms is None else np.ascontiguousarray(perms, np.int64)
    out = np.empty(len(ia))
    null_ge = np.zeros(len(ia), np.int64)
    _ksg_pairs(
        np.ascontiguousarray(ia, np.int64),
        np.ascontiguousarray(ib, np.int64),
        arrays["v"],
        arrays["s"],
        arrays["r"],
        arrays["sl"],
        arrays["lo"],
        arrays["hi"],
        arrays["lo"].shape[1],
        int(k),
        psi,
        perms,
        out,
        null_ge,
    )
    return out, null_ge


# ------------------------------------------------------------------ Gaussian copula
def copula_scores(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Normal scores of the ranks of each row of ``values`` (p, n), centred, unit norm.

    Returns the scores and a boolean per row: whether it had ties (average ranks).  The
    dot product of two rows is then the sample correlation of their normal scores.
    A constant row has all scores equal: it is returned as zeros.
    """
    from infometer.estimators.parametric import copula_normalize

    z = copula_normalize(np.asarray(values, dtype=np.float64).T).T
    srt = np.sort(values, axis=1)
    ties = (srt[:, 1:] == srt[:, :-1]).any(axis=1)
    z = z - z.mean(axis=1, keepdims=True)
    norm = np.sqrt(np.einsum("ij,ij->i", z, z))
    ok = norm > 0
    z[ok] /= norm[ok, None]
    z[~ok] = 0.0
    return np.ascontiguousarray(z), ties


def copula_bias(n: int, dz: int = 0) -> float:
    """Wishart bias correction of the Gaussian MI of two 1-D variables given ``dz`` others.

    With the unbiased log-determinants of :mod:`infometer.estimators.parametric.gaussian`, the MI
    ``−½ log(1 − ρ²)`` gains ``½[ψ((n − dz − 2)/2) − ψ((n − dz − 1)/2)]`` (< 0).
    """
    return 0.5 * float(digamma((n - dz - 2) / 2.0) - digamma((n - dz - 1) / 2.0))


def copula_mutual_info(r: np.ndarray, bias: float) -> np.ndarray:
    """Gaussian MI ``−½ log((1 − r)(1 + r)) + bias`` of correlations ``r`` (|r| = 1 -> inf)."""
    r = np.clip(r, -1.0, 1.0)
    with np.errstate(divide="ignore"):
        return -0.5 * np.log((1.0 - r) * (1.0 + r)) + bias


# The former abbreviated names, deprecated for one release (issue 29).
copula_mi = deprecated_alias(copula_mutual_info, "copula_mi")
