"""Pure numeric kernels of matrix-based Rényi entropy (Sánchez Giraldo, Rao & Príncipe 2014).

A variable of ``n`` samples is represented by a positive semi-definite ``n × n`` kernel
(Gram) matrix ``K``.  Its normalised form ``A = K / tr K`` has non-negative eigenvalues
summing to one, and

    S_α(A) = log(Σ_i λ_i(A)^α) / (1 − α),      S_1(A) = −Σ_i λ_i log λ_i  (von Neumann).

For kernels with a constant diagonal (RBF, delta) ``K / tr K`` equals the paper's
``A_ij = K_ij / (n sqrt(K_ii K_jj))``.  Joint entropy uses the Hadamard product
``A∘B / tr(A∘B)``; since only the *normalised* spectrum matters, every function below
works on unnormalised kernels and normalises eigenvalues by their sum.

A kernel is stored either as explicit features ``Φ`` (``K = Φ Φᵀ``: the centred data for the
linear kernel, one-hot codes for the delta kernel) or as the Gram matrix itself (RBF).  With
features the non-zero spectrum of ``Φ Φᵀ`` is that of the smaller ``Φᵀ Φ``, so the linear
kernel costs ``O(n d²)`` (the covariance form) instead of ``O(n³)``, and the Hadamard product
of feature kernels is the kernel of the row-wise Kronecker product of their features.

All values are in nats.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import xlogy

__all__ = [
    "KernelRep",
    "linear_rep",
    "delta_rep",
    "rbf_rep",
    "median_sigma",
    "centred_unit",
    "hadamard",
    "spectrum",
    "renyi_from_spectrum",
    "renyi_entropy",
    "covariance_spectrum",
    "effective_rank_from_spectrum",
    "MAX_FEATURES",
    "relative_difference_sq",
]

#: Largest feature dimension kept explicit before a joint falls back to its Gram matrix.
MAX_FEATURES = 4096


@dataclass(frozen=True)
class KernelRep:
    """One kernel matrix, as features (``K = Φ Φᵀ``) or as an explicit Gram matrix."""

    features: np.ndarray | None = None
    gram: np.ndarray | None = None

    @property
    def n(self) -> int:
        a = self.features if self.features is not None else self.gram
        assert a is not None
        return int(a.shape[0])

    def as_gram(self) -> np.ndarray:
        if self.gram is not None:
            return self.gram
        assert self.features is not None
        return self.features @ self.features.T


def centred_unit(x: np.ndarray) -> tuple[np.ndarray, int]:
    """``(x_c 2^-e, e)``: the columns of ``x`` centred, then scaled by a power of two so that
    the largest value is about 1.

    Every kernel here depends on the data only through differences of rows (RBF) or the
    centred data (linear), and is invariant to one common scale once its bandwidth is
    scaled with it, so this changes no kernel.  It keeps the squared distances and Gram
    products finite and accurate: the expansion ``|a|² + |b|² − 2 a·b`` of uncentred data
    cancels catastrophically when the mean is large against the spread (an offset of 1e8),
    and squares of values near 1e±160 overflow or underflow.
    """
    x = np.asarray(x, dtype=np.float64)
    if not x.size:
        return x, 0
    e0 = _exponent(x)  # first to about 1, so that the mean cannot overflow
    xc = x * np.ldexp(1.0, -e0)
    xc -= xc.mean(axis=0)
    e1 = _exponent(xc)
    return xc * np.ldexp(1.0, -e1), e0 + e1


def _exponent(x: np.ndarray) -> int:
    """e with ``2^(e-1) <= max |x| < 2^e``, within ±1000 (``2^-e`` stays a normal number)."""
    top = float(np.max(np.abs(x)))
    return min(max(int(np.frexp(top)[1]), -1000), 1000) if top > 0 else 0


def linear_rep(x: np.ndarray) -> KernelRep:
    """Linear kernel on centred data: ``K = X_c X_cᵀ`` (the covariance form), up to the
    power-of-two scale of :func:`centred_unit` (every use normalises by the trace)."""
    return KernelRep(features=centred_unit(x)[0])


def delta_rep(codes: np.ndarray) -> KernelRep:
    """Delta kernel ``K_ij = 1[c_i = c_j]`` on integer codes: one-hot features.

    The normalised spectrum is the empirical distribution of the codes, so every matrix
    entropy of a delta kernel is the plug-in Rényi entropy of the symbols.
    """
    _, inv = np.unique(np.asarray(codes), return_inverse=True)
    inv = inv.ravel()
    onehot = np.zeros((inv.size, int(inv.max()) + 1))
    onehot[np.arange(inv.size), inv] = 1.0
    return KernelRep(features=onehot)


def _sq_dists(x: np.ndarray) -> np.ndarray:
    sq = np.einsum("ij,ij->i", x, x)
    d2 = sq[:, None] + sq[None, :] - 2.0 * (x @ x.T)
    np.maximum(d2, 0.0, out=d2)
    return d2


def median_sigma(x: np.ndarray, max_rows: int = 2000) -> float:
    """Median heuristic bandwidth: the median Euclidean distance between distinct rows.

    At most ``max_rows`` evenly spaced rows are used (deterministic).  Returns 0 when all
    rows are equal.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.shape[0] > max_rows:
        x = x[np.linspace(0, x.shape[0] - 1, max_rows).astype(np.int64)]
    xs, e = centred_unit(x)
    d2 = _sq_dists(xs)[np.triu_indices(xs.shape[0], k=1)]
    return float(np.ldexp(np.sqrt(np.median(d2)), e)) if d2.size else 0.0


