"""Gaussian (log-det) and Gaussian-copula estimators of H, MI, CMI and KL.

Kernels are pure functions on float arrays (rows = samples); the registered
estimators at the bottom wrap them for :mod:`infometer.registry`.

Bias correction (``bias_correct=True``, the default): with ``W`` the scatter matrix of
``n`` centred samples of a d-dimensional Gaussian, ``W ~ Wishart(n - 1, Σ)`` and
``E[log det W] = log det Σ + d log 2 + Σ_{i=1..d} ψ((n - i)/2)`` (e.g. Goodman 1963;
the correction used by GCMI, Ince et al. 2017).  Subtracting the known terms makes
``log det Σ``, hence every entropy, MI and CMI below, exactly unbiased for Gaussian data.

References
----------
* Cover & Thomas (2006), *Elements of Information Theory*, §8.4 (Gaussian entropy).
* Ince, Giordano, Kayser, Rousselet, Gross & Schyns (2017), Hum. Brain Mapp. 38:1541
  (Gaussian-copula MI, bias correction).
* Barnett, Barrett & Seth (2009), Phys. Rev. Lett. 103:238701 (Granger = 2 × Gaussian TE).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.special import digamma, ndtri
from scipy.stats import rankdata

from ..data import Variable
from ..registry import Raw, register

__all__ = [
    "copula_normalize",
    "logdet_sigma",
    "gaussian_entropy",
    "gaussian_entropy_terms",
    "gaussian_kl",
]

_LOG2PIE = np.log(2 * np.pi) + 1.0


class SingularCovariance(ValueError):
    """The sample covariance of some block is singular (collinear or constant columns)."""


def logdet_sigma(scatter: np.ndarray, n: int, bias_correct: bool) -> float:
    """Estimate ``log det Σ`` from the scatter matrix of ``n`` centred samples.

    Without correction this is the maximum-likelihood ``log det(W / n)``; with it, the
    unbiased ``log det W - d log 2 - Σ ψ((n - i)/2)``.
    """
    d = scatter.shape[0]
    sign, ld = np.linalg.slogdet(scatter)
    if sign <= 0 or not np.isfinite(ld):
        raise SingularCovariance("sample covariance is singular")
    if not bias_correct:
        return float(ld - d * np.log(n))
    i = np.arange(1, d + 1)
    return float(ld - d * np.log(2.0) - digamma((n - i) / 2.0).sum())


def _scatter(a: np.ndarray) -> np.ndarray:
    c = a - a.mean(axis=0)
    return c.T @ c


def gaussian_entropy(a: np.ndarray, bias_correct: bool = True) -> float:
    """Differential entropy ``½ log det(2πe Σ)`` of a Gaussian fit to ``a`` (n, d), in nats."""
    a = np.asarray(a, dtype=np.float64)
    n, d = a.shape
    return 0.5 * (logdet_sigma(_scatter(a), n, bias_correct) + d * _LOG2PIE)


def gaussian_entropy_terms(
    a: np.ndarray,
    groups: Sequence[Sequence[int]],
    terms: Sequence[tuple[float, Sequence[int]]],
    bias_correct: bool = True,
) -> float:
    """Signed sum of Gaussian entropies of column blocks of ``a``.

    ``groups[g]`` lists the columns of variable ``g``; each term ``(sign, (g1, g2, ...))``
    adds ``sign * H(variables g1, g2, ...)``.  One scatter matrix serves every term.
    """
    a = np.asarray(a, dtype=np.float64)
    n = a.shape[0]
    w = _scatter(a)
    total = 0.0
    for sign, gs in terms:
        cols = np.concatenate([np.asarray(groups[g], dtype=np.intp) for g in gs])
        block = w[np.ix_(cols, cols)]
        total += sign * 0.5 * (logdet_sigma(block, n, bias_correct) + cols.size * _LOG2PIE)
    return total


def gaussian_kl(p: np.ndarray, q: np.ndarray, bias_correct: bool = True) -> float:
    """KL divergence ``D(N_p ‖ N_q)`` between Gaussian fits to samples ``p`` and ``q``.

    ``½[tr(Σq⁻¹Σp) + δᵀΣq⁻¹δ − d + log det Σq − log det Σp]`` with ``δ = μq − μp``.
    With ``bias_correct`` every term is replaced by an unbiased estimate under
    Gaussian sampling: the log-dets by the Wishart correction, and, using
    ``E[Sq⁻¹] = (nq−1)/(nq−d−2) Σq⁻¹`` (inverse Wishart) and
    ``E[δ̂δ̂ᵀ] = δδᵀ + Σp/np + Σq/nq``, the trace and the quadratic form.
    """
    p = np.asarray(p, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    n_p, d = p.shape
    n_q = q.shape[0]
    wp, wq = _scatter(p), _scatter(q)
    sp, sq = wp / (n_p - 1), wq / (n_q - 1)
    try:
        sq_inv = np.linalg.inv(sq)
    except np.linalg.LinAlgError as exc:
        raise SingularCovariance("sample covariance of q is singular") from exc
    delta = q.mean(axis=0) - p.mean(axis=0)
    trace = float(np.trace(sq_inv @ sp))
    quad = float(delta @ sq_inv @ delta)
    ld_p = logdet_sigma(wp, n_p, bias_correct)
    ld_q = logdet_sigma(wq, n_q, bias_correct)
    if bias_correct:
        c = (n_q - d - 2) / (n_q - 1)
        trace *= c
        quad = c * quad - trace / n_p - d / n_q
    else:
        # maximum-likelihood covariances throughout
        trace *= (n_p - 1) / n_p * n_q / (n_q - 1)
        quad *= n_q / (n_q - 1)
    return 0.5 * (trace + quad - d + ld_q - ld_p)


def copula_normalize(a: np.ndarray) -> np.ndarray:
    """Each column's ranks mapped to standard normal scores ``Φ⁻¹(rank / (n + 1))``.

    Ties get their average rank.  Strictly increasing transforms of a column leave
    the result unchanged.
    """
    a = np.asarray(a, dtype=np.float64)
    n = a.shape[0]
    return ndtri(rankdata(a, axis=0, method="average") / (n + 1.0))


# --------------------------------------------------------------------- registered
_TERMS = {
    1: [(1.0, (0,))],
    2: [(1.0, (0,)), (1.0, (1,)), (-1.0, (0, 1))],
    3: [(1.0, (0, 2)), (1.0, (1, 2)), (-1.0, (0, 1, 2)), (-1.0, (2,))],
}


def _stack(vs: Sequence[Variable]) -> tuple[np.ndarray, list[list[int]]]:
    groups, start = [], 0
    for v in vs:
        groups.append(list(range(start, start + v.d)))
        start += v.d
    return np.column_stack([v.values for v in vs]), groups


def _check_n(method: str, n: int, d: int, extra: int = 1) -> None:
    if n < d + 1 + extra:
        raise ValueError(
            f"method {method!r} needs more samples than dimensions: got n={n} for "
            f"{d} dimensions (at least {d + 1 + extra})"
        )


def _combo(method: str, vs: Sequence[Variable], bias_correct: bool, copula: bool) -> Raw:
    if not isinstance(bias_correct, bool):
        raise TypeError(f"bias_correct must be True or False, got {bias_correct!r}")
    a, groups = _stack(vs)
    n, d = a.shape
    _check_n(method, n, d)
    diag: dict = {"bias_correct": bias_correct}
    if copula:
        a = copula_normalize(a)
        ties = sum(v.n - len(np.unique(v.values[:, j])) for v in vs for j in range(v.d))
        if ties:
            diag["tied_values"] = int(ties)
    try:
        value = gaussian_entropy_terms(a, groups, _TERMS[len(vs)], bias_correct)
    except SingularCovariance:
        if len(vs) == 1:
            return Raw(
                value=float("-inf"),
                diagnostics={**diag, "singular_covariance": True},
                warnings=[f"{method}: {vs[0].name} has a singular covariance (constant or "
                          "collinear columns); its Gaussian entropy is -inf"],
            )
        return Raw(
            value=float("inf"),
            diagnostics={**diag, "singular_covariance": True},
            warnings=[f"{method}: the joint covariance is singular (a column is an exact linear "
                      "function of others); the Gaussian MI is infinite"],
        )
    warns: list[str] = []
    if len(vs) > 1 and value < 0:
        diag["negative"] = True
        warns.append(
            f"{method} estimate is negative ({value:.3g} nats): with bias correction an "
            "unbiased estimate of a small MI can fall below zero; it is not clipped"
        )
    return Raw(value=value, diagnostics=diag, warnings=warns)


@register("gaussian", ("entropy", "mutual_info", "cond_mutual_info"), kinds=("continuous",),
          family="parametric",
          summary="Gaussian fit (log-det of the covariance), Wishart bias-corrected; "
                  "exact for Gaussian data, blind to non-linear dependence")
def gaussian(*vs: Variable, bias_correct: bool = True) -> Raw:
    """Entropy / MI / CMI of the Gaussian with the sample covariance."""
    return _combo("gaussian", vs, bias_correct, copula=False)


@register("gaussian_copula", ("mutual_info", "cond_mutual_info"), kinds=("continuous",),
          family="parametric",
          summary="Gaussian-copula MI/CMI (GCMI, Ince et al. 2017): ranks -> normal scores, "
                  "then log-det; invariant to monotone transforms")
def gaussian_copula(*vs: Variable, bias_correct: bool = True) -> Raw:
    """MI / CMI of the Gaussian copula of the data (normal scores of the ranks)."""
    return _combo("gaussian_copula", vs, bias_correct, copula=True)


@register("gaussian", "kl_divergence", kinds=("continuous",), family="parametric",
          summary="KL divergence between Gaussian fits to p and q (unbiased under Gaussianity)")
def gaussian_kl_divergence(p: Variable, q: Variable, *, bias_correct: bool = True) -> Raw:
    """KL divergence between the Gaussians fitted to the samples of p and of q."""
    if not isinstance(bias_correct, bool):
        raise TypeError(f"bias_correct must be True or False, got {bias_correct!r}")
    d = p.d
    _check_n("gaussian", p.n, d, extra=1)
    _check_n("gaussian", q.n, d, extra=2)
    try:
        value = gaussian_kl(p.values, q.values, bias_correct)
    except SingularCovariance as exc:
        raise ValueError(
            f"method 'gaussian': {exc} (constant or collinear columns); KL between the "
            "Gaussian fits is undefined"
        ) from exc
    diag: dict = {"bias_correct": bias_correct}
    warns: list[str] = []
    if value < 0:
        diag["negative"] = True
        warns.append(f"gaussian KL estimate is negative ({value:.3g} nats): the unbiased "
                     "estimate of a small divergence can fall below zero; it is not clipped")
    return Raw(value=value, diagnostics=diag, warnings=warns)
