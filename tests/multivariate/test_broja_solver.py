"""The BROJA solver (multivariate/_broja.py, the primal–dual iteration on the dual in
_broja_kernel.py): its dual variables are exactly the independent marginal constraints,
its Newton matrix is the Hessian it claims, and its answer carries two certificates — the
dual bound it reports, and a lower bound on the true minimum from weak LP duality with
HiGHS' multipliers, independent of the solver."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linprog

from infometer import InfometerWarning
from infometer.measures import exact
from infometer.measures.multivariate import _broja
from infometer.measures.multivariate import _broja_kernel as kernel

SHAPES = [((2, 2, 2), 1.0), ((3, 3, 2), 1.0), ((3, 3, 3), 0.5), ((4, 4, 4), 1.0)]
SHAPES += [((4, 4, 4), 0.3), ((2, 5, 3), 0.5), ((5, 3, 4), 0.2), ((8, 8, 8), 1.0)]


def _pmf(shape, alpha, seed):
    p = np.random.default_rng(seed).dirichlet(np.full(int(np.prod(shape)), alpha))
    p = p.reshape(shape)
    p[p < 0.02 / p.size] = 0.0  # holes in the support (rows/columns of some slices vanish)
    return p / p.sum()


def _constraints(cells, p1t, p2t):
    """The marginal constraints A q = b, one row per (s1, t) and per (s2, t) in support."""
    rows, b = [], []
    for a, t in zip(*np.nonzero(p1t), strict=True):
        rows.append(((cells[:, 0] == a) & (cells[:, 2] == t)).astype(float))
        b.append(p1t[a, t])
    for c, t in zip(*np.nonzero(p2t), strict=True):
        rows.append(((cells[:, 1] == c) & (cells[:, 2] == t)).astype(float))
        b.append(p2t[c, t])
    return np.array(rows), np.array(b)


def _h(x):
    x = x[x > 0]
    return float(-(x * np.log(x)).sum())


@pytest.mark.parametrize("shape,alpha", SHAPES)
def test_dual_variables_are_the_independent_constraints(shape, alpha):
    """One dual variable per independent marginal constraint (the gauge removed), and
    Δ_p's dimension is the cells less that rank."""
    p = _pmf(shape, alpha, 1)
    p1t, p2t = p.sum(1), p.sum(0)
    sup = _broja._structure(p.shape, (p1t > 0).tobytes(), (p2t > 0).tobytes())
    a, _ = _constraints(sup.cells, p1t, p2t)
    rank = np.linalg.matrix_rank(a)
    assert sup.n_free == rank
    assert sup.free_dims == len(sup.cells) - rank
    # the free variables' rows of A alone have that rank: nothing but the gauge was dropped
    keep = np.r_[np.ones(len(sup.lam[0]), bool), np.zeros(int(p2t.astype(bool).sum()), bool)]
    nu_rows = {(int(b), int(t)): i for i, (b, t) in enumerate(zip(*np.nonzero(p2t), strict=True))}
    for b, t in zip(*sup.nu, strict=True):
        keep[len(sup.lam[0]) + nu_rows[(int(b), int(t))]] = True
    assert np.linalg.matrix_rank(a[keep]) == rank


@pytest.mark.parametrize("shape,alpha", SHAPES)
@pytest.mark.parametrize("seed", range(2))
def test_solution_is_feasible_and_certified_optimal(shape, alpha, seed):
    """f convex: for any multipliers y, f* >= f(q) - [g·q - b·y - Σ min(0, z)·ub] with
    g = ∇f(q), z = g - Aᵀy and ub a bound of each cell (weak duality of the linearised
    program).  y from HiGHS' duals; the bound holds whatever their accuracy, which
    (dual feasibility 1e-7 times cells ≤ 1) is what makes it 1e-10–1e-9 rather than 0."""
    p = _pmf(shape, alpha, 10 + seed)
    p1t, p2t = p.sum(1), p.sum(0)
    q, sup, facts = _broja.solve(p)
    cells = sup.cells
    a, b = _constraints(cells, p1t, p2t)
    assert q.min() > 0  # strictly inside: the columns' masses and softmaxes never reach 0
    assert np.abs(a @ q - b).max() < 1e-10  # RES_TOL 1e-13; rounding stalls some at ~5e-12
    col = cells[:, 0] * p.shape[1] + cells[:, 1]
    q12 = np.bincount(col, q, minlength=p.shape[0] * p.shape[1])[col]
    g = np.log(q / q12)
    y = linprog(g, A_eq=a, b_eq=b, bounds=(0, None), method="highs").eqlin.marginals
    z = g - a.T @ y
    ub = np.minimum(p1t[cells[:, 0], cells[:, 2]], p2t[cells[:, 1], cells[:, 2]])
    gap = g @ q - (b @ y + np.minimum(z, 0) @ ub)
    assert -1e-12 < gap < 1e-8  # nats above the true minimum, at most
    # the solver's own certificate: its dual bound is below f(q), and close
    f = float(q @ g)
    assert facts["primal"] == pytest.approx(f, abs=1e-13)
    assert facts["dual"] <= f + 1e-11
    assert facts["gap"] < 1e-10
    # the reported unique information is f(q) + H(T | S2)
    ui, diag = _broja.broja_unique(p)
    assert ui == pytest.approx(f + _h(p2t) - _h(p2t.sum(1)), abs=1e-13)
    assert diag["broja_free_dims"] == sup.free_dims
    assert diag["broja_gap"] == facts["gap"]
    assert "notes" not in diag