def rbf_rep(x: np.ndarray, sigma: float) -> KernelRep:
    """Gaussian kernel ``K_ij = exp(−‖x_i − x_j‖² / (2σ²))`` (unit diagonal)."""
    xs, e = centred_unit(x)
    # sigma in the units of xs; past the float range there, the smallest or largest one
    with np.errstate(over="ignore", under="ignore"):
        su = float(np.ldexp(sigma, -e))
    su = min(max(su, float(np.finfo(np.float64).smallest_subnormal)), 1e308)
    # divided by sigma twice, not by sigma²: that squares to 0 for sigma below ~1e-154;
    # a distance far beyond sigma overflows to inf, whose kernel value exp(-inf) = 0 is exact
    with np.errstate(over="ignore"):
        return KernelRep(gram=np.exp(-(_sq_dists(xs) / su) / (2.0 * su)))


def hadamard(reps: Sequence[KernelRep], max_features: int = MAX_FEATURES) -> KernelRep:
    """Kernel of the joint variable: the Hadamard product of the kernels.

    Feature kernels combine by the row-wise Kronecker product while its width stays at most
    ``max_features`` and below ``n``; otherwise the Gram matrices are multiplied.
    """
    if len(reps) == 1:
        return reps[0]
    n = reps[0].n
    if all(r.features is not None for r in reps):
        width = int(np.prod([r.features.shape[1] for r in reps]))  # type: ignore[union-attr]
        if width <= min(max_features, n):
            f = reps[0].features
            for r in reps[1:]:
                f = np.einsum("ni,nj->nij", f, r.features).reshape(n, -1)
            return KernelRep(features=f)
    g = reps[0].as_gram().copy()
    for r in reps[1:]:
        g *= r.as_gram()
    return KernelRep(gram=g)


def spectrum(rep: KernelRep) -> np.ndarray:
    """Normalised eigenvalues (non-negative, summing to one) of a kernel matrix.

    Eigenvalues within rounding error of 0 (below ``size · eps · λ_max``, possibly negative)
    are set to 0.
    Raises ``ValueError`` when the kernel is zero (e.g. constant data, linear kernel).
    """
    if _use_features(rep):
        f = rep.features
        lam = np.linalg.eigvalsh(f.T @ f)
    else:
        lam = np.linalg.eigvalsh(rep.as_gram())
    # eigenvalues within rounding of 0 (numpy's matrix_rank tolerance) are 0: for α < 1
    # hundreds of ±1e-14 "zeros" of a rank-deficient Gram matrix would otherwise add λ^α
    lam = np.where(lam > lam.size * np.finfo(np.float64).eps * max(lam.max(), 0.0), lam, 0.0)
    total = lam.sum()
    if not total > 0:
        raise ValueError("the kernel matrix is zero (constant data under a linear kernel)")
    return lam / total


