"""Gaussian BROJA union information (pure: a covariance in, nats out).

BROJA (Bertschinger et al. 2014) for sources X, Y and target M:
``UI = min_{q ∈ Δ_p} I_q(M; X, Y)`` over the joint distributions with p's (M, X) and
(M, Y) marginals; then ``syn = I(M; X, Y) - UI``, ``unq_X = UI - I(M; Y)``,
``unq_Y = UI - I(M; X)``, ``red = I(M; X) + I(M; Y) - UI``.

Restricted to jointly Gaussian q (the ~G-PID of Venkatesh et al. 2023, NeurIPS) the only
free part of q is the covariance of X and Y given M.  Write ``X = H_X M + N_X``,
``Y = H_Y M + N_Y`` with the noises whitened (``Cov N_X = I``, ``Cov N_Y = I``, cross
covariance ``C``, any matrix with ``‖C‖₂ < 1``).  Then, with ``G = [H_X; H_Y]`` after
whitening and ``A = G Σ_M Gᵀ``,

    I_q(M; X, Y) = ½ [log det(N(C) + A) - log det N(C)],   N(C) = [[I, C], [Cᵀ, I]].

``N ↦ log det(N + A) - log det N`` is convex on positive definite N for ``A ⪰ 0`` (its
second derivative along D is ``tr((P₁ - P₂) D (P₁ + P₂) D) ≥ 0`` with ``P₁ = N⁻¹ ⪰
P₂ = (N + A)⁻¹``), and N(C) is affine in C, so damped Newton steps (exact gradient and
Hessian, backtracking that never leaves ``‖C‖₂ < 1``, where f is finite) from C = 0 find
the global minimum.  For a scalar target the minimum is
``max(I(M; X), I(M; Y))``, i.e. the MMI decomposition (Barrett 2015).  For a vector target
it is an upper bound on the unrestricted union information (q ranges over Gaussians
only), so unique information can only be over-, redundancy and synergy only
under-stated by it; that Gaussian q attain the unrestricted optimum is not established
in general.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["union_information", "whitened_channel"]


def _inv_sqrt(s: np.ndarray) -> np.ndarray:
    ev, vec = np.linalg.eigh(s)
    if ev[0] <= 1e-12 * max(ev[-1], 1e-300):
        raise ValueError(
            "a source is (nearly) a deterministic linear function of the target: its "
            "covariance given the target is singular, so the Gaussian BROJA PID is undefined"
        )
    return (vec / np.sqrt(ev)) @ vec.T


def whitened_channel(
    cov: np.ndarray, gx: Sequence[int], gy: Sequence[int], gm: Sequence[int]
) -> tuple[np.ndarray, np.ndarray]:
    """``A = G Σ_M Gᵀ`` of the whitened channel and p's own noise cross covariance C_p.

    Examples
    --------
    >>> cov = np.array([[2.0, 1.5, 1.0], [1.5, 2.0, 1.0], [1.0, 1.0, 1.0]])
    >>> a, c = whitened_channel(cov, [0], [1], [2])  # X = M + N_X, Y = M + N_Y
    >>> a.round(6).tolist(), c.round(6).tolist()  # Cov(N_X, N_Y) = 1.5 - 1
    ([[1.0, 1.0], [1.0, 1.0]], [[0.5]])
    """
    gx, gy, gm = (np.asarray(g, dtype=np.intp) for g in (gx, gy, gm))
    smm = cov[np.ix_(gm, gm)]
    smm_inv = np.linalg.inv(smm)
    hx = cov[np.ix_(gx, gm)] @ smm_inv
    hy = cov[np.ix_(gy, gm)] @ smm_inv
    nx = cov[np.ix_(gx, gx)] - hx @ smm @ hx.T
    ny = cov[np.ix_(gy, gy)] - hy @ smm @ hy.T
    wx, wy = _inv_sqrt(nx), _inv_sqrt(ny)
    g = np.vstack([wx @ hx, wy @ hy])
    cp = wx @ (cov[np.ix_(gx, gy)] - hx @ smm @ hy.T) @ wy.T
    return g @ smm @ g.T, cp


def _objective(c: np.ndarray, a: np.ndarray, hessian: bool = False):
    """``f(C) = ½[log det(N + A) - log det N]``, its gradient (dx, dy) and, with
    ``hessian``, its Hessian (dx·dy, dx·dy); ``inf`` outside ``‖C‖₂ < 1``."""
    dx, dy = c.shape
    nmat = np.eye(dx + dy)
    nmat[:dx, dx:] = c
    nmat[dx:, :dx] = c.T
    try:
        l0 = np.linalg.cholesky(nmat)
        l1 = np.linalg.cholesky(nmat + a)
    except np.linalg.LinAlgError:
        return np.inf, None, None
    f = float(np.log(np.diag(l1)).sum() - np.log(np.diag(l0)).sum())
    p0, p1 = np.linalg.inv(nmat), np.linalg.inv(nmat + a)
    g = (p1 - p0)[:dx, dx:]  # C sits in two blocks: d/dC of ½[...] is (P1 - P0)_xy
    if not hessian:
        return f, g, None

    def t(p):  # ½ tr(P E_ij P E_kl) for E_ij = e_i e_{dx+j}ᵀ + transpose
        pxx, pyy, pxy = p[:dx, :dx], p[dx:, dx:], p[:dx, dx:]
        return np.einsum("il,kj->ijkl", pxy, pxy) + np.einsum("ik,jl->ijkl", pxx, pyy)

    h = (t(p0) - t(p1)).reshape(dx * dy, dx * dy)
    return f, g, 0.5 * (h + h.T)


def union_information(
    cov: np.ndarray,
    gx: Sequence[int],
    gy: Sequence[int],
    gm: Sequence[int],
    *,
    tol: float = 1e-12,
    max_iter: int = 200,
) -> tuple[float, dict]:
    """``min_q I_q(M; X, Y)`` over jointly Gaussian q with p's (M,X), (M,Y) marginals.

    Parameters
    ----------
    cov
        Covariance of all columns (d, d).
    gx, gy, gm
        Columns of the two sources and of the target.
    tol
        Stop when the Newton decrement ``-gᵀΔ`` (twice the predicted decrease of a
        Newton step) is below ``2 tol`` nats.
    max_iter
        Most Newton steps.

    Returns
    -------
    (float, dict)
        The union information in nats, and ``iterations``, ``converged``,
        ``newton_decrement``.

    Examples
    --------
    >>> cov = np.array([[2.0, 0.5, 1.0], [0.5, 3.0, 1.0], [1.0, 1.0, 1.0]])
    >>> ui, _ = union_information(cov, [0], [1], [2])
    >>> i_x, i_y = 0.5 * np.log(2.0 / 1.0), 0.5 * np.log(3.0 / 2.0)  # I(M;X), I(M;Y)
    >>> bool(abs(ui - max(i_x, i_y)) < 1e-7)  # scalar target: MMI (Barrett 2015)
    True
    """
    a, cp = whitened_channel(cov, gx, gy, gm)
    c = np.zeros_like(cp)
    f, g, h = _objective(c, a, hessian=True)
    it, converged, decrement = 0, False, np.inf
    for it in range(1, max_iter + 1):  # noqa: B007
        # damped Newton on the positive curvature directions (the Hessian is PSD; its
        # eigenvalues near 0 are rounding, dropped so that Δ is a descent direction)
        ev, vec = np.linalg.eigh(h)
        keep = ev > 1e-9 * max(float(ev[-1]), 1e-300)
        proj = vec[:, keep].T @ g.ravel()
        delta = -(vec[:, keep] @ (proj / ev[keep])).reshape(c.shape)
        decrement = float(np.sum(proj**2 / ev[keep]))
        if decrement <= 2.0 * tol:
            converged = True
            break
        step = 1.0
        while True:
            cn = c + step * delta
            fn, gn, hn = _objective(cn, a, hessian=True)
            if fn <= f - 0.25 * step * decrement:  # Armijo; inf (infeasible) fails it
                break
            step *= 0.5
            if step < 1e-14:
                break
        if not fn < f:
            converged = decrement < 1e-9  # no descent left at float precision
            break
        c, f, g, h = cn, fn, gn, hn
    # p itself is feasible: the optimum can be no larger than I_p(M; X, Y)
    f_p = _objective(cp, a)[0]
    return float(min(f, f_p)), {
        "iterations": it,
        "converged": converged,
        "newton_decrement": decrement,
    }