@pytest.mark.parametrize("seed", range(3))
def test_dual_bound_is_a_lower_bound_of_the_true_minimum(seed):
    """The dual value of the returned (λ, ν) is below f(q') for every feasible q' (weak
    duality): checked against q' = p and q' = q0 = p(s1,t) p(s2,t) / p(t), and against
    the minimum itself (within its gap)."""
    p = _pmf((4, 3, 3), 1.0, 40 + seed)
    q, sup, facts = _broja.solve(p)
    p1t, p2t = p.sum(1), p.sum(0)

    def f(x):  # Σ x log(x / x12) of a full 3-D array
        x12 = x.sum(2, keepdims=True)
        s = x > 0
        return float(np.sum(x[s] * np.log((x / np.where(x12 > 0, x12, 1))[s])))

    q0 = p1t[:, None, :] * p2t[None, :, :] / np.where(p1t.sum(0) > 0, p1t.sum(0), 1)
    assert facts["dual"] <= f(p) + 1e-13
    assert facts["dual"] <= f(q0) + 1e-13
    assert facts["primal"] - facts["dual"] < 1e-10


def test_newton_matrix_is_the_lagrangian_hessian():
    """The compiled assembly equals Σ_j z_j ∇²F_j + (z_j / s_j) ∇F_j ∇F_jᵀ built densely
    from the gradients and Hessians of F_j = log Σ_t exp(λ(s1,t) + ν(s2,t))."""
    rng = np.random.default_rng(5)
    p = _pmf((3, 4, 3), 0.5, 6)
    p1t, p2t = p.sum(1), p.sum(0)
    sup = _broja._structure(p.shape, (p1t > 0).tobytes(), (p2t > 0).tobytes())
    nf, m = sup.n_free, len(sup.ptr) - 1
    x = np.r_[rng.normal(size=nf), 0.0]
    z, s = rng.uniform(0.1, 1.0, m), rng.uniform(0.1, 2.0, m)
    f, r = np.empty(m), np.empty(len(sup.il))
    kernel._columns(x, sup.ptr, sup.il, sup.iv, f, r)
    got = kernel._newton_matrix(sup.ptr, sup.il, sup.iv, r, z, s, nf)
    want = np.zeros((nf + 1, nf + 1))
    for j in range(m):
        cells = range(sup.ptr[j], sup.ptr[j + 1])
        jac = np.zeros((len(cells), nf + 1))  # d w(cell) / d x
        for i, u in enumerate(cells):
            jac[i, sup.il[u]] += 1.0
            jac[i, sup.iv[u]] += 1.0
        rj = r[sup.ptr[j] : sup.ptr[j + 1]]
        w = x[sup.il[sup.ptr[j] : sup.ptr[j + 1]]] + x[sup.iv[sup.ptr[j] : sup.ptr[j + 1]]]
        assert f[j] == pytest.approx(np.log(np.exp(w).sum()), abs=1e-12)
        grad = jac.T @ rj
        hess = jac.T @ (np.diag(rj) - np.outer(rj, rj)) @ jac
        want += z[j] * hess + (z[j] / s[j]) * np.outer(grad, grad)
    assert got == pytest.approx(want[:nf, :nf], abs=1e-12)


@pytest.mark.parametrize("shape", [(3, 3, 3), (4, 4, 4), (4, 3, 2), (8, 8, 8)])
@pytest.mark.parametrize("seed", range(2))
def test_swapped_sources_give_the_same_optimum(shape, seed):
    """U(S2) solved on its own equals I(S2;T) - I(S1;T) + U(S1) (same optimal q); on
    4x4x4 Dirichlet(1) pmfs the optimum is mostly on the boundary (vanishing columns)."""
    p = _pmf(shape, 1.0, 30 + seed)
    u0, _ = _broja.broja_unique(p)
    u1, _ = _broja.broja_unique(p.transpose(1, 0, 2))

    def mi(m):
        return float(np.sum(m[m > 0] * np.log(m[m > 0] / np.outer(m.sum(1), m.sum(0))[m > 0])))

    assert u1 == pytest.approx(mi(p.sum(0)) - mi(p.sum(1)) + u0, abs=1e-10)
    assert min(u0, u1) >= -1e-12


def test_same_support_reuses_the_program_and_answers_alike():
    p = _pmf((3, 3, 3), 1.0, 7)
    u, _ = _broja.broja_unique(p)
    info = _broja._structure.cache_info()
    assert _broja.broja_unique(p.copy())[0] == u
    assert _broja._structure.cache_info().hits == info.hits + 1


def test_a_solve_stopped_early_says_so(monkeypatch):
    """Two iterations leave a gap of ~0.1 nats: the diagnostics and a warning say so."""
    p = _pmf((4, 4, 4), 1.0, 8)
    monkeypatch.setattr(_broja, "MAX_ITER", 2)
    _, diag = _broja.broja_unique(p)
    assert diag["broja_iterations"] == 2 and diag["broja_gap"] > 1e-6
    assert "gap" in diag["notes"][0]
    with pytest.warns(InfometerWarning, match="BROJA solver stopped"):
        exact.pid(p, measure="broja")


def test_too_many_dual_variables_are_refused_before_solving(monkeypatch):
    monkeypatch.setattr(_broja, "MAX_DUAL_VARIABLES", 100)
    p = np.full((8, 8, 8), 1 / 512)  # 8 * (8 + 8 - 1) = 120 dual variables
    with pytest.raises(ValueError, match="dual variables of the BROJA program"):
        exact.pid(p, measure="broja")
