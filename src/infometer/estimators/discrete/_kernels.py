"""Pure entropy kernels on count vectors (nats).

Every function takes ``c``, the counts of the *observed* symbols (zeros are ignored),
and returns an entropy in nats.  Notation: N = sum(c), m = number of non-zero counts,
K = alphabet size (observed + unseen symbols), p̂ = c / N.

References
----------
* Miller (1955); Chao & Shen (2003), Environ. Ecol. Stat. 10:429;
  Grassberger (2003), arXiv:physics/0307138, Eq. 35;
  Hausser & Strimmer (2009), JMLR 10:1469;
  Nemenman, Shafee & Bialek (2002), NIPS 14; Wolpert & Wolf (1995), Phys. Rev. E 52:6841;
  Chao (1984), Scand. J. Stat. 11:265 (richness estimator).
"""

from __future__ import annotations

import numpy as np
from scipy.special import digamma, gammaln, logsumexp, polygamma, xlogy

__all__ = [
    "plugin",
    "miller_madow",
    "chao_shen",
    "grassberger",
    "shrinkage",
    "shrinkage_lambda",
    "nsb",
    "chao1",
]


def _nz(c: np.ndarray) -> np.ndarray:
    c = np.asarray(c, dtype=np.float64)
    return c[c > 0]


def plugin(c: np.ndarray) -> float:
    """Maximum-likelihood entropy ``-sum p̂ log p̂``."""
    c = _nz(c)
    n = c.sum()
    if n == 0:
        return 0.0
    # sum (c/N) log(N/c): every term >= 0, so a constant column is exactly 0 (log N -
    # sum c log c / N came out -2.2e-16 for N = 6, where 6 log 6 / 6 rounds above log 6)
    return float((c / n * np.log(n / c)).sum())


def miller_madow(c: np.ndarray) -> float:
    """Plug-in plus the first-order bias correction ``(m - 1) / (2N)``."""
    c = _nz(c)
    if c.size == 0:
        return 0.0
    return plugin(c) + (c.size - 1) / (2.0 * c.sum())


def chao_shen(c: np.ndarray) -> float:
    """Horvitz–Thompson entropy with Good–Turing coverage (Chao & Shen 2003)."""
    c = _nz(c)
    n = c.sum()
    if n == 0:
        return 0.0
    f1 = float(np.count_nonzero(c == 1))
    if f1 == n:
        f1 = n - 1
    cov = 1.0 - f1 / n
    pa = cov * c / n
    # probability that a symbol of prob pa is seen at least once in n draws
    seen = -np.expm1(n * np.log1p(-pa))
    return float(-(xlogy(pa, pa) / seen).sum())


def _grassberger_g(nk: np.ndarray) -> np.ndarray:
    sign = np.where(nk % 2 == 0, 1.0, -1.0)
    return digamma(nk) + 0.5 * sign * (digamma((nk + 1) / 2.0) - digamma(nk / 2.0))


def grassberger(c: np.ndarray) -> float:
    """Grassberger (2003, Eq. 35): ``log N - (1/N) sum n_k G(n_k)``."""
    c = _nz(c)
    n = c.sum()
    if n == 0:
        return 0.0
    return float(np.log(n) - (c * _grassberger_g(c)).sum() / n)


def chao1(c: np.ndarray) -> float:
    """Chao1 richness: estimated number of symbols, seen and unseen (bias-corrected form)."""
    c = _nz(c)
    m = float(c.size)
    f1 = float(np.count_nonzero(c == 1))
    f2 = float(np.count_nonzero(c == 2))
    n = c.sum()
    if f1 == 0:
        return m
    if f2 > 0:
        return m + (n - 1) / n * f1 * f1 / (2 * f2)
    return m + (n - 1) / n * f1 * (f1 - 1) / 2.0


def shrinkage_lambda(c: np.ndarray, k: float) -> float:
    """James–Stein shrinkage intensity towards the uniform distribution on ``k`` cells."""
    c = _nz(c)
    n = c.sum()
    if n <= 1:
        return 1.0
    p = c / n
    m = c.size
    num = 1.0 - float((p * p).sum())
    den = (n - 1.0) * (float(((1.0 / k - p) ** 2).sum()) + (k - m) / (k * k))
    if den <= 0:
        return 1.0
    return float(min(1.0, max(0.0, num / den)))


def shrinkage(c: np.ndarray, k: float, lam: float | None = None) -> float:
    """Plug-in entropy of the James–Stein shrunk pmf on ``k`` cells (Hausser–Strimmer)."""
    c = _nz(c)
    n = c.sum()
    if n == 0:
        return 0.0
    m = c.size
    if k < m:
        raise ValueError(f"alphabet size {k} is smaller than the {m} symbols observed")
    lam = shrinkage_lambda(c, k) if lam is None else lam
    p_seen = lam / k + (1.0 - lam) * c / n
    h = -float(xlogy(p_seen, p_seen).sum())
    if k > m and lam > 0:
        u = lam / k
        h -= (k - m) * u * np.log(u)
    return h


