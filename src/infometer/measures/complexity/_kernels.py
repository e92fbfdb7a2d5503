"""Compiled and numpy kernels for signal entropies (numpy in, numpy out; no validation).

Every function takes a 1-D float64 array that has already been checked (finite, long
enough for the embedding) and returns plain numbers or arrays in nats.
"""

from __future__ import annotations

import math

import numpy as np

from infometer.core._jit import nb

__all__ = [
    "ordinal_codes",
    "ordinal_codes_ties",
    "ordinal_histogram",
    "window_variances",
    "ordinal_codes_2d",
    "embed_codes",
    "entropy_of_counts",
    "gram_eigenvalues",
    "gram_svd_entropy",
    "abs_max",
    "coarse_grain",
    "fuzzy_phi",
    "classes_by_thresholds",
    "pattern_counts",
    "template_pair_counts",
]


@nb.njit(cache=True, nogil=True)
def ordinal_codes(x: np.ndarray, m: int, tau: int) -> np.ndarray:  # pragma: no cover
    """Lehmer code in ``[0, m!)`` of the ordinal pattern of each window
    ``x[t], x[t + tau], ..., x[t + (m-1) tau]`` (Bandt & Pompe 2002).  Equal values are
    ordered by time (the earlier one is the smaller), as a stable argsort does."""
    n = x.size - (m - 1) * tau
    out = np.empty(n, np.int64)
    for t in range(n):
        code = 0
        for i in range(m):
            xi = x[t + i * tau]
            c = 0
            for j in range(i + 1, m):
                c += np.int64(x[t + j * tau] < xi)
            code = code * (m - i) + c
        out[t] = code
    return out


@nb.njit(cache=True, nogil=True)
def ordinal_histogram(x: np.ndarray, m: int, tau: int, size: int) -> np.ndarray:  # pragma: no cover
    """Counts of the Lehmer codes of :func:`ordinal_codes`, without the codes array.

    The digits ``c_i = #{j > i: w_j < w_i}`` of consecutive windows of one residue class
    (``t, t + tau, ...``) are updated, not recomputed: the window at ``t + tau`` drops the
    first value and appends ``x[t + m tau]``, so its digit i is the previous window's digit
    i + 1 plus one comparison with the new value (m - 1 comparisons per window instead of
    m (m - 1) / 2; branch-free, since random data mispredict half of the branches).
    """
    n = x.size - (m - 1) * tau
    out = np.zeros(size, np.int64)
    dig = np.empty(m, np.int64)
    for r in range(min(tau, n)):
        t = r
        for i in range(m):
            xi = x[t + i * tau]
            c = 0
            for j in range(i + 1, m):
                c += np.int64(x[t + j * tau] < xi)
            dig[i] = c
        while True:
            code = 0
            for i in range(m):
                code = code * (m - i) + dig[i]
            out[code] += 1
            t += tau
            if t >= n:
                break
            new = x[t + (m - 1) * tau]
            for i in range(m - 1):
                dig[i] = dig[i + 1] + np.int64(new < x[t + i * tau])
            dig[m - 1] = 0
    return out


@nb.njit(cache=True, nogil=True)
def ordinal_codes_ties(x: np.ndarray, m: int, tau: int) -> np.ndarray:  # pragma: no cover
    """Codes of tie-aware ordinal patterns (modified PE, Bian et al. 2012): each value's
    rank is the number of strictly smaller values in the window, so equal values share
    a rank; code = sum_i rank_i m^i (distinct weak orderings get distinct codes)."""
    n = x.size - (m - 1) * tau
    out = np.empty(n, np.int64)
    for t in range(n):
        code = 0
        for i in range(m):
            xi = x[t + i * tau]
            r = 0
            for j in range(m):
                if x[t + j * tau] < xi:
                    r += 1
            code = code * m + r
        out[t] = code
    return out


