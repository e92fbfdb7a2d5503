"""BROJA unique information of a 3-D pmf (pure: numpy in, nats out).

``UI(T; S1\\S2) = min_{q∈Δ_p} I_q(T; S1 | S2)`` over the distributions with p's (S1,T)
and (S2,T) marginals (Bertschinger, Rauh, Olbrich, Jost & Ay 2014).  On Δ_p the other
terms of the chain rule are fixed, so this is ``min_q f(q)``, ``f(q) = Σ q log(q / q12)``
(``= -H_q(T | S1, S2)``, convex), ``q12(s1, s2) = Σ_t q(s1, s2, t)``, and
``UI = f* + H(T | S2)``.  The cells of Δ_p are the ``(s1, s2, t)`` with ``p(s1,t) > 0``
and ``p(s2,t) > 0``; a column is one ``(s1, s2)`` with its cells ``t ∈ T(s1, s2)``.

**The dual.**  With multipliers ``λ(s1,t)``, ``ν(s2,t)`` of the two marginal constraints,
``inf_{q≥0} f(q) - Σ_cells (λ + ν) q`` splits over the columns; f is positively
homogeneous on each, so a column gives 0 if ``F(s1,s2) = log Σ_{t∈T(s1,s2)} exp(λ(s1,t) +
ν(s2,t)) ≤ 0`` and -∞ otherwise.  The dual is the geometric program

    f* = max_{λ,ν} Σ λ(s1,t) p(s1,t) + Σ ν(s2,t) p(s2,t)   s.t.  F(s1, s2) ≤ 0 ∀ columns

(strong duality: ``q0 = p(s1,t) p(s2,t) / p(t)`` is feasible and positive on every cell),
with ``kt (k1 + k2)`` variables (128 at 8×8×8) and one constraint per column (64), where
the primal has ``Σ_t (rows_t - 1)(cols_t - 1)`` free dimensions (392).  KKT: at the
optimum ``q(s1,s2,t) = q12(s1,s2) exp(λ(s1,t) + ν(s2,t))`` — the multiplier of column
(s1, s2) is its mass ``q12`` and ``q(t | s1, s2)`` is the softmax of ``λ + ν`` — with
``q12 F = 0`` (a column whose constraint is slack vanishes: the optimum on Δ_p's
boundary).  Gauge: ``λ(s1,t) + g(t)``, ``ν(s2,t) - g(t)`` changes nothing (every cell of a
t pairs every row with every column), so one ``ν`` per t with ``p(t) > 0`` is fixed at 0.

**The solver** (:mod:`._broja_kernel`, compiled) is a primal–dual interior-point method
(Mehrotra predictor–corrector) on ``Σ_j q12_j ∇F_j = (p(s1,t), p(s2,t))``,
``F_j + s_j = 0``, ``q12_j s_j = σμ`` with slacks ``s > 0``: the column masses are iterated
beside (λ, ν), never recovered as ``μ / (-F)`` (which cancels where F → 0).  Each step
solves the ``kt (k1 + k2 - 1)``-square system ``Σ_j q12_j ∇²F_j + (q12_j / s_j) ∇F_j ∇F_jᵀ``
(per column the ``kt × kt`` block ``diag(q_j) + (q12_j / s_j - q12_j) r_j r_jᵀ``,
``r_j = q(·|s1,s2)``, placed on the rows of λ(s1,·) and ν(s2,·)) by a Cholesky
factorisation of its unit-diagonal scaling (a 1e-14 diagonal shift, ×100 until it
factorises, where the optimum leaves a direction free and the matrix is singular to
rounding).  Steps go 99% of the way to the boundary of ``q12, s > 0`` and move no
exponent ``λ + ν`` by more than ``STRIDE`` nats (log Σ exp then stays within ``STRIDE²/2``
of its linearisation).  Start: ``λ + ν = log q0`` (so ``F = log q0_12 < 0``) and
``q12 = q0_12``, which is primal feasible.  Stop: ``Σ q12 s ≤ GAP_TOL`` and every residual
``≤ RES_TOL``, or rounding stalls both below 1e-10.

**Certificate.**  The recovered ``q = q12 r`` gives the primal value ``P = f(q)``; shifting
every λ by ``-max(0, max F)`` makes (λ, ν) dual feasible, so ``D = Σ λ p + Σ ν p -
max(0, max F) ≤ f*`` whatever the iterate.  ``P - D`` (``broja_gap``) and the largest
marginal residual of q (``broja_residual``) are reported; the answer is ``P + H(T | S2)``,
with a note when either exceeds ``NOTE_ABOVE``.  Where the polytope is a point (no free
dimension) q = q0.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from infometer.core._lazy import lazy_module
from infometer.core.validation import check_budget

#: The compiled iteration, imported on first use (registering the family must not load numba).
K = lazy_module("._broja_kernel", __package__)

__all__ = ["GAP_TOL", "RES_TOL", "MAX_ITER", "MAX_DUAL_VARIABLES", "broja_unique", "solve"]

#: Stop once the complementarity ``Σ q12 s`` (nats) and every marginal and slack residual
#: are below these.
GAP_TOL, RES_TOL = 1e-12, 1e-13
#: Most change of any exponent ``λ + ν`` in one step (nats).
STRIDE = 2.0
#: Most primal–dual iterations (a bound: 5–25 on Dirichlet(1) pmfs up to 8×8×8, at most 69
#: on the sparse and near-degenerate ones of the tests).
MAX_ITER = 200
#: The duality gap or marginal residual (nats / probability) above which the result says so.
NOTE_ABOVE = 1e-9
#: Most dual variables (the Newton matrix is dense, its side this size: 128 MiB, some
#: seconds per factorisation); 4000 is e.g. 40 symbols for each source and the target.
MAX_DUAL_VARIABLES = 4000


def _h(p: np.ndarray) -> float:
    q = p[p > 0]
    return float(-(q * np.log(q)).sum())


class Support(NamedTuple):
    """The program of every pmf whose (S1,T), (S2,T) marginals have one support.

    ``cells``: (s1, s2, t) of Δ_p's cells in C order, so each column's cells are
    contiguous (``ptr``); ``il``/``iv``: each cell's λ and ν variable (``iv == n_free`` for
    the gauge-fixed ν); ``lam``/``nu``: the (s1, t) / (s2, t) of each free variable;
    ``gauge``: the s2 whose ν is fixed, per t; ``free_dims``: Δ_p's dimension.
    """

    cells: np.ndarray
    ptr: np.ndarray
    il: np.ndarray
    iv: np.ndarray
    lam: tuple[np.ndarray, np.ndarray]
    nu: tuple[np.ndarray, np.ndarray]
    gauge: np.ndarray
    free_dims: int

    @property
    def n_free(self) -> int:
        return len(self.lam[0]) + len(self.nu[0])


def _per_cell(v: np.ndarray, sup: Support) -> np.ndarray:
    """A value per column repeated on each of its cells."""
    return np.repeat(v, np.diff(sup.ptr))


@lru_cache(maxsize=256)
def _structure(shape: tuple[int, int, int], rows: bytes, cols: bytes) -> Support:
    """The cells, columns and dual variables of the support given by ``rows``, ``cols``
    (the ``> 0`` masks' bytes of p(s1,t), p(s2,t)); built once per support (the arrays
    are never written to)."""
    k1, k2, kt = shape
    r = np.frombuffer(rows, dtype=bool).reshape(k1, kt)
    c = np.frombuffer(cols, dtype=bool).reshape(k2, kt)
    cells = np.argwhere(r[:, None, :] & c[None, :, :])
    column = cells[:, 0] * k2 + cells[:, 1]
    ptr = np.flatnonzero(np.r_[True, column[1:] != column[:-1], True])
    live = c.any(0)  # t with p(t) > 0: a row and a column each
    gauge = np.argmax(c, axis=0)
    fixed = np.zeros_like(c)
    fixed[gauge[live], np.flatnonzero(live)] = True
    lam, nu = np.nonzero(r), np.nonzero(c & ~fixed)
    n_lam = len(lam[0])
    idx_l = np.full((k1, kt), -1)
    idx_l[lam] = np.arange(n_lam)
    idx_n = np.full((k2, kt), n_lam + len(nu[0]))
    idx_n[nu] = n_lam + np.arange(len(nu[0]))
    il = idx_l[cells[:, 0], cells[:, 2]]
    iv = idx_n[cells[:, 1], cells[:, 2]]
    free_dims = int(((r.sum(0) - 1) * (c.sum(0) - 1))[live].sum())
    out = Support(cells, ptr, il, iv, lam, nu, gauge, free_dims)
    for a in (cells, ptr, il, iv, *lam, *nu, gauge):
        a.flags.writeable = False
    return out


def solve(p: np.ndarray) -> tuple[np.ndarray, Support, dict]:
    """The optimal q on Δ_p's cells (``Support.cells`` order), the support, and facts:
    the primal value ``f(q)`` and dual bound (nats), their gap, the largest marginal
    residual, the iterations.

    Examples
    --------
    >>> import numpy as np
    >>> p = np.zeros((2, 2, 2))
    >>> for a in (0, 1):
    ...     for b in (0, 1):
    ...         p[a, b, a ^ b] = 0.25  # XOR: q0 = p(s1,t) p(s2,t) / p(t) is optimal
    >>> q, sup, facts = solve(p)
    >>> bool(np.allclose(q, 1 / 8)), facts["gap"] < 1e-12
    (True, True)
    """
    p1t, p2t = p.sum(1), p.sum(0)
    sup = _structure(p.shape, (p1t > 0).tobytes(), (p2t > 0).tobytes())
    cells = sup.cells
    check_budget(
        sup.n_free,
        name="p (the alphabets of the sources and the target)",
        limit=MAX_DUAL_VARIABLES,
        what="dual variables of the BROJA program",
    )
    pt = p1t.sum(0)
    a, b, t = cells[:, 0], cells[:, 1], cells[:, 2]
    q0 = p1t[a, t] * p2t[b, t] / pt[t]
    facts = {"iterations": 0, "gap": 0.0, "residual": 0.0, "shift": 0.0}
    z0 = np.add.reduceat(q0, sup.ptr[:-1])  # the columns' masses
    if sup.free_dims == 0:  # Δ_p is the point q0
        facts["primal"] = facts["dual"] = float(q0 @ np.log(q0 / _per_cell(z0, sup)))
        return q0, sup, facts
    c = np.concatenate([p1t[sup.lam], p2t[sup.nu]])
    t_all = np.arange(p.shape[2])
    anchor = np.zeros(p.shape[2])
    live = pt > 0
    anchor[live] = np.log(p2t[sup.gauge[live], t_all[live]]) - np.log(pt[live])
    with np.errstate(divide="ignore"):  # only entries off the support are log 0 (unused)
        lam0 = np.log(p1t[sup.lam]) + anchor[sup.lam[1]]
        nu0 = np.log(p2t[sup.nu]) - np.log(p2t[sup.gauge[sup.nu[1]], sup.nu[1]])
    x0 = np.concatenate([lam0, nu0])  # λ + ν = log q0 on every cell
    x, z, s, f, r, it, comp, res, shift = K.solve_dual(
        sup.ptr, sup.il, sup.iv, c, x0, z0, GAP_TOL, RES_TOL, MAX_ITER, STRIDE
    )
    q = _per_cell(z, sup) * r
    pos = r > 0
    primal = float(q[pos] @ np.log(r[pos]))
    dual = float(c @ x) - max(0.0, float(f.max()))
    facts.update(
        iterations=int(it),
        gap=primal - dual,
        residual=float(res),
        shift=float(shift),
        primal=primal,
        dual=dual,
        complementarity=float(comp),
    )
    return q, sup, facts


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
    q, sup, facts = solve(p)
    diag = {
        "broja_cells": len(sup.cells),
        "broja_free_dims": sup.free_dims,
        "broja_dual_variables": sup.n_free,
        "broja_constraints": len(sup.ptr) - 1,
        "broja_iterations": facts["iterations"],
        "broja_gap": facts["gap"],
        "broja_residual": facts["residual"],
    }
    if not (abs(facts["gap"]) <= NOTE_ABOVE and facts["residual"] <= NOTE_ABOVE):
        diag["notes"] = [
            f"the BROJA solver stopped after {facts['iterations']} iterations with a "
            f"duality gap of {facts['gap']:.3g} nats and a marginal residual of "
            f"{facts['residual']:.3g}; the atoms may be off by about that much"
        ]
    # I_q(T; S1 | S2) = -H_q(T | S1, S2) + H(T | S2), the latter fixed by p(s2, t)
    p2t = p.sum(0)
    return facts["primal"] + _h(p2t) - _h(p2t.sum(1)), diag
