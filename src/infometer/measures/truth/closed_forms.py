"""Closed-form information quantities used as ground truth (all in nats).

References
----------
Cover & Thomas, *Elements of Information Theory* (Gaussian entropy, MI, KL).
Arellano-Valle, Contreras-Reyes & Genton, Scand. J. Stat. 40 (2013): entropy of the
multivariate Student t; MI computed as h(X) + h(Y) − h(X, Y) (as bmi does; the paper's
own MI formula is slightly wrong).
Czyż et al., "Beyond Normal", NeurIPS 2023 (additive uniform noise).
Gao, Kannan, Oh & Viswanath, NeurIPS 2017 (mixed discrete-continuous samplers).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.integrate import quad
from scipy.special import digamma, gammaln, xlogy

from infometer.core._deprecation import deprecated_alias
from infometer.core.data import check_float, check_int

__all__ = [
    "gaussian_entropy",
    "gaussian_mutual_info",
    "gaussian_cond_mutual_info",
    "gaussian_kl",
    "bivariate_normal_mutual_info",
    "correlation_for_mutual_info",
    "student_t_entropy",
    "student_t_mutual_info",
    "additive_uniform_mutual_info",
    "discrete_uniform_mixture_mutual_info",
    "zero_inflated_poissonization_mutual_info",
    "lvm_correlation",
]


def _cov(cov: np.ndarray, name: str = "cov") -> np.ndarray:
    c = np.atleast_2d(np.asarray(cov, dtype=np.float64))
    if c.ndim != 2 or c.shape[0] != c.shape[1]:
        raise ValueError(f"{name} must be a square matrix, got shape {c.shape}")
    if not np.allclose(c, c.T, atol=1e-12):
        raise ValueError(f"{name} must be symmetric")
    return c


def _logdet(c: np.ndarray, name: str = "cov") -> float:
    sign, ld = np.linalg.slogdet(c)
    if sign <= 0:
        raise ValueError(f"{name} must be positive definite")
    return float(ld)


def gaussian_entropy(cov: np.ndarray) -> float:
    """h(N(μ, Σ)) = ½ [log det Σ + d (1 + log 2π)]."""
    c = _cov(cov)
    d = c.shape[0]
    return 0.5 * (_logdet(c) + d * (1.0 + math.log(2 * math.pi)))


def gaussian_mutual_info(cov: np.ndarray, dim_x: int) -> float:
    """I(X;Y) = ½ log(det Σ_XX det Σ_YY / det Σ) with X the first ``dim_x`` coordinates."""
    c = _cov(cov)
    dim_x = check_int(dim_x, "dim_x", min_value=1, max_value=c.shape[0] - 1)
    v = 0.5 * (_logdet(c[:dim_x, :dim_x]) + _logdet(c[dim_x:, dim_x:]) - _logdet(c))
    return max(v, 0.0)  # round-off can give -1e-16 for independent blocks


def gaussian_cond_mutual_info(cov: np.ndarray, dim_x: int, dim_y: int) -> float:
    """I(X;Y|Z) for a Gaussian with coordinates ordered (X, Y, Z).

    ``½ log(det Σ_XZ det Σ_YZ / (det Σ_Z det Σ))``.
    """
    c = _cov(cov)
    dim_x = check_int(dim_x, "dim_x", min_value=1)
    dim_y = check_int(dim_y, "dim_y", min_value=1)
    d = c.shape[0]
    if dim_x + dim_y >= d:
        raise ValueError("cov must have at least one Z coordinate after X and Y")
    ix, iy, iz = np.arange(dim_x), np.arange(dim_x, dim_x + dim_y), np.arange(dim_x + dim_y, d)
    xz, yz = np.r_[ix, iz], np.r_[iy, iz]
    v = 0.5 * (
        _logdet(c[np.ix_(xz, xz)])
        + _logdet(c[np.ix_(yz, yz)])
        - _logdet(c[np.ix_(iz, iz)])
        - _logdet(c)
    )
    return max(v, 0.0)


def gaussian_kl(mu0: np.ndarray, cov0: np.ndarray, mu1: np.ndarray, cov1: np.ndarray) -> float:
    """KL(N₀‖N₁) = ½[tr(Σ₁⁻¹Σ₀) + (μ₁−μ₀)ᵀΣ₁⁻¹(μ₁−μ₀) − d + log det Σ₁ − log det Σ₀]."""
    c0, c1 = _cov(cov0, "cov0"), _cov(cov1, "cov1")
    m0, m1 = np.atleast_1d(np.asarray(mu0, float)), np.atleast_1d(np.asarray(mu1, float))
    d = c0.shape[0]
    if c1.shape != c0.shape or m0.shape != (d,) or m1.shape != (d,):
        raise ValueError("mu0, cov0, mu1, cov1 must have matching dimensions")
    dm = m1 - m0
    sol = np.linalg.solve(c1, np.column_stack([c0, dm]))
    return 0.5 * (
        float(np.trace(sol[:, :d]))
        + float(dm @ sol[:, d])
        - d
        + _logdet(c1, "cov1")
        - _logdet(c0, "cov0")
    )


def bivariate_normal_mutual_info(rho: float) -> float:
    """−½ log(1 − ρ²)."""
    r = check_float(rho, "rho", low=-1.0, high=1.0, inclusive=(False, False))
    return -0.5 * math.log1p(-r * r)


def correlation_for_mutual_info(mi: float, n_pairs: int = 1) -> float:
    """ρ giving ``n_pairs`` independent pairs total MI ``mi``: ρ = √(1 − e^{−2I/d})."""
    mi = check_float(mi, "mi", low=0.0)
    n_pairs = check_int(n_pairs, "n_pairs", min_value=1)
    return math.sqrt(-math.expm1(-2.0 * mi / n_pairs))


def student_t_entropy(dim: int, df: float) -> float:
    """Entropy (nats) of the standard ``dim``-variate Student t with identity dispersion.

    ``−log Γ((ν+k)/2) + log Γ(ν/2) + (k/2) log(νπ) + ((ν+k)/2)[ψ((ν+k)/2) − ψ(ν/2)]``.
    """
    k = check_int(dim, "dim", min_value=1)
    nu = check_float(df, "df", low=0.0, inclusive=(False, True))
    a = (nu + k) / 2.0
    return float(
        -gammaln(a)
        + gammaln(nu / 2)
        + 0.5 * k * math.log(nu * math.pi)
        + a * (digamma(a) - digamma(nu / 2))
    )


def student_t_mutual_info(dispersion: np.ndarray, dim_x: int, df: float) -> float:
    """I(X;Y) of a multivariate Student t: Gaussian part plus the ν-correction.

    ``I = I_Gauss(Σ) + h_ν(d_x) + h_ν(d_y) − h_ν(d_x + d_y)`` with ``h_ν`` from
    :func:`student_t_entropy` (the log det terms of the entropies give ``I_Gauss``).
    """
    c = _cov(dispersion, "dispersion")
    dim_x = check_int(dim_x, "dim_x", min_value=1, max_value=c.shape[0] - 1)
    dim_y = c.shape[0] - dim_x
    corr = (
        student_t_entropy(dim_x, df)
        + student_t_entropy(dim_y, df)
        - student_t_entropy(dim_x + dim_y, df)
    )
    return gaussian_mutual_info(c, dim_x) + corr


def additive_uniform_mutual_info(epsilon: float) -> float:
    """X ~ U(0,1), Y = X + U(−ε, ε): ``ε − log 2ε`` (ε ≤ ½) or ``1/(4ε)`` (ε > ½)."""
    e = check_float(epsilon, "epsilon", low=0.0, inclusive=(False, True))
    return e - math.log(2 * e) if e <= 0.5 else 1.0 / (4 * e)


def discrete_uniform_mixture_mutual_info(m: int) -> float:
    """X ~ U{0..m−1}, Y | X ~ U(X, X + 2): ``log m − ((m−1)/m) log 2`` (Gao et al. 2017)."""
    m = check_int(m, "m", min_value=1)
    return math.log(m) - (m - 1) / m * math.log(2)


def zero_inflated_poissonization_mutual_info(p: float = 0.15, k_max: int = 200) -> float:
    """Exact I(X;Y) for X ~ Exp(1), Y | X = p·δ₀ + (1−p)·Poisson(X), by quadrature.

    The marginal is ``P(Y=0) = p + (1−p)/2`` and ``P(Y=k) = (1−p)/2^{k+1}``; each term
    ``∫ e^{−x} P(k|x) log(P(k|x)/P(k)) dx`` is integrated numerically (terms decay like
    2^{−k}, so ``k_max = 200`` is exact to double precision).
    """
    p = check_float(p, "p", low=0.0, high=1.0, inclusive=(True, False))
    total = 0.0
    for k in range(k_max + 1):
        pk = p + (1 - p) / 2 if k == 0 else (1 - p) / 2 ** (k + 1)
        lgk = math.lgamma(k + 1)

        def f(x: float, k: int = k, pk: float = pk, lgk: float = lgk) -> float:
            lp = k * math.log(x) - x - lgk if x > 0 else (0.0 if k == 0 else -math.inf)
            pois = math.exp(lp)
            cond = (p + (1 - p) * pois) if k == 0 else (1 - p) * pois
            return math.exp(-x) * float(xlogy(cond, cond / pk)) if cond > 0 else 0.0

        val, _ = quad(f, 0.0, np.inf, limit=200, epsabs=1e-14, epsrel=1e-12)
        total += val
        if k > 10 and abs(val) < 1e-18:
            break
    return total


def lvm_correlation(
    dim_x: int,
    dim_y: int,
    n_interacting: int,
    alpha: float = 0.0,
    lambd: float = 2.0,
    beta: float = 0.0,
    epsilon: float = 1.0,
    eta: float | None = None,
) -> np.ndarray:
    """Correlation matrix of the Beyond Normal Gaussian latent-variable model.

    ``X_i = α U + β U_X + λ Z_i [i < K] + ε E_i + η V_i [i ≥ K]`` and likewise for ``Y_i``
    (with ``U_Y``, ``F_i``, ``W_i``), all latents i.i.d. N(0, 1); ``η`` defaults to λ so
    every coordinate has the same variance.  The sparse "2-pair" tasks use K = 2, λ = 2,
    α = β = 0, ε = 1, which gives corr(X_i, Y_i) = λ²/(λ² + ε²) = 0.8 for i < 2, else 0.
    """
    dim_x = check_int(dim_x, "dim_x", min_value=1)
    dim_y = check_int(dim_y, "dim_y", min_value=1)
    k = check_int(n_interacting, "n_interacting", min_value=0, max_value=min(dim_x, dim_y))
    eta = lambd if eta is None else eta
    n = dim_x + dim_y
    cov = np.full((n, n), alpha**2)
    cov[:dim_x, :dim_x] += beta**2
    cov[dim_x:, dim_x:] += beta**2
    cov[np.diag_indices(n)] += epsilon**2
    for i in range(k):
        j = dim_x + i
        cov[i, j] += lambd**2
        cov[j, i] += lambd**2
        cov[i, i] += lambd**2
        cov[j, j] += lambd**2
    for i in list(range(k, dim_x)) + list(range(dim_x + k, n)):
        cov[i, i] += eta**2
    sd = np.sqrt(np.diag(cov))
    return cov / np.outer(sd, sd)


# The former abbreviated names, deprecated for one release (issue 29).
gaussian_mi = deprecated_alias(gaussian_mutual_info, "gaussian_mi")
gaussian_cmi = deprecated_alias(gaussian_cond_mutual_info, "gaussian_cmi")
bivariate_normal_mi = deprecated_alias(bivariate_normal_mutual_info, "bivariate_normal_mi")
correlation_for_mi = deprecated_alias(correlation_for_mutual_info, "correlation_for_mi")
student_t_mi = deprecated_alias(student_t_mutual_info, "student_t_mi")
additive_uniform_mi = deprecated_alias(additive_uniform_mutual_info, "additive_uniform_mi")
discrete_uniform_mixture_mi = deprecated_alias(
    discrete_uniform_mixture_mutual_info, "discrete_uniform_mixture_mi"
)
zero_inflated_poissonization_mi = deprecated_alias(
    zero_inflated_poissonization_mutual_info, "zero_inflated_poissonization_mi"
)