@nb.njit(cache=True, nogil=True)
def window_variances(x: np.ndarray, m: int, tau: int) -> np.ndarray:  # pragma: no cover
    """Population variance of each embedded window (the weights of weighted PE)."""
    n = x.size - (m - 1) * tau
    out = np.empty(n)
    for t in range(n):
        s = 0.0
        for i in range(m):
            s += x[t + i * tau]
        mu = s / m
        v = 0.0
        for i in range(m):
            d = x[t + i * tau] - mu
            v += d * d
        out[t] = v / m
    return out


@nb.njit(cache=True, nogil=True)
def ordinal_codes_2d(
    img: np.ndarray, dx: int, dy: int, tx: int, ty: int
) -> np.ndarray:  # pragma: no cover
    """Lehmer codes of the ordinal patterns of the ``dy x dx`` sub-images (rows spaced by
    ``ty``, columns by ``tx``), each flattened row by row (Ribeiro et al. 2012)."""
    rows = img.shape[0] - (dy - 1) * ty
    cols = img.shape[1] - (dx - 1) * tx
    m = dx * dy
    w = np.empty(m)
    out = np.empty(rows * cols, np.int64)
    k = 0
    for r in range(rows):
        for c in range(cols):
            p = 0
            for a in range(dy):
                for b in range(dx):
                    w[p] = img[r + a * ty, c + b * tx]
                    p += 1
            code = 0
            for i in range(m):
                cnt = 0
                for j in range(i + 1, m):
                    if w[j] < w[i]:
                        cnt += 1
                code = code * (m - i) + cnt
            out[k] = code
            k += 1
    return out


@nb.njit(cache=True, nogil=True)
def embed_codes(z: np.ndarray, m: int, tau: int, c: int) -> np.ndarray:  # pragma: no cover
    """``sum_i z[t + i tau] c^(m-1-i)`` for symbols ``z`` in ``[0, c)`` (dispersion patterns)."""
    n = z.size - (m - 1) * tau
    out = np.empty(n, np.int64)
    for t in range(n):
        code = 0
        for i in range(m):
            code = code * c + z[t + i * tau]
        out[t] = code
    return out


#: Up to this many counts :func:`entropy_of_counts` sums them in one compiled pass; above,
#: numpy's pairwise sums keep the rounding error of long spectra at O(log n) eps.
SMALL_COUNTS = 4096


@nb.njit(cache=True, nogil=True)
def _entropy_small(c: np.ndarray) -> float:  # pragma: no cover
    s = 0.0
    for v in c:
        if v > 0:
            s += v
    h = 0.0
    for v in c:
        if v > 0:
            f = float(v)
            h += (f / s) * math.log(s / f)
    return h


def entropy_of_counts(c: np.ndarray) -> float:
    """Plug-in Shannon entropy (nats) of non-negative counts (or weights), at least one
    of them positive, as ``sum p log(1/p)``: every term is >= 0, so the sum is never below
    0 by rounding, and one count gives exactly 0 (``log s - sum c log c / s`` gave -2e-16
    where ``w log w / w`` rounds above ``log w``)."""
    if c.size <= SMALL_COUNTS:
        return float(_entropy_small(c))
    c = c[c > 0].astype(np.float64)
    s = c.sum()
    return float((c / s * np.log(s / c)).sum())


@nb.njit(cache=True, nogil=True)
def _dot(x: np.ndarray, a: int, b: int, n: int) -> float:  # pragma: no cover
    """``x[a : a + n] @ x[b : b + n]`` with four partial sums (no copy, no call)."""
    s0 = s1 = s2 = s3 = 0.0
    i = 0
    while i + 4 <= n:
        s0 += x[a + i] * x[b + i]
        s1 += x[a + i + 1] * x[b + i + 1]
        s2 += x[a + i + 2] * x[b + i + 2]
        s3 += x[a + i + 3] * x[b + i + 3]
        i += 4
    while i < n:
        s0 += x[a + i] * x[b + i]
        i += 1
    return (s0 + s1) + (s2 + s3)


@nb.njit(cache=True, nogil=True)
def gram_eigenvalues(x: np.ndarray, m: int, tau: int, rows: int) -> np.ndarray:  # pragma: no cover
    """Ascending eigenvalues of ``E^T E``, E the (rows, m) delay embedding
    ``E[t, i] = x[t + i tau]`` (:func:`_gram`), from LAPACK's symmetric solver."""
    g = np.empty((m, m))
    _gram(x, m, tau, rows, g)
    return np.linalg.eigvalsh(g)


