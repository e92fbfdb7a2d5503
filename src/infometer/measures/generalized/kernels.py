"""Pure kernels for Rényi and Tsallis entropies and divergences (numpy in, floats out).

Conventions (nats): Rényi ``H_a(p) = log(sum p^a) / (1 - a)`` with the limits ``a = 0``
(log of the support size), ``a = 1`` (Shannon) and ``a = inf`` (``-log max p``); Tsallis
``S_q(p) = (1 - sum p^q) / (q - 1)`` (Shannon at ``q = 1``).  Rényi divergence
``D_a(P‖Q) = log(sum p^a q^(1-a)) / (a - 1)`` (KL at ``a = 1``, ``log max p/q`` at inf,
``-log Q(supp P)`` at 0); van Erven & Harremoës (2014).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "log_power_sum",
    "renyi",
    "tsallis",
    "tsallis_from_renyi",
    "falling_power_sum",
    "renyi_divergence",
    "tsallis_divergence",
    "jensen",
    "lps_log_power_mean",
]


def _shannon(p: np.ndarray) -> float:
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())


def log_power_sum(p: np.ndarray, a: float) -> float:
    """``log sum_i p_i^a`` over the support, computed in log space."""
    from scipy.special import logsumexp

    p = p[p > 0]
    return float(logsumexp(a * np.log(p)))


def renyi(p: np.ndarray, a: float) -> float:
    """Rényi entropy of order ``a >= 0`` of the pmf ``p`` (nats)."""
    if a == 1.0:
        return _shannon(p)
    if a == 0.0:
        return float(np.log(np.count_nonzero(p)))
    if math.isinf(a):
        return float(-np.log(p.max()))
    return log_power_sum(p, a) / (1.0 - a)


def tsallis_from_renyi(h: float, q: float) -> float:
    """Tsallis entropy from the Rényi entropy of the same order: ``(1 - e^{(1-q)H}) / (q-1)``."""
    if q == 1.0:
        return h
    if math.isinf(q):
        return 0.0
    return float(-np.expm1((1.0 - q) * h) / (q - 1.0))


def tsallis(p: np.ndarray, q: float) -> float:
    """Tsallis entropy of index ``q > 0`` of the pmf ``p`` (nats)."""
    if q == 1.0:
        return _shannon(p)
    if math.isinf(q):
        return 0.0
    return float(-np.expm1(log_power_sum(p, q)) / (q - 1.0))


def falling_power_sum(counts: np.ndarray, a: int) -> float:
    """Unbiased estimate of ``sum p^a`` for an integer ``a >= 2`` from multinomial counts:
    ``sum_i n_i (n_i - 1)...(n_i - a + 1) / (N (N - 1)...(N - a + 1))`` (the falling
    factorial moments; Grassberger 1988, Acharya et al. 2017)."""
    c = counts.astype(np.float64)
    n = float(c.sum())
    num = np.ones_like(c)
    den = 1.0
    for j in range(a):
        num *= np.maximum(c - j, 0.0)
        den *= n - j
    return float(num.sum() / den)


def renyi_divergence(p: np.ndarray, q: np.ndarray, a: float) -> float:
    """Rényi divergence of order ``a >= 0`` (nats); ``inf`` when it is infinite."""
    sp = p > 0
    if a == 0.0:
        mass = float(q[sp].sum())
        return float("inf") if mass == 0 else float(-np.log(mass))
    miss = bool(np.any(q[sp] == 0))
    if a >= 1.0 and miss:
        return float("inf")
    if a == 1.0:
        return float((p[sp] * np.log(p[sp] / q[sp])).sum())
    if math.isinf(a):
        return float(np.log((p[sp] / q[sp]).max()))
    from scipy.special import logsumexp

    both = sp & (q > 0)
    if not both.any():
        return float("inf")
    lse = float(logsumexp(a * np.log(p[both]) + (1 - a) * np.log(q[both])))
    return lse / (a - 1.0)


def tsallis_divergence(p: np.ndarray, q: np.ndarray, a: float) -> float:
    """Tsallis relative entropy ``(sum p^a q^(1-a) - 1) / (a - 1)`` (KL at ``a = 1``)."""
    d = renyi_divergence(p, q, a)
    if a == 1.0 or math.isinf(d):
        return d
    return float(np.expm1((a - 1.0) * d) / (a - 1.0))


def jensen(pmfs: np.ndarray, weights: np.ndarray, a: float, kind: str = "renyi") -> float:
    """``H_a(sum_i w_i P_i) - sum_i w_i H_a(P_i)``: Jensen–Shannon (``a = 1``), Jensen–Rényi
    (He, Hamza & Krim 2003) or Jensen–Tsallis divergence of the rows of ``pmfs``."""
    f = renyi if kind == "renyi" else tsallis
    m = weights @ pmfs
    return f(m, a) - float(sum(w * f(r, a) for w, r in zip(weights, pmfs, strict=True)))


def lps_log_power_mean(
    log_rho: np.ndarray, n: int, k: int, d: int, q: float, log_vd: float
) -> float:
    """``log I_hat`` of Leonenko, Pronzato & Savani (2008), ``I_hat = mean(zeta^(1-q))`` with
    ``zeta_i = (N - 1) C_k V_d rho_i^d`` and ``C_k = [Gamma(k) / Gamma(k + 1 - q)]^(1/(1-q))``;
    ``I_hat`` estimates ``int f^q`` consistently for ``q < k + 1``.  ``rho_i`` is the
    distance to the k-th nearest other point.  (At ``q = 1`` the caller uses the Shannon
    limit ``log(N-1) - psi(k) + log V_d + d mean log rho``.)"""
    from scipy.special import gammaln, logsumexp

    log_ck = (gammaln(k) - gammaln(k + 1 - q)) / (1.0 - q)
    log_zeta = math.log(n - 1) + log_ck + log_vd + d * log_rho
    return float(logsumexp((1.0 - q) * log_zeta) - math.log(n))
