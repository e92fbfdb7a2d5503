"""Closed-form ground truth used by the kNN tests (independent of the estimators)."""

from __future__ import annotations

import numpy as np
from scipy.special import digamma, gammaln


def gauss_entropy(cov: np.ndarray) -> float:
    """h(N(mu, cov)) = 1/2 log det(2 pi e cov)."""
    cov = np.atleast_2d(cov)
    return 0.5 * float(np.linalg.slogdet(2 * np.pi * np.e * cov)[1])


def gauss_cmi(cov: np.ndarray, ix: list[int], iy: list[int], iz: list[int]) -> float:
    """I(X;Y|Z) of a Gaussian by log-dets (iz=[] gives I(X;Y))."""
    def ld(idx: list[int]) -> float:
        return float(np.linalg.slogdet(cov[np.ix_(idx, idx)])[1]) if idx else 0.0

    return 0.5 * (ld(ix + iz) + ld(iy + iz) - ld(iz) - ld(ix + iy + iz))


def gauss_kl(m0, c0, m1, c1) -> float:
    """KL(N(m0, c0) || N(m1, c1))."""
    c0, c1 = np.atleast_2d(c0), np.atleast_2d(c1)
    dm = np.asarray(m1, float) - np.asarray(m0, float)
    d = c0.shape[0]
    return 0.5 * float(
        np.trace(np.linalg.solve(c1, c0)) + dm @ np.linalg.solve(c1, dm) - d
        + np.linalg.slogdet(c1)[1] - np.linalg.slogdet(c0)[1]
    )


def student_entropy(nu: float, k: int) -> float:
    """Entropy of a standard k-variate Student-t with identity dispersion (Arellano-Valle 2013)."""
    a = (nu + k) / 2
    return float(
        -gammaln(a) + gammaln(nu / 2) + k / 2 * np.log(nu * np.pi)
        + a * (digamma(a) - digamma(nu / 2))
    )


def student_mi(nu: float, dx: int, dy: int) -> float:
    """I(X;Y) of a (dx + dy)-variate Student-t with identity dispersion: h(X) + h(Y) - h(X,Y)."""
    return student_entropy(nu, dx) + student_entropy(nu, dy) - student_entropy(nu, dx + dy)


def additive_uniform_mi(eps: float) -> float:
    """I(X; X + U(-eps, eps)) for X ~ U(0, 1)."""
    return eps - np.log(2 * eps) if eps <= 0.5 else 1 / (4 * eps)


def mixed_uniform_mi(m: int) -> float:
    """X ~ U{0..m-1}, Y | X ~ U(X, X + 2): I = log m - (m - 1)/m log 2 (Gao et al. 2017)."""
    return float(np.log(m) - (m - 1) / m * np.log(2))