@nb.njit(cache=True, nogil=True)
def _gram(x: np.ndarray, m: int, tau: int, rows: int, g: np.ndarray) -> None:  # pragma: no cover
    """``g = E^T E``: one dot product per lag k for ``G[0, k]``, the rest of that lag's
    diagonal by sliding the window (``G[i, i+k] = G[i-1, i-1+k]`` plus the tau products
    entering, minus the tau leaving)."""
    for k in range(m):
        v = _dot(x, 0, k * tau, rows)
        g[0, k] = v
        g[k, 0] = v
        for i in range(1, m - k):
            lo = (i - 1) * tau
            hi = lo + rows
            v += _dot(x, hi, hi + k * tau, tau) - _dot(x, lo, lo + k * tau, tau)
            g[i, i + k] = v
            g[i + k, i] = v


#: Squares of a signal whose largest magnitude lies in [2^-400, 2^400] neither overflow
#: nor vanish: a Gram diagonal (a sum of ``rows`` squares) below ``_SQUARES_HIGH`` and, for
#: the largest, above ``rows * _SQUARES_LOW`` proves the signal is in that range.
_SQUARES_HIGH = 2.0**800
_SQUARES_LOW = 2.0**-800


@nb.njit(cache=True, nogil=True)
def gram_svd_entropy(x: np.ndarray, m: int, tau: int, rows: int) -> float:  # pragma: no cover
    """SVD entropy (nats) of the delay embedding from :func:`gram_eigenvalues`: the
    entropy of the normalised singular values ``sqrt(eigenvalues)``.  NaN when the
    smallest eigenvalue is not above 1e-8 of the largest (rank-deficient: the square roots
    would only be accurate to ~1e-8 relative, and the caller takes the SVD of E itself);
    -1 when the Gram diagonal cannot prove ``max |x|`` within [2^-400, 2^400] (every
    sample lies in some diagonal window), where squares may overflow or vanish: the caller
    rescales by a power of two (exact) and calls again."""
    g = np.empty((m, m))
    _gram(x, m, tau, rows, g)
    top = 0.0
    for i in range(m):
        if not g[i, i] < _SQUARES_HIGH:  # also inf and NaN
            return -1.0
        top = max(top, g[i, i])
    if 0.0 < top < rows * _SQUARES_LOW:
        return -1.0
    ev = np.linalg.eigvalsh(g)
    if not (ev[m - 1] > 0 and ev[0] > 1e-8 * ev[m - 1]):
        return np.nan
    return _entropy_small(np.sqrt(ev))


@nb.njit(cache=True, nogil=True)
def abs_max(x: np.ndarray) -> float:  # pragma: no cover
    """``max |x|`` over every element (0 for an empty array) in one pass, no temporary."""
    top = 0.0
    for v in x.flat:
        a = abs(v)
        if a > top:
            top = a
    return top


def coarse_grain(x: np.ndarray, scale: int, offset: int = 0) -> np.ndarray:
    """Means of consecutive non-overlapping windows of ``scale`` samples, from ``offset``."""
    y = x[offset:]
    n = y.size // scale
    return y[: n * scale].reshape(n, scale).mean(axis=1)


@nb.njit(cache=True, nogil=True)
def fuzzy_phi(
    x: np.ndarray, m: int, tau: int, r: float, n_exp: float, n_templates: int
):  # pragma: no cover
    """Mean fuzzy similarity of baseline-removed templates of length m (Chen et al. 2007):
    ``(1 / (T (T-1))) sum_{i != j} exp(-d_ij^n / r)``, d the Chebyshev distance between
    templates with their own means removed, over the first ``n_templates`` templates."""
    T = n_templates
    tmp = np.empty((T, m))
    for i in range(T):
        s = 0.0
        for a in range(m):
            s += x[i + a * tau]
        mu = s / m
        for a in range(m):
            tmp[i, a] = x[i + a * tau] - mu
    total = 0.0
    for i in range(T):
        for j in range(i + 1, T):
            d = 0.0
            for a in range(m):
                v = abs(tmp[i, a] - tmp[j, a])
                if v > d:
                    d = v
            v = d * d if n_exp == 2.0 else d**n_exp
            total += math.exp(-v / r)
    return 2.0 * total / (T * (T - 1.0))


