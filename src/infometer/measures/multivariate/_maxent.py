"""Maximum-entropy pmf with prescribed marginals, with a certificate (pure: numpy in).

``max H(q)`` over the pmfs ``q`` on the cells of ``p`` whose marginals on the axis sets
``margins`` equal those of ``p`` (the I-projection used by the ``ccs`` and ``dep`` PIDs).

1. **Support.** A cell where a prescribed marginal of ``p`` is 0 is 0 in every feasible q.
2. **Facial reduction.** The optimum can sit on further zeros that no single marginal
   shows (AND gate, pairwise marginals: ``q(1,1,0) = p(s1s2=11) - p(s1t=11) = 0``).  Where
   ``p`` itself is not positive on every cell of 1., one linear program (HiGHS) finds the
   largest set of cells some feasible q makes positive: ``max Σ z`` subject to
   ``A q = b s``, ``z ≤ q``, ``0 ≤ z ≤ 1``, ``q, s ≥ 0`` (a cone, so every cell that can be
   positive reaches ``z = 1`` at once); the others are 0 in every feasible q.
3. **Newton on the dual.** On that support the optimum is interior (``∂H/∂q = -log q - 1``
   is +∞ at 0), so ``q* = exp(Aᵀθ) / Z`` for the θ minimising the convex dual
   ``L(θ) = log Z(θ) - θ·b``; its gradient is ``A q - b`` and its Hessian ``Cov_q`` of the
   marginal indicators.  Damped Newton from θ = 0 (uniform on the support), Armijo
   backtracking, converges quadratically.  Problems with more than :data:`MAX_DENSE`
   marginal cells use iterative proportional fitting on the reduced support instead (linear
   convergence there, since the optimum is interior).

**Certificate.** Every iterate of either solver has the form ``exp(Aᵀθ) / Z`` on the
support, so it *is* the maximum-entropy pmf on that support for its own marginals ``A q``;
the returned ``residual = max |A q - b|`` is therefore a backward error: q is the exact
answer for marginals within ``residual`` of ``p``'s.  The solver stops when it is at most
``tol`` (default :data:`TOL`) and reports ``converged = False`` otherwise.
"""

from __future__ import annotations

import numpy as np

__all__ = ["TOL", "MAX_DENSE", "maxent"]

#: Stated tolerance: largest difference between a marginal of q and of p (probability).
TOL = 1e-14
#: Most marginal cells (dual parameters) for the dense Newton solver.
MAX_DENSE = 3000
#: Most Newton steps / IPF cycles.
MAX_NEWTON, MAX_IPF = 200, 100_000
#: IPF cycles tried first: an interior optimum is reached to ``tol`` in a few dozen.
FIRST_IPF = 300


def _constraints(p: np.ndarray, margins) -> tuple[np.ndarray, list, np.ndarray]:
    """Support mask of ``p``'s shape, the marginal cell of every cell per margin, and the
    marginal values (concatenated, one block per margin)."""
    grid = np.indices(p.shape).reshape(p.ndim, -1)
    mask = np.ones(p.size, bool)
    index, values = [], []
    offset = 0
    for keep in margins:
        keep = tuple(sorted(keep))
        other = tuple(a for a in range(p.ndim) if a not in keep)
        m = p.sum(axis=other) if other else p
        if keep:
            k = np.ravel_multi_index(tuple(grid[a] for a in keep), m.shape)
        else:
            k, m = np.zeros(p.size, np.intp), np.asarray(m).reshape(1)
        mask &= m.ravel()[k] > 0
        index.append(offset + k)
        values.append(m.ravel())
        offset += m.size
    return mask, index, np.concatenate(values)


def _matrix(rows: list, n_rows: int):
    """Sparse (marginal cells × support cells) 0/1 matrix from each margin's marginal
    cell of every support cell."""
    from scipy.sparse import csr_matrix

    n = rows[0].size
    r = np.concatenate(rows)
    cols = np.tile(np.arange(n), len(rows))
    return csr_matrix((np.ones(r.size), (r, cols)), shape=(n_rows, n))


def _reduce(a, b: np.ndarray, q0: np.ndarray) -> tuple[np.ndarray, bool]:
    """Cells (of the columns of ``a``) that some feasible q makes positive; ``q0`` is a
    feasible point (p).  Returns (mask, whether the linear program ran)."""
    if (q0 > 0).all():
        return np.ones(q0.size, bool), False
    from scipy.optimize import linprog
    from scipy.sparse import bmat, identity

    n = q0.size
    eye = identity(n, format="csr")
    a_eq = bmat([[a, np.zeros((a.shape[0], n)), -b[:, None]]], format="csr")
    a_ub = bmat([[-eye, eye, np.zeros((n, 1))]], format="csr")
    c = np.concatenate([np.zeros(n), -np.ones(n), [0.0]])
    bounds = [(0, None)] * n + [(0, 1)] * n + [(0, None)]
    res = linprog(
        c,
        A_ub=a_ub,
        b_ub=np.zeros(n),
        A_eq=a_eq,
        b_eq=np.zeros(a.shape[0]),
        bounds=bounds,
        method="highs",
    )
    if res.status != 0:  # pragma: no cover - the LP is feasible (z = 0) and bounded
        raise RuntimeError(f"maximum-entropy support: the linear program failed: {res.message}")
    return (res.x[n : 2 * n] > 0.5) | (q0 > 0), True


