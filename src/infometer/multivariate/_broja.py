"""BROJA unique information of a 3-D pmf (pure: numpy in, nats out).

``UI(T; S1\\S2) = min_{q∈Δ_p} I_q(T; S1 | S2)`` over the distributions with p's (S1,T)
and (S2,T) marginals (Bertschinger, Rauh, Olbrich, Jost & Ay 2014).  On Δ_p the other
terms of the chain rule are fixed, so this is ``min_q f(q)``, ``f(q) = Σ q log(q / q12)``
(``= -H_q(T | S1, S2)``, convex), ``q12(s1, s2) = Σ_t q(s1, s2, t)``.

Δ_p is a product over t of transportation polytopes: the slice ``q(·, ·, t)`` lives on the
rectangle of rows with ``p(s1, t) > 0`` and columns with ``p(s2, t) > 0`` and has those row
and column sums, so its affine hull has the sparse basis ``e_ab - e_aB - e_Ab + e_AB``
(A, B the last row and column; no SVD).  The start ``p(s1,t) p(s2,t) / p(t)`` is strictly
positive on every cell.  Where the optimum lies on the boundary, whole (s1, s2) columns of q
vanish (a cell cannot vanish alone: ``∂f/∂q = log(q / q12) → -∞``).

The solver is a log-barrier path: ``f - μ Σ log q`` is minimised by damped Newton steps in
the basis coordinates (exact Hessian, assembled as ``Wᵀ diag(1/q) W``, ``W = N - q(t|s1,s2) Σ_t N``,
so that ``diag(1/q) - 1/q12`` does not cancel near a vanishing column), μ shrinking ×0.01 from
1e-3 to ``GAP / cells`` (so the barrier moves f by at most ``GAP`` nats); each new stage
starts from the tangent of the central path (``dq/dμ = N H⁻¹ Nᵀ (1/q)``), which follows the
columns that vanish in proportion to μ; a full Newton step is taken without a line search once
the scale-free decrement ``λ² = gᵀH⁻¹g / μ`` is below 0.1, Armijo backtracking otherwise.
"""

from __future__ import annotations

import numpy as np

__all__ = ["GAP", "broja_unique", "affine_basis", "barrier_newton"]

#: Most the barrier may move the objective at the last stage (nats).
GAP = 1e-12
#: Factor of μ per stage, first μ, and the decrement (λ²) ending a stage / the last one.
SHRINK, MU0, STAGE_TOL, FINAL_TOL = 0.01, 1e-3, 0.1, 1e-10
#: Newton decrement (nats) below which a step changes f by rounding only; μ's superlinear
#: decrease ``μ ← min(SHRINK μ, μ^POWER)`` (as in IPOPT).
DEC_FLOOR, POWER = 1e-15, 1.5
#: Most Newton steps per stage (a bound, not reached on any tested pmf).
MAX_STEPS = 60


def _h(p: np.ndarray) -> float:
    q = p[p > 0]
    return float(-(q * np.log(q)).sum())


def affine_basis(cells: np.ndarray, p1t: np.ndarray, p2t: np.ndarray) -> np.ndarray:
    """Basis (cells × free dims) of the directions keeping q's (S1,T), (S2,T) marginals.

    ``cells`` lists (s1, s2, t) of the support ``p(s1,t) p(s2,t) > 0`` in C order.

    Examples
    --------
    >>> import numpy as np
    >>> p1t = p2t = np.full((2, 1), 0.5)
    >>> affine_basis(np.argwhere(np.ones((2, 2, 1), bool)), p1t, p2t).T
    array([[ 1., -1., -1.,  1.]])
    """
    k1, kt = p1t.shape
    k2 = p2t.shape[0]
    idx = np.full((k1, k2, kt), -1)
    idx[cells[:, 0], cells[:, 1], cells[:, 2]] = np.arange(len(cells))
    cols = []
    for t in range(kt):
        r, c = np.flatnonzero(p1t[:, t] > 0), np.flatnonzero(p2t[:, t] > 0)
        if len(r) > 1 and len(c) > 1:
            a, b = (x.ravel() for x in np.meshgrid(r[:-1], c[:-1], indexing="ij"))
            last = np.full(len(a), idx[r[-1], c[-1], t])
            cols.append(np.stack([idx[a, b, t], idx[a, c[-1], t], idx[r[-1], b, t], last]))
    if not cols:
        return np.zeros((len(cells), 0))
    ix = np.concatenate(cols, axis=1)
    basis = np.zeros((len(cells), ix.shape[1]))
    j = np.arange(ix.shape[1])
    basis[ix[0], j] = basis[ix[3], j] = 1.0
    basis[ix[1], j] = basis[ix[2], j] = -1.0
    return basis


def _solve(h: np.ndarray, r: np.ndarray) -> np.ndarray:
    """``h⁻¹ r`` for the symmetric positive (semi)definite ``h`` (LAPACK Cholesky; least
    squares where it is numerically singular)."""
    from scipy.linalg.lapack import dposv

    x, info = dposv(h, r)[1:]
    return x if info == 0 else np.linalg.lstsq(h, r, rcond=None)[0]