# ----------------------------------------------------------------------- NSB
def _log_prior(alpha: np.ndarray, k: float) -> np.ndarray:
    """log of d E[H|alpha] / d alpha = K psi1(K alpha + 1) - psi1(alpha + 1) (unnormalised)."""
    out = np.empty_like(alpha)
    big = alpha > 1e3
    a = alpha[~big]
    out[~big] = np.log(np.maximum(k * polygamma(1, k * a + 1) - polygamma(1, a + 1), 1e-300))
    a = alpha[big]
    # asymptotic series: avoids cancellation between two nearly equal trigammas
    val = (1 - 1 / k) / (2 * a**2) - (1 - 1 / k**2) / (6 * a**3) + (1 - 1 / k**4) / (30 * a**5)
    out[big] = np.log(np.maximum(val, 1e-300))
    return out


def _nsb_moments(
    alpha: np.ndarray, vals: np.ndarray, mult: np.ndarray, k: float, n: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """log evidence + log prior, E[H|n,alpha], E[H^2|n,alpha] on a grid of alphas."""
    al = alpha[:, None]
    a = vals[None, :] + al  # Dirichlet posterior parameters, one column per count group
    c = mult[None, :]
    A = n + k * alpha
    m = mult.sum()
    c0 = k - m  # unseen symbols: posterior parameter alpha
    loge = (
        gammaln(k * alpha) - gammaln(n + k * alpha) + (c * (gammaln(a) - gammaln(al))).sum(axis=1)
    )
    logw = loge + _log_prior(alpha, k) + np.log(alpha)
    # first moment (Wolpert & Wolf): psi(A+1) - sum_i a_i/A psi(a_i+1)
    s_seen = (c * a * digamma(a + 1)).sum(axis=1)
    s_unseen = c0 * alpha * digamma(alpha + 1)
    mean = digamma(A + 1) - (s_seen + s_unseen) / A
    # second moment
    dA2 = digamma(A + 2)
    t1A = polygamma(1, A + 2)
    ii = digamma(a + 1) - dA2[:, None]
    i0 = digamma(alpha + 1) - dA2
    s1 = (c * a * ii).sum(axis=1) + c0 * alpha * i0
    s2 = (c * (a * ii) ** 2).sum(axis=1) + c0 * (alpha * i0) ** 2
    sa2 = (c * a * a).sum(axis=1) + c0 * alpha * alpha
    term1 = s1 * s1 - s2 - t1A * (A * A - sa2)
    jj = digamma(a + 2) - dA2[:, None]
    j0 = digamma(alpha + 2) - dA2
    term2 = (c * a * (a + 1) * (jj * jj + polygamma(1, a + 2) - t1A[:, None])).sum(axis=1)
    term2 += c0 * alpha * (alpha + 1) * (j0 * j0 + polygamma(1, alpha + 2) - t1A)
    second = (term1 + term2) / (A * (A + 1))
    return logw, mean, second


def nsb(c: np.ndarray, k: float) -> tuple[float, float, dict]:
    """NSB entropy: posterior mean and sd under the Nemenman–Shafee–Bialek prior.

    Works in log space on a grid over ``log alpha``: a coarse scan locates the
    posterior mass, a fine grid integrates it.  Never returns NaN or inf for
    ``N >= 1`` and ``K >= m``.

    Returns
    -------
    (mean, sd, info)
        ``info`` holds the posterior mode of alpha and the grid used.
    """
    c = _nz(c)
    n = float(c.sum())
    m = c.size
    if k < m:
        raise ValueError(f"alphabet size {k} is smaller than the {m} symbols observed")
    if k <= 1 or n == 0:
        return 0.0, 0.0, {"alpha_map": None}
    vals, mult = np.unique(c, return_counts=True)
    vals = vals.astype(np.float64)
    mult = mult.astype(np.float64)
    k = float(k)
    lo, hi = np.log(1e-8 / k), np.log(1e7)
    xi = np.linspace(lo, hi, 1200)
    logw, _, _ = _nsb_moments(np.exp(xi), vals, mult, k, n)
    keep = np.flatnonzero(logw > logw.max() - 50.0)
    step = xi[1] - xi[0]
    a_lo = max(lo, xi[keep[0]] - step)
    a_hi = min(hi, xi[keep[-1]] + step)
    xi = np.linspace(a_lo, a_hi, 2001)
    logw, mean, second = _nsb_moments(np.exp(xi), vals, mult, k, n)
    w = np.exp(logw - logsumexp(logw))  # uniform grid: trapezoid weights ~ equal
    w[0] *= 0.5
    w[-1] *= 0.5
    w /= w.sum()
    h = float((w * mean).sum())
    var = float((w * second).sum()) - h * h
    sd = float(np.sqrt(max(var, 0.0)))
    h = min(max(h, 0.0), float(np.log(k)))
    return h, sd, {"alpha_map": float(np.exp(xi[np.argmax(logw)]))}