def _softmax(eta: np.ndarray) -> tuple[np.ndarray, float]:
    top = eta.max()
    w = np.exp(eta - top)
    z = w.sum()
    return w / z, top + float(np.log(z))


def _newton(a, b: np.ndarray, tol: float) -> tuple[np.ndarray, int, float]:
    """Damped Newton on the dual; returns (q, steps, residual)."""
    from scipy.linalg import cho_factor, cho_solve

    at = a.T.tocsr()
    theta = np.zeros(a.shape[0])
    q, logz = _softmax(at @ theta)
    g = a @ q - b
    r = float(np.abs(g).max())
    steps = 0
    while r > tol and steps < MAX_NEWTON:
        h = (a.multiply(q[None, :]) @ at).toarray()
        mq = a @ q
        h -= np.outer(mq, mq)
        ridge = 1e-14 * max(float(np.trace(h)), 1e-300) / h.shape[0]
        h[np.diag_indices_from(h)] += ridge
        try:
            d = -cho_solve(cho_factor(h, check_finite=False), g, check_finite=False)
        except np.linalg.LinAlgError:  # pragma: no cover - h + ridge is positive definite
            d = -np.linalg.lstsq(h, g, rcond=None)[0]
        val = logz - theta @ b
        slope = float(g @ d)
        t = 1.0
        while True:
            th = theta + t * d
            qn, lz = _softmax(at @ th)
            vn = lz - th @ b
            if vn <= val + 0.25 * t * slope or t < 1e-10:
                break
            t *= 0.5
        gn = a @ qn - b
        rn = float(np.abs(gn).max())
        steps += 1
        if t < 1e-10 and rn >= r:  # no progress left: rounding floor
            break
        theta, q, logz, g, r = th, qn, lz, gn, rn
    return q, steps, r


def _ipf(
    a, b: np.ndarray, index_rows: list, tol: float, cycles: int
) -> tuple[np.ndarray, int, float]:
    """Iterative proportional fitting on the support (columns of ``a``) from the uniform
    pmf, at most ``cycles`` cycles; ``index_rows``: each margin's marginal cell of every
    support cell.  Returns (q, cycles, residual)."""
    n = a.shape[1]
    q = np.full(n, 1.0 / n)
    r = float(np.abs(a @ q - b).max())
    most, cycles = cycles, 0
    while r > tol and cycles < most:
        for k in index_rows:
            cur = np.bincount(k, weights=q, minlength=b.size)
            q = q * (b[k] / cur[k])
        r = float(np.abs(a @ q - b).max())
        cycles += 1
    return q, cycles, r


def maxent(p: np.ndarray, margins, *, tol: float = TOL) -> tuple[np.ndarray, dict]:
    """Maximum-entropy pmf with ``p``'s marginals on each axis set of ``margins``.

    Parameters
    ----------
    p
        A pmf (any number of axes).
    margins
        Axis tuples whose marginals are kept, e.g. ``[(0, 1), (0, 2), (1, 2)]``.
    tol
        Largest accepted ``max |A q - b|`` (the backward error of the answer).

    Returns
    -------
    (numpy.ndarray, dict)
        q (``p``'s shape) and facts: ``residual``, ``converged``, ``solver``
        (``newton`` / ``ipf``), ``steps``, ``forced_zero_cells`` (cells 0 in every feasible
        q although no prescribed marginal is 0 there), ``linear_program`` (whether it ran).

    Examples
    --------
    >>> import numpy as np
    >>> p = np.zeros((2, 2, 2))
    >>> for a in (0, 1):
    ...     for b in (0, 1):
    ...         p[a, b, a & b] = 0.25  # AND: the pairwise marginals fix p itself
    >>> q, info = maxent(p, [(0, 1), (0, 2), (1, 2)])
    >>> bool(np.abs(q - p).max() < 1e-15), info["forced_zero_cells"], info["converged"]
    (True, 1, True)
    """
    p = np.asarray(p, dtype=np.float64)
    margins = [tuple(m) for m in margins]
    mask, index, b = _constraints(p, margins)
    cells = np.flatnonzero(mask)
    used = np.zeros(b.size, bool)
    for k in index:
        used[k[cells]] = True
    renum = np.cumsum(used) - 1  # the marginal cells > 0, numbered 0..
    rows = [renum[k[cells]] for k in index]
    b = b[used]
    a = _matrix(rows, b.size)
    info: dict = {"forced_zero_cells": 0, "linear_program": False, "tol": tol, "solver": "ipf"}
    qs, steps, r = _ipf(a, b, rows, tol, FIRST_IPF)
    if r > tol:  # slow: the optimum may sit on zeros; reduce the support, then Newton
        keep, ran = _reduce(a, b, p.ravel()[cells])
        info.update(forced_zero_cells=int((~keep).sum()), linear_program=ran)
        cells = cells[keep]
        rows = [k[keep] for k in rows]
        a = _matrix(rows, b.size)
        if b.size <= MAX_DENSE:
            qs, steps, r = _newton(a, b, tol)
            info["solver"] = "newton"
        else:
            qs, more, r = _ipf(a, b, rows, tol, MAX_IPF)
            steps += more
    info.update(steps=steps, residual=r, converged=r <= tol)
    q = np.zeros(p.size)
    q[cells] = qs
    return q.reshape(p.shape), info