@nb.njit(cache=True, nogil=True)
def classes_by_thresholds(
    x: np.ndarray, thr: np.ndarray, band: float, out: np.ndarray
) -> int:  # pragma: no cover
    """Class of each value into ``out``: how many thresholds ``thr`` (increasing) it
    reaches; -1 for a value within ``band`` of a threshold, whose class the caller decides
    by its exact map.  Returns the number of such values.

    The classes of dispersion entropy, ``floor(c Φ((x - μ)/σ))``, change only where
    ``Φ((x - μ)/σ)`` crosses ``j / c``, i.e. at ``x = μ + σ Φ⁻¹(j / c)``: a few comparisons
    per value instead of a normal CDF.
    """
    k = thr.size
    near = 0
    for t in range(x.size):
        v = x[t]
        cls = 0
        while cls < k and v >= thr[cls]:
            cls += 1
        if (cls > 0 and v - thr[cls - 1] <= band) or (cls < k and thr[cls] - v <= band):
            out[t] = -1
            near += 1
        else:
            out[t] = cls
    return near


@nb.njit(cache=True, nogil=True)
def pattern_counts(z: np.ndarray, m: int, tau: int, c: int) -> np.ndarray:  # pragma: no cover
    """Counts of the patterns ``sum_i z[t + i tau] c^(m-1-i)`` (``embed_codes`` and a
    bincount in one pass, without the array of codes)."""
    size = 1
    for _ in range(m):
        size *= c
    counts = np.zeros(size, np.int64)
    n = z.size - (m - 1) * tau
    for t in range(n):
        code = 0
        for i in range(m):
            code = code * c + z[t + i * tau]
        counts[code] += 1
    return counts


@nb.njit(cache=True, nogil=True)
def template_pair_counts(
    x: np.ndarray, m: int, tau: int, tol: float, budget: float
) -> tuple:  # pragma: no cover
    """``(A, B)`` of sample entropy by a scan of the templates sorted by their first value,
    or ``(-1, -1)`` when more than ``budget`` pairs would be scanned.

    Templates ``t = 0..N - m τ - 1`` are ``(x[t], x[t + τ], ..., x[t + (m - 1) τ])`` (B) and
    the same with one more value (A).  Sorted by ``x[t]``, the partners of a template within
    ``tol`` (Chebyshev) lie in a contiguous run after it; each pair is checked once on the
    remaining coordinates and counted twice (ordered pairs, as ``count_within``).  The scan
    costs one check per pair within ``tol`` in the first coordinate (counted first, by two
    pointers): quadratic in N for a fixed ``r``, the fastest way below a few thousand
    samples.
    """
    rows = x.size - m * tau
    order = np.argsort(x[:rows], kind="mergesort")
    sorted_first = x[:rows][order]
    pairs = 0.0
    hi = 0
    for i in range(rows):
        if hi < i + 1:
            hi = i + 1
        while hi < rows and sorted_first[hi] - sorted_first[i] <= tol:
            hi += 1
        pairs += hi - i - 1
    if pairs > budget:
        return -1.0, -1.0
    # the templates' coordinates in sorted order, one contiguous row per coordinate
    s = np.empty((m + 1, rows))
    for q in range(m + 1):
        for ii in range(rows):
            s[q, ii] = x[order[ii] + q * tau]
    first = s[0]
    last = s[m]
    a = 0
    b = 0
    for i in range(rows):
        xi = first[i]
        for j in range(i + 1, rows):
            if first[j] - xi > tol:
                break
            ok = True
            for q in range(1, m):
                if abs(s[q, i] - s[q, j]) > tol:
                    ok = False
                    break
            if ok:
                b += 1
                if abs(last[i] - last[j]) <= tol:
                    a += 1
    return 2.0 * a, 2.0 * b
