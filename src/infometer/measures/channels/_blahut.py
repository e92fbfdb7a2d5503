"""Blahut–Arimoto kernels: channel capacity and rate–distortion (numpy in, numpy out).

Both return certified bounds at the stop: the capacity lies in ``[lower, upper]`` and the
rate of the returned test channel is within ``gap`` of R(D) at its own distortion.

References
----------
* Blahut (1972), "Computation of channel capacity and rate-distortion functions",
  IEEE Trans. Inf. Theory 18:460 (Theorems 2 and 8: the bounds used here).
* Arimoto (1972), IEEE Trans. Inf. Theory 18:14.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["CapacityRun", "RDRun", "capacity", "rd_point", "row_divergences"]


@dataclass(frozen=True)
class CapacityRun:
    lower: float
    upper: float
    p: np.ndarray
    q: np.ndarray
    iterations: int
    converged: bool


@dataclass(frozen=True)
class RDRun:
    rate: float  # I(X; X^) of the returned test channel (an achievable rate at ``distortion``)
    lower: float  # certified lower bound on R(distortion)
    distortion: float
    q: np.ndarray  # output (reproduction) pmf
    channel: np.ndarray  # Q(x^ | x)
    iterations: int
    converged: bool


def row_divergences(W: np.ndarray, logW: np.ndarray, q: np.ndarray) -> np.ndarray:
    """D(W_x ‖ q) for every row x, 0·log 0 = 0 (``logW`` is log W with 0 where W = 0)."""
    with np.errstate(divide="ignore"):
        logq = np.log(q)
    # cells with W = 0 contribute 0 whatever q is; a row that puts mass where q = 0 (only
    # possible for an unused input) is infinitely far from q
    with np.errstate(invalid="ignore"):
        terms = np.where(W > 0, W * (logW - logq[None, :]), 0.0)
    return terms.sum(axis=1)


def capacity(W: np.ndarray, *, tol: float, max_iter: int) -> CapacityRun:
    """Capacity of the channel with rows ``W[x] = P(y | x)`` by Blahut–Arimoto.

    ``lower = I(p; W)`` of the current input ``p`` (achieved, so a lower bound) and
    ``upper = max_x D(W_x ‖ pW)`` (Gallager's bound, valid for any ``p``).  Iterates
    ``p ← p · exp(D(W_x ‖ pW))`` until ``upper - lower <= tol`` (nats).
    """
    nx = W.shape[0]
    logW = np.log(np.where(W > 0, W, 1.0))
    p = np.full(nx, 1.0 / nx)
    lower = upper = 0.0
    it = 0
    for it in range(1, max_iter + 1):
        q = p @ W
        D = row_divergences(W, logW, q)
        lower = float(p @ D)
        upper = float(D.max())
        if upper - lower <= tol:
            return CapacityRun(max(lower, 0.0), upper, p, q, it, True)
        p = p * np.exp(D - upper)
        p = np.maximum(p / p.sum(), 1e-300)
        p /= p.sum()
    q = p @ W
    return CapacityRun(max(lower, 0.0), upper, p, q, it, False)


def _mi_of_channel(p: np.ndarray, Q: np.ndarray, q: np.ndarray) -> float:
    from scipy.special import xlogy

    return float((p[:, None] * xlogy(Q, Q)).sum() - xlogy(q, q).sum())


def rd_point(
    p: np.ndarray,
    d: np.ndarray,
    beta: float,
    *,
    q0: np.ndarray | None,
    tol: float,
    max_iter: int,
) -> RDRun:
    """One point of R(D) at slope ``-beta`` (``beta >= 0``) by Blahut's iteration.

    With ``A = exp(-beta d)``, ``Z_x = sum_z q_z A_xz`` and ``c_z = sum_x p_x A_xz / Z_x``,
    the test channel is ``Q(z|x) = q_z A_xz / Z_x`` and its output ``q' = q c``.  Its rate
    ``I(p, Q)`` is achievable at its distortion ``D_Q`` (an upper bound on R(D_Q)) and
    ``I(p, Q) - (max_z log c_z - sum_z q'_z log c_z)`` is a lower bound (Blahut 1972,
    Theorem 8); the iteration stops when that gap is ``<= tol``.
    """
    nz = d.shape[1]
    # row shifts do not change Q or c, and keep exp() in range
    A = np.exp(-beta * (d - d.min(axis=1, keepdims=True)))
    q = np.full(nz, 1.0 / nz) if q0 is None else q0.copy()
    pos = p > 0
    it, gap = 0, np.inf
    for it in range(1, max_iter + 1):
        Z = A @ q
        c = (p[pos] / Z[pos]) @ A[pos]
        q_new = q * c
        q_new /= q_new.sum()
        with np.errstate(divide="ignore"):
            logc = np.log(c)
        used = q_new > 0
        gap = float(logc.max() - (q_new[used] * logc[used]).sum())
        if gap <= tol or it == max_iter:
            break  # the bounds below belong to the test channel of this q
        q = q_new
    Z = A @ q
    Q = q[None, :] * A / Z[:, None]
    q_out = p @ Q
    rate = max(_mi_of_channel(p, Q, q_out), 0.0)
    dist = float(p @ (Q * d).sum(axis=1))
    return RDRun(rate, max(rate - max(gap, 0.0), 0.0), dist, q_out, Q, it, gap <= tol)