def renyi_from_spectrum(lam: np.ndarray, alpha: float) -> float:
    """``S_α = log(Σ λ^α) / (1 − α)``; ``α = 1`` gives ``−Σ λ log λ`` (nats).

    ``lam`` must be non-negative and sum to one.
    """
    if alpha == 1.0:
        return float(-xlogy(lam, lam).sum())
    pos = lam[lam > 0]
    # log Σ λ^α = α log λ_max + log Σ (λ/λ_max)^α: the sum is in [1, n], so no λ^α
    # underflows to 0 (NaN or ±inf at large α) and α → ∞ tends to -log λ_max
    top = float(pos.max())
    with np.errstate(under="ignore"):
        log_sum = alpha * math.log(top) + math.log(float(np.sum((pos / top) ** alpha)))
    return float(log_sum / (1.0 - alpha))


def renyi_entropy(rep: KernelRep, alpha: float) -> float:
    """Matrix-based Rényi α-entropy of one kernel (nats).

    ``α = 2`` needs no eigenvalues: ``Σ λ² = ‖K‖_F² / (tr K)²`` costs O(n²) instead of O(n³).
    """
    if alpha == 2.0:
        m = rep.features.T @ rep.features if _use_features(rep) else rep.as_gram()
        tr = float(np.trace(m))
        if not tr > 0:
            raise ValueError("the kernel matrix is zero (constant data under a linear kernel)")
        return float(-np.log(np.sum(m * m) / (tr * tr)))
    return renyi_from_spectrum(spectrum(rep), alpha)


def _use_features(rep: KernelRep) -> bool:
    return rep.features is not None and rep.features.shape[1] < rep.features.shape[0]


def covariance_spectrum(z: np.ndarray, ridge: float = 0.0) -> np.ndarray:
    """Normalised eigenvalues of the sample covariance of ``z`` (+ ``ridge · I``).

    ``ρ = Σ / tr Σ``; its entropy is the von Neumann entropy of the representation.
    """
    zc, e = centred_unit(z)  # ρ does not change with the scale; the ridge scales with it
    cov = zc.T @ zc / max(zc.shape[0] - 1, 1)
    if ridge:
        cov = cov + np.ldexp(ridge, -2 * e) * np.eye(cov.shape[0])
    return spectrum(KernelRep(gram=cov))


def effective_rank_from_spectrum(lam: np.ndarray) -> float:
    """``exp(−Σ p log p)`` of a normalised spectrum (Roy & Vetterli 2007)."""
    return float(np.exp(-xlogy(lam, lam).sum()))


def _inner(a: KernelRep, b: KernelRep) -> float:
    """Frobenius inner product ``tr(K_a K_b)`` (features: ``‖Φ_aᵀ Φ_b‖_F²``, O(n d²))."""
    if a.features is not None and b.features is not None:
        m = a.features.T @ b.features
        return float(np.sum(m * m))
    return float(np.sum(a.as_gram() * b.as_gram()))


def _trace(a: KernelRep) -> float:
    if a.features is not None:
        return float(np.sum(a.features * a.features))
    assert a.gram is not None
    return float(np.trace(a.gram))


def relative_difference_sq(a: KernelRep, b: KernelRep) -> float:
    """``‖A − B‖_F² / ‖A‖_F²`` of the unit-trace kernels ``A = K_a / tr K_a``, ``B`` alike.

    0 when the two variables induce the same normalised kernel (``y`` a copy of ``x`` at the
    kernel's resolution).  Computed from inner products, so it can come out a rounding error
    below 0; compare it with a threshold, never take its square root.
    """
    ta, tb = _trace(a), _trace(b)
    aa = _inner(a, a) / (ta * ta)
    if not aa > 0:
        return float("inf")
    return (aa + _inner(b, b) / (tb * tb) - 2.0 * _inner(a, b) / (ta * tb)) / aa