def _to_boundary(q: np.ndarray, dq: np.ndarray) -> float:
    """Largest step ≤ 1 keeping q > 0 (99% of the way to the boundary)."""
    worst = float((dq / q).min())
    return 1.0 if worst >= -0.99 else -0.99 / worst


def barrier_newton(
    q0: np.ndarray, basis: np.ndarray, pair: np.ndarray, n_pairs: int
) -> tuple[np.ndarray, int]:
    """Minimise ``Σ q log(q / q12)`` over ``q = q0 + Nθ ≥ 0`` (``q0 > 0``); returns q and
    the number of Newton steps.  ``pair[i]`` is the (s1, s2) column of cell i.

    Examples
    --------
    >>> import numpy as np
    >>> q0 = np.full(4, 0.25)  # one t: the only feasible q is q0's rectangle
    >>> N = np.array([[1.0], [-1.0], [-1.0], [1.0]])
    >>> q, _ = barrier_newton(q0, N, np.arange(4), 4)
    >>> bool(abs(q.sum() - 1) < 1e-12)
    True
    """
    n = len(q0)
    agg = np.zeros((n_pairs, n))
    agg[pair, np.arange(n)] = 1.0
    bt = basis.T
    col = (agg @ basis)[pair]  # each cell's row of the column sums of the basis
    mu_end = GAP / n

    def merit(x: np.ndarray, mu: float) -> float:
        return float(x @ np.log(x / (agg @ x)[pair]) - mu * np.log(x).sum())

    q, mu, steps = q0.copy(), MU0, 0
    while True:
        last = mu <= mu_end
        val = None
        for _ in range(MAX_STEPS):
            share = q / (agg @ q)[pair]  # q(t | s1, s2)
            inv = 1.0 / q
            grad = bt @ (np.log(share) - mu * inv)
            w = basis - share[:, None] * col  # Nᵀ(diag(1/q) - 1/q12)N = Wᵀ diag(1/q) W
            h = (w.T * inv) @ w + (bt * (mu * inv * inv)) @ basis
            d = -_solve(h, grad)
            dec = float(-grad @ d)  # twice the predicted decrease of the merit
            lam2 = dec / mu
            if not (lam2 > (FINAL_TOL if last else STAGE_TOL) and dec > DEC_FLOOR):
                break
            dq = basis @ d
            t = _to_boundary(q, dq)
            if lam2 < 0.1 and t == 1.0:  # quadratic region: the full step
                q, val, steps = q + dq, None, steps + 1
                continue
            if val is None:
                val = merit(q, mu)
            while t > 1e-12:  # Armijo backtracking inside the feasible set
                qn = q + t * dq
                vn = merit(qn, mu)
                if vn <= val - 0.25 * t * dec:
                    break
                t *= 0.5
            else:
                break
            q, val, steps = qn, vn, steps + 1
        if last:
            break
        new = max(min(mu * SHRINK, mu**POWER), mu_end)
        dq = basis @ _solve(h, bt @ (1.0 / q)) * (new - mu)  # central-path tangent
        q, mu = q + _to_boundary(q, dq) * dq, new
    return np.maximum(q, 0.0), steps


def broja_unique(p: np.ndarray) -> tuple[float, dict]:
    """``min_q I_q(T; S1 | S2)`` (nats) over Δ_p of a pmf ``p[s1, s2, t]``, and facts.

    Examples
    --------
    >>> import numpy as np
    >>> p = np.zeros((2, 2, 4))
    >>> for a in (0, 1):
    ...     for b in (0, 1):
    ...         p[a, b, 2 * a + b] = 0.25  # COPY: each source has 1 bit unique
    >>> round(float(broja_unique(p)[0] / np.log(2)), 9)
    1.0
    """
    k1, k2, kt = p.shape
    p1t, p2t = p.sum(1), p.sum(0)
    cells = np.argwhere((p1t[:, None, :] > 0) & (p2t[None, :, :] > 0))
    pt = p.sum((0, 1))
    q0 = p1t[cells[:, 0], cells[:, 2]] * p2t[cells[:, 1], cells[:, 2]] / pt[cells[:, 2]]
    basis = affine_basis(cells, p1t, p2t)
    pair = cells[:, 0] * k2 + cells[:, 1]
    diag = {"broja_cells": len(cells), "broja_free_dims": int(basis.shape[1])}
    q, steps = barrier_newton(q0, basis, pair, k1 * k2) if basis.shape[1] else (q0, 0)
    diag["broja_newton_steps"] = steps
    qq = np.zeros_like(p)
    qq[cells[:, 0], cells[:, 1], cells[:, 2]] = q
    qq /= qq.sum()
    # I_q(T; S1 | S2) = H(S1 S2) + H(S2 T) - H(S1 S2 T) - H(S2)
    ui = _h(qq.sum(2)) + _h(qq.sum(0)) - _h(qq) - _h(qq.sum((0, 2)))
    return float(ui), diag
