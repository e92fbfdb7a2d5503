"""The BROJA solver (multivariate/_broja.py): its sparse basis spans exactly the
directions that keep the marginals, and its answer carries a duality certificate
(a lower bound on the true minimum from weak LP duality, independent of the solver)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linprog

from infometer.measures.multivariate import _broja

SHAPES = [((2, 2, 2), 1.0), ((3, 3, 2), 1.0), ((3, 3, 3), 0.5), ((4, 4, 4), 1.0)]
SHAPES += [((4, 4, 4), 0.3), ((2, 5, 3), 0.5), ((5, 3, 4), 0.2)]


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


def _solve(p):
    p1t, p2t = p.sum(1), p.sum(0)
    cells, prob = _broja._structure(p.shape, (p1t > 0).tobytes(), (p2t > 0).tobytes())
    q0 = p1t[cells[:, 0], cells[:, 2]] * p2t[cells[:, 1], cells[:, 2]] / p1t.sum(0)[cells[:, 2]]
    q, _ = _broja._path(q0, prob) if prob[0].shape[1] else (q0, 0)
    return cells, prob, q


@pytest.mark.parametrize("shape,alpha", SHAPES)
def test_affine_basis_is_the_null_space_of_the_marginals(shape, alpha):
    p = _pmf(shape, alpha, 1)
    p1t, p2t = p.sum(1), p.sum(0)
    cells = np.argwhere((p1t[:, None, :] > 0) & (p2t[None, :, :] > 0))
    basis = _broja.affine_basis(cells, p1t, p2t)
    a, _ = _constraints(cells, p1t, p2t)
    assert np.abs(a @ basis).max() == 0.0  # integer entries: exact
    rank_n = np.linalg.matrix_rank(basis) if basis.size else 0
    assert basis.shape[1] == rank_n == len(cells) - np.linalg.matrix_rank(a)


@pytest.mark.parametrize("shape,alpha", SHAPES)
@pytest.mark.parametrize("seed", range(2))
def test_solution_is_feasible_and_certified_optimal(shape, alpha, seed):
    """f convex: for any multipliers y, f* >= f(q) - [g·q - b·y - Σ min(0, z)·ub] with
    g = ∇f(q), z = g - Aᵀy and ub a bound of each cell (weak duality of the linearised
    program).  y from HiGHS' duals; the bound holds whatever their accuracy, which
    (dual feasibility 1e-7 times cells ≤ 1) is what makes it 1e-10–1e-9 rather than 0."""
    p = _pmf(shape, alpha, 10 + seed)
    p1t, p2t = p.sum(1), p.sum(0)
    cells, prob, q = _solve(p)
    a, b = _constraints(cells, p1t, p2t)
    assert q.min() > 0  # strictly inside: the barrier and Newton steps never reach 0
    assert np.abs(a @ q - b).max() < 1e-15
    agg, pair = prob[2], prob[3]
    g = np.log(q / (agg @ q)[pair])
    y = linprog(g, A_eq=a, b_eq=b, bounds=(0, None), method="highs").eqlin.marginals
    z = g - a.T @ y
    ub = np.minimum(p1t[cells[:, 0], cells[:, 2]], p2t[cells[:, 1], cells[:, 2]])
    gap = g @ q - (b @ y + np.minimum(z, 0) @ ub)
    assert -1e-12 < gap < 1e-8  # nats above the true minimum, at most
    # the reported unique information is f(q) + H(T | S2)
    ui, diag = _broja.broja_unique(p)
    h = lambda x: -np.sum(x[x > 0] * np.log(x[x > 0]))  # noqa: E731
    f = float(q @ g)
    assert ui == pytest.approx(f + h(p2t) - h(p2t.sum(1)), abs=1e-13)
    assert diag["broja_free_dims"] == prob[0].shape[1]


@pytest.mark.parametrize("shape,alpha", SHAPES)
def test_interior_newton_and_barrier_path_agree(shape, alpha, monkeypatch):
    """The plain-Newton shortcut (taken when the optimum is interior) and the barrier
    path (bias ≤ GAP = 1e-12 nats) solve the same program."""
    p = _pmf(shape, alpha, 3)
    first, _ = _broja.broja_unique(p)
    monkeypatch.setattr(_broja, "INTERIOR_FIRST", False)
    barrier, _ = _broja.broja_unique(p)
    assert first == pytest.approx(barrier, abs=1e-10)


@pytest.mark.parametrize("shape", [(3, 3, 3), (4, 4, 4), (4, 3, 2)])
@pytest.mark.parametrize("seed", range(2))
def test_swapped_sources_give_the_same_optimum(shape, seed):
    """U(S2) solved on its own equals I(S2;T) - I(S1;T) + U(S1) (same optimal q); on
    4x4x4 Dirichlet(1) pmfs the optimum is mostly on the boundary (vanishing columns)."""
    p = _pmf(shape, 1.0, 30 + seed)
    u0, _ = _broja.broja_unique(p)
    u1, _ = _broja.broja_unique(p.transpose(1, 0, 2))

    def mi(m):
        return float(np.sum(m[m > 0] * np.log(m[m > 0] / np.outer(m.sum(1), m.sum(0))[m > 0])))

    assert u1 == pytest.approx(mi(p.sum(0)) - mi(p.sum(1)) + u0, abs=1e-9)
    assert min(u0, u1) >= -1e-12


def test_same_support_reuses_the_polytope_and_answers_alike():
    p = _pmf((3, 3, 3), 1.0, 7)
    u, _ = _broja.broja_unique(p)
    info = _broja._structure.cache_info()
    assert _broja.broja_unique(p.copy())[0] == u
    assert _broja._structure.cache_info().hits == info.hits + 1


def test_sparse_hessian_is_the_dense_one(monkeypatch):
    # 8 x 8 x 6 has 294 free dimensions: the Hessian is assembled from sparse factors;
    # the same solve with the dense assembly gives the same unique information
    p = np.random.default_rng(4).dirichlet(np.ones(384)).reshape(8, 8, 6)
    _broja._structure.cache_clear()
    sparse_ui, _ = _broja.broja_unique(p)
    monkeypatch.setattr(_broja, "SPARSE_MIN", 10**9)
    _broja._structure.cache_clear()
    dense_ui, _ = _broja.broja_unique(p)
    _broja._structure.cache_clear()
    assert sparse_ui == pytest.approx(dense_ui, abs=1e-10)
    basis = np.array([[1.0, 0.0], [-1.0, 1.0], [0.0, -1.0]])
    col = np.array([[0.5, 0.0], [0.5, 0.0], [0.0, 1.0]])
    share, inv = np.array([0.2, 0.3, 0.5]), np.array([2.0, 3.0, 4.0])
    w = basis - share[:, None] * col
    want = (w.T * inv) @ w + (basis.T * (0.1 * inv * inv)) @ basis
    got = _broja._SparseHessian(basis, col).hessian(share, inv, 0.1)
    assert got == pytest.approx(want, rel=1e-14)
