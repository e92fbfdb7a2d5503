"""Signal entropies: each ``measure(x, **params) -> float`` on a checked 1-D float64 signal.

Values are in nats, or fractions of their maximum with ``normalize=True``.  Conventions
(the peers' differences are listed in docs/entropies.md):

* ordinal patterns of ``order`` values spaced ``delay`` apart (Bandt & Pompe 2002), ties
  broken by time; normalised by ``log(order!)``;
* weighted PE weighs each window by its variance (Fadlallah et al. 2013); modified PE
  gives equal values equal ranks (Bian et al. 2012) and is normalised by the log of the
  number of weak orderings of ``order`` values (the ordered Bell number);
* dispersion entropy maps ``x`` through the normal CDF with the sample mean and sd
  (ddof=0) to ``classes`` symbols (Rostaghi & Azami 2016), normalised by
  ``log(classes^order)``;
* sample entropy (Richman & Moorman 2000) uses the same ``N - order·delay`` templates for
  lengths ``order`` and ``order + 1``, Chebyshev distance ``<= r·sd(x)`` (ddof=0), self
  matches excluded; approximate entropy (Pincus 1991) counts self matches and uses
  ``N - (m-1)·delay`` templates of each length m;
* fuzzy entropy (Chen et al. 2007): baseline-removed templates, membership
  ``exp(-d^n / (r·sd))``, ``N - order·delay`` templates of both lengths;
* spectral entropy: Shannon entropy of the normalised periodogram (or Welch) PSD,
  normalised by ``log(number of frequencies)`` (Inouye et al. 1991);
* SVD entropy: Shannon entropy of the normalised singular values of the delay-embedding
  matrix (Roberts et al. 1999), normalised by ``log(order)``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from infometer.core._lazy import lazy_module
from infometer.core.validation import check_bool, check_budget, check_choice, check_float, check_int

#: The compiled kernels (numba), imported on first use: registering the family (which every
#: registry lookup does) must not load numba (``tests/test_import_light.py``).
K = lazy_module("._kernels", __package__)


__all__ = [
    "MEASURES",
    "check_embedding",
    "ordinal_counts",
    "permutation",
    "weighted_permutation",
    "modified_permutation",
    "dispersion",
    "sample",
    "approximate",
    "fuzzy",
    "spectral",
    "svd",
    "statistical_complexity",
    "permutation_2d",
    "fubini",
    "sample_counts",
]

#: The largest embedding dimension accepted (10! = 3.6 million patterns).
MAX_ORDER = 10


def fubini(m: int) -> int:
    """Number of weak orderings of m items (ordered Bell number)."""
    a = [1]
    for n in range(1, m + 1):
        a.append(sum(math.comb(n, k) * a[n - k] for k in range(1, n + 1)))
    return a[m]


#: Fewest samples any 1-D measure reads (each has its own, larger needs on top: ``order!``
#: windows for the ordinal ones, ``classes**order`` for dispersion, two template pairs
#: at length ``order + 1`` for sample, approximate and fuzzy entropy).
MIN_SAMPLES = 10


def rescaled(x: np.ndarray) -> tuple[np.ndarray, float]:
    """``(x · f, f)`` with ``f`` a power of two that brings ``max |x|`` near 1 when it is
    so large (or small) that squares and sums of ``x`` overflow (or underflow), else
    ``(x, 1.0)``.

    The measures of :data:`SCALE_FREE` are unchanged when the signal is multiplied by a
    constant (ordinal patterns, variance weights, normalised spectra and singular values,
    tolerances ``r · sd``); a power of two multiplies every float exactly, so a signal of
    1e300 gets the same value as the same signal of 1 instead of NaN.  Fuzzy entropy's
    membership ``exp(-d^n / (r·sd))`` is not scale-free (unless n = 1): it is never
    rescaled, and refused where it underflows (:func:`fuzzy`).
    """
    top = K.abs_max(x)
    if top == 0.0 or 2.0**-400 <= top <= 2.0**400:
        return x, 1.0
    f = 2.0 ** -math.frexp(top)[1]
    return x * f, f


def check_embedding(
    n: int, order: Any, delay: Any, *, patterns: Any = None, extra: int = 0
) -> tuple[int, int]:
    """``(order, delay)`` checked against the signal length ``n``.

    ``patterns`` (e.g. ``order!``, or a function of the checked order giving it) larger
    than ``n`` is refused: the pattern distribution cannot be estimated from fewer windows
    than patterns.  ``extra`` adds samples the measure needs beyond one window (sample
    entropy compares windows of ``order + 1``).
    """
    m = check_int(order, "order", min_value=1, max_value=MAX_ORDER)
    tau = check_int(delay, "delay", min_value=1)
    if callable(patterns):
        patterns = patterns(m)
    span = (m - 1 + extra) * tau
    if span >= n:
        raise ValueError(
            f"delay={tau} with order={m} spans {span + 1} samples but the signal has {n}: "
            "no window fits; lower order or delay"
        )
    if patterns is not None and patterns > n:
        raise ValueError(
            f"order={m} has {patterns} possible patterns, more than the {n} samples of the "
            "signal; lower order (the pattern distribution needs N >> order!)"
        )
    return m, tau


def _norm(value: float, size: float, normalize: bool) -> float:
    return value / math.log(size) if normalize and size > 1 else value


def ordinal_counts(x: np.ndarray, order: int = 3, delay: int = 1) -> np.ndarray:
    """Counts of the ``order!`` ordinal patterns (zeros kept), index = Lehmer code."""
    m, tau = check_embedding(x.size, order, delay, patterns=math.factorial)
    from ._ordinal_unrolled import HIST

    if m in HIST:
        return HIST[m](x, tau)
    return K.ordinal_histogram(x, m, tau, math.factorial(m))


def permutation(x: np.ndarray, *, order: int = 3, delay: int = 1, normalize: bool = False) -> float:
    """Permutation entropy (Bandt & Pompe 2002)."""
    check_bool(normalize, "normalize")
    c = ordinal_counts(x, order, delay)
    return _norm(K.entropy_of_counts(c), c.size, normalize)


def weighted_permutation(
    x: np.ndarray, *, order: int = 3, delay: int = 1, normalize: bool = False
) -> float:
    """Weighted permutation entropy (Fadlallah et al. 2013): windows weighted by variance."""
    check_bool(normalize, "normalize")
    m, tau = check_embedding(x.size, order, delay, patterns=math.factorial)
    w = K.window_variances(x, m, tau)
    if not np.any(w > 0):
        return 0.0  # a constant signal: every window has weight 0, no information
    c = np.bincount(K.ordinal_codes(x, m, tau), weights=w, minlength=math.factorial(m))
    return _norm(K.entropy_of_counts(c), math.factorial(m), normalize)


def modified_permutation(
    x: np.ndarray, *, order: int = 3, delay: int = 1, normalize: bool = False
) -> float:
    """Modified permutation entropy (Bian et al. 2012): equal values share a rank."""
    check_bool(normalize, "normalize")
    m, tau = check_embedding(x.size, order, delay, patterns=math.factorial)
    codes = K.ordinal_codes_ties(x, m, tau)
    _, c = np.unique(codes, return_counts=True)
    return _norm(K.entropy_of_counts(c), fubini(m), normalize)


def dispersion(
    x: np.ndarray, *, order: int = 2, delay: int = 1, classes: int = 6, normalize: bool = False
) -> float:
    """Dispersion entropy (Rostaghi & Azami 2016) with the normal-CDF map."""
    from scipy.special import ndtr, ndtri

    check_bool(normalize, "normalize")
    c = check_int(classes, "classes", min_value=2, max_value=64)
    m = check_int(order, "order", min_value=1, max_value=MAX_ORDER)
    if c**m > 10**8:
        raise ValueError(f"classes**order = {c}**{m} patterns is above the limit of 1e8")
    m, tau = check_embedding(x.size, m, delay, patterns=c**m)
    sd = float(np.std(x))
    if sd == 0:
        return 0.0
    mu = x.mean()
    # class boundaries in x (no normal CDF per value); values within a band of 1e-7 sd
    # around one (far wider than the rounding of ndtr / ndtri) take the exact map
    thr = mu + sd * ndtri(np.arange(1, c) / c)
    z = np.empty(x.size, np.int8)
    if K.classes_by_thresholds(x, thr, 1e-7 * sd, z):
        near = np.flatnonzero(z < 0)
        y = ndtr((x[near] - mu) / sd)
        z[near] = np.clip(np.round(c * y + 0.5), 1, c).astype(np.int64) - 1
    counts = K.pattern_counts(z, m, tau, c)
    return _norm(K.entropy_of_counts(counts), float(c) ** m, normalize)


def _embed(x: np.ndarray, m: int, tau: int, rows: int) -> np.ndarray:
    return np.column_stack([x[i * tau : i * tau + rows] for i in range(m)])


def _tolerance(x: np.ndarray, r: Any, r_abs: float | None) -> float:
    if r_abs is not None:
        return check_float(r_abs, "r_abs", low=0.0)
    return check_float(r, "r", low=0.0, inclusive=(False, True)) * float(np.std(x))


#: Sample entropy scans the sorted templates while the pairs to check (those within r in
#: the first coordinate) are at most this many per template (~4 ns a pair against ~1 µs a
#: template for the kd-tree counts); N = 1000 at r = 0.2 sd checks ~65 per template.
SCAN_PAIRS_PER_ROW = 250


def sample_counts(x: np.ndarray, m: int, tau: int, tol: float) -> tuple[float, float]:
    """``(A, B)``: ordered template pairs within ``tol`` (Chebyshev) at lengths m + 1 and m,
    over the same ``N - m·tau`` templates, self matches excluded."""
    from infometer.estimators.knn._engine import count_within

    rows = x.size - m * tau
    if rows < 2:
        return 0.0, 0.0
    # few pairs within tol in the first coordinate: a scan of the sorted templates (exact,
    # the same integers); else the range counts of the kNN engine
    a, b = K.template_pair_counts(x, m, tau, tol, float(SCAN_PAIRS_PER_ROW * rows))
    if b >= 0:
        return a, b
    rad = np.full(rows, tol)
    B = float(count_within(_embed(x, m, tau, rows), rad).sum())
    A = float(count_within(_embed(x, m + 1, tau, rows), rad).sum())
    return A, B


def sample(
    x: np.ndarray, *, order: int = 2, delay: int = 1, r: float = 0.2, r_abs: float | None = None
) -> float:
    """Sample entropy ``-log(A / B)`` (Richman & Moorman 2000); inf when A = 0."""
    m, tau = check_embedding(x.size, order, delay, extra=1)
    tol = _tolerance(x, r, r_abs)
    if x.size - m * tau < 2:
        raise ValueError(f"order={m}, delay={tau} leave fewer than 2 templates in {x.size} samples")
    A, B = sample_counts(x, m, tau, tol)
    return math.inf if A == 0 or B == 0 else -math.log(A / B)


def approximate(
    x: np.ndarray, *, order: int = 2, delay: int = 1, r: float = 0.2, r_abs: float | None = None
) -> float:
    """Approximate entropy ``Phi_m - Phi_{m+1}`` (Pincus 1991), self matches counted."""
    from infometer.estimators.knn._engine import count_within

    m, tau = check_embedding(x.size, order, delay, extra=1)
    tol = _tolerance(x, r, r_abs)

    def phi(mm: int) -> float:
        rows = x.size - (mm - 1) * tau
        c = count_within(_embed(x, mm, tau, rows), np.full(rows, tol)) + 1.0
        return float(np.mean(np.log(c / rows)))

    return phi(m) - phi(m + 1)


#: Pairs of templates fuzzy entropy may compare (O(N^2) work) before refusing.
MAX_FUZZY_PAIRS = 2 * 10**9


def fuzzy(
    x: np.ndarray,
    *,
    order: int = 2,
    delay: int = 1,
    r: float = 0.2,
    exponent: float = 2.0,
    r_abs: float | None = None,
    max_pairs: int = MAX_FUZZY_PAIRS,
) -> float:
    """Fuzzy entropy ``log phi_m - log phi_{m+1}`` (Chen et al. 2007)."""
    m, tau = check_embedding(x.size, order, delay, extra=1)
    n_exp = check_float(exponent, "exponent", low=0.0, inclusive=(False, True))
    tol = _tolerance(x, r, r_abs)
    if not math.isfinite(tol):
        raise ValueError(
            "x: fuzzy entropy is undefined at this scale (the tolerance r·sd(x) overflows "
            "float64); its membership exp(-d^n / (r·sd)) depends on the signal's scale, so "
            "standardise x first (x / x.std())"
        )
    T = x.size - m * tau
    check_budget(
        T * (T - 1) / 2,
        name="x (its length)",
        limit=check_int(max_pairs, "max_pairs", min_value=1),
        what="template pairs",
        override="pass max_pairs=... to allow more",
    )
    if T < 2:
        raise ValueError(f"order={m}, delay={tau} leave fewer than 2 templates")
    if tol == 0:
        return 0.0
    a = K.fuzzy_phi(x, m, tau, tol, n_exp, T)
    b = K.fuzzy_phi(x, m + 1, tau, tol, n_exp, T)
    if a == 0 or not math.isfinite(a):
        raise ValueError(
            f"x: fuzzy entropy is undefined at this scale: the membership exp(-d^{n_exp:g} / "
            f"(r·sd)) of every template pair underflows to 0 (r·sd = {tol:.3g}); with "
            f"exponent={n_exp:g} the measure depends on the signal's scale, so standardise "
            "x first (x / x.std()) or pass exponent=1"
        )
    return math.inf if b == 0 else math.log(a) - math.log(b)


def _periodogram(x: np.ndarray) -> np.ndarray:
    """One-sided periodogram up to a constant factor: ``|rfft(x - mean)|^2`` with the
    interior frequencies doubled (DC and, for even N, Nyquist once), as
    ``scipy.signal.periodogram`` with its defaults (constant detrend, boxcar window);
    the factor cancels in the normalised PSD.  Six times faster than that function at
    10^6 samples (it converts and detrends through general machinery)."""
    from scipy import fft

    X = fft.rfft(x - x.mean())
    p = X.real**2 + X.imag**2
    if x.size % 2 == 0:
        p[1:-1] *= 2.0
    else:
        p[1:] *= 2.0
    return p


def spectral(
    x: np.ndarray, *, psd: str = "periodogram", nperseg: int | None = None, normalize: bool = False
) -> float:
    """Spectral entropy of the normalised periodogram (``psd="periodogram"``) or Welch PSD."""
    from scipy.signal import welch

    check_bool(normalize, "normalize")
    check_choice(psd, "psd", ("periodogram", "welch"))
    if x.size < 2:
        raise ValueError("spectral entropy needs at least 2 samples")
    if psd == "periodogram":
        power = _periodogram(x)
    else:
        seg = None if nperseg is None else check_int(nperseg, "nperseg", min_value=2)
        _, power = welch(x, nperseg=seg)
    if not np.any(power > 0):
        return 0.0
    return _norm(K.entropy_of_counts(power), power.size, normalize)


def _singular_values(x: np.ndarray, m: int, tau: int, rows: int) -> np.ndarray:
    """Singular values of the (rows, m) delay-embedding matrix E.

    From the m x m Gram matrix E^T E when it is well conditioned
    (:func:`_kernels.gram_eigenvalues`: one dot product of shifted windows per lag, the
    rest of each lag's diagonal by sliding, no copy of E); its eigenvalues are the squared
    singular values to ~1e-16 relative to the largest.  When the smallest is below 1e-8 of
    the largest (a rank-deficient embedding, e.g. a sine), the square root would only be
    accurate to ~1e-8 relative, so the SVD of E itself is taken.
    """
    ev = K.gram_eigenvalues(x, m, tau, rows)
    if ev[-1] > 0 and ev[0] > 1e-8 * ev[-1]:
        return np.sqrt(ev[::-1])
    return np.linalg.svd(_embed(x, m, tau, rows), compute_uv=False)


def svd(x: np.ndarray, *, order: int = 3, delay: int = 1, normalize: bool = False) -> float:
    """SVD entropy of the delay-embedding matrix's normalised singular values."""
    check_bool(normalize, "normalize")
    m, tau = check_embedding(x.size, order, delay)
    rows = x.size - (m - 1) * tau
    h = K.gram_svd_entropy(x, m, tau, rows)
    if math.isnan(h):  # rank-deficient: the singular values from the SVD of E itself
        s = _singular_values(x, m, tau, rows)
        if not s[0] > 0:  # sorted descending: all zero
            return 0.0
        h = K.entropy_of_counts(s)
    return _norm(h, m, normalize)


def _jsd_uniform(p: np.ndarray) -> float:
    from infometer.measures.generalized._kernels import jensen

    u = np.full(p.size, 1.0 / p.size)
    return jensen(np.vstack([p, u]), np.array([0.5, 0.5]), 1.0)


def complexity_of_pmf(p: np.ndarray) -> tuple[float, float]:
    """``(H_norm, C)``: normalised Shannon entropy and the Jensen–Shannon statistical
    complexity ``C = Q_J[P, U] H_norm`` (López-Ruiz, Mancini & Calbet 1995; Rosso et al.
    2007), ``Q_J`` the JSD to the uniform pmf over all ``p.size`` patterns divided by its
    maximum (reached at a delta)."""
    n = p.size
    h = K.entropy_of_counts(p) / math.log(n)
    delta = np.zeros(n)
    delta[0] = 1.0
    q = _jsd_uniform(p) / _jsd_uniform(delta)
    return h, q * h


def statistical_complexity(x: np.ndarray, *, order: int = 3, delay: int = 1) -> float:
    """Statistical complexity of the ordinal pattern pmf (a fraction in [0, 1))."""
    check_int(order, "order", min_value=2, max_value=MAX_ORDER)  # 1 pattern: nothing to norm
    c = ordinal_counts(x, order, delay)
    return complexity_of_pmf(c / c.sum())[1]


def permutation_2d(
    img: np.ndarray, *, order: Any = (2, 2), delay: Any = (1, 1), normalize: bool = False
) -> float:
    """2-D permutation entropy of an image (Ribeiro et al. 2012): ordinal patterns of its
    ``order = (dy, dx)`` sub-images with steps ``delay = (ty, tx)``."""
    check_bool(normalize, "normalize")
    dy, dx = _pair(order, "order")
    ty, tx = _pair(delay, "delay")
    if img.ndim != 2:
        raise ValueError(f"x must be a 2-D image for permutation_2d, got shape {img.shape}")
    if (dy - 1) * ty >= img.shape[0] or (dx - 1) * tx >= img.shape[1]:
        raise ValueError(
            f"order={order} with delay={delay} does not fit in an image of shape {img.shape}"
        )
    m = dx * dy
    if m > MAX_ORDER:
        raise ValueError(f"order={order} makes patterns of {m} pixels; at most {MAX_ORDER}")
    if math.factorial(m) > img.size:
        raise ValueError(
            f"order={order} has {math.factorial(m)} possible patterns, more than the "
            f"{img.size} pixels of the image; lower order"
        )
    codes = K.ordinal_codes_2d(np.ascontiguousarray(img), dx, dy, tx, ty)
    c = np.bincount(codes, minlength=math.factorial(m))
    return _norm(K.entropy_of_counts(c), math.factorial(m), normalize)


def _pair(v: Any, name: str) -> tuple[int, int]:
    if isinstance(v, int | np.integer) and not isinstance(v, bool):
        v = (v, v)
    if not isinstance(v, tuple | list) or len(v) != 2:
        raise TypeError(f"{name} must be an integer or a pair (rows, columns), got {v!r}")
    return (check_int(v[0], name, min_value=1), check_int(v[1], name, min_value=1))


#: The measures unchanged when the signal is multiplied by a constant (all but fuzzy).
SCALE_FREE = frozenset(
    {
        "permutation",
        "weighted_permutation",
        "modified_permutation",
        "dispersion",
        "sample",
        "approximate",
        "spectral",
        "svd",
        "statistical_complexity",
        "permutation_2d",
    }
)

#: name -> (function, normalisable, summary)
MEASURES: dict[str, tuple[Any, bool, str]] = {
    "permutation": (permutation, True, "Permutation entropy (Bandt & Pompe 2002)"),
    "weighted_permutation": (weighted_permutation, True, "Weighted PE (Fadlallah et al. 2013)"),
    "modified_permutation": (modified_permutation, True, "Modified PE with ties (Bian 2012)"),
    "dispersion": (dispersion, True, "Dispersion entropy (Rostaghi & Azami 2016)"),
    "sample": (sample, False, "Sample entropy (Richman & Moorman 2000)"),
    "approximate": (approximate, False, "Approximate entropy (Pincus 1991)"),
    "fuzzy": (fuzzy, False, "Fuzzy entropy (Chen et al. 2007)"),
    "spectral": (spectral, True, "Spectral entropy of the normalised PSD"),
    "svd": (svd, True, "SVD entropy (Roberts et al. 1999)"),
    "statistical_complexity": (
        statistical_complexity,
        False,
        "Jensen-Shannon statistical complexity of ordinal patterns (Rosso et al. 2007)",
    ),
}
