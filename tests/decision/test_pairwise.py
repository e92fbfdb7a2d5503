"""The VI²N pair planner on the T-maze (hand-derived values) and its identities.

T-maze pair values (same cell, the two goal sides): the sign cell is resolved and worth the
MDP value there, 10 - 5 = 5; each step away costs 1: start 4, next 3, junction 2; an arm
cell 1 (back to the junction, 2 - 1); the two ends are terminal pairs, worth 0.  The rewarding
map (MDP value averaged over the goal) is 10 - distance: 5, 6, 7, 8 on the stem, 8 on the arm
cells (9 and 7 averaged).  Exact in binary floating point; 1e-9.
"""

from __future__ import annotations

import numpy as np
import pytest

from infometer import InfometerWarning
from infometer.systems.decision import (
    POMDP,
    PairPolicy,
    distinguishability,
    generate_world,
    momdp_pair_value_iteration,
    pair_value_iteration,
    policy_value,
    tmaze,
)

TOL = 1e-9
G95 = -(1 - 0.95**6) / 0.05 + 10 * 0.95**5


def stem(world, per_cell):
    """Values along the stem from the sign up to the junction, then left arm cell, right."""
    grid = world.to_grid(per_cell)
    col = world.shape[1] // 2
    return [grid[r, col] for r in range(world.shape[0] - 1, -1, -1)] + [grid[0, 1], grid[0, 3]]


def test_tmaze_maps():
    w = tmaze()
    fv = momdp_pair_value_iteration(w.pomdp(), 2)
    assert np.allclose(stem(w, fv.informative_map(w.goal_prior)), [5, 4, 3, 2, 1, 1], atol=TOL)
    assert np.allclose(stem(w, fv.reward_map(w.goal_prior)), [5, 6, 7, 8, 8, 8], atol=TOL)
    ends = w.to_grid(fv.informative_map(w.goal_prior))[0, [0, 4]]
    assert np.allclose(ends, 0.0, atol=TOL)


@pytest.mark.parametrize("factored", [False, True])
def test_pair_planner_reaches_the_optimum(factored):
    for discount, want in ((1.0, 4.0), (0.95, G95)):
        w = tmaze(discount=discount)
        p = w.pomdp()
        pv = momdp_pair_value_iteration(p, 2) if factored else pair_value_iteration(p)
        pol = PairPolicy(pv, "pairs")
        assert abs(policy_value(p, pol).value - want) < TOL
        for goal in range(2):
            ep = w.run(pol, goal)
            assert w.success(ep) and ep.total_reward == 4.0
            assert w.landmarks[0] in w.path(ep)


def test_product_weighting_ties_then_oscillates():
    # literal Eq. 5 gives the diagonal (Q_MDP) half the weight at the start: every action
    # scores 4 (up: (6 + 2)/2, down: (4 + 4)/2, the two bumps: (5 + 3)/2)
    w = tmaze()
    p = w.pomdp()
    q = PairPolicy(momdp_pair_value_iteration(p, 2), "product").q_values(p.initial_belief)
    assert np.allclose(q, 4.0, atol=TOL)
    assert np.allclose(
        PairPolicy(momdp_pair_value_iteration(p, 2), "pairs").q_values(p.initial_belief),
        [2, 3, 4, 3],
        atol=TOL,
    )
    # with discount 0.95 the tie breaks towards the junction and the agent never finishes
    w95 = tmaze(discount=0.95)
    pol = PairPolicy(momdp_pair_value_iteration(w95.pomdp(), 2), "product")
    for goal in range(2):
        ep = w95.run(pol, goal, max_steps=60)
        assert not ep.terminated and w95.landmarks[0] not in w95.path(ep)


def test_factored_equals_flat_with_stochastic_moves():
    w = generate_world(6, slip=0.1, seed=3)
    p = w.pomdp()
    flat = pair_value_iteration(p)
    fac = momdp_pair_value_iteration(p, 2)
    g = 2
    for x in range(len(w.cells)):
        for i in range(g):
            for j in range(g):
                assert abs(flat.values[x * g + i, x * g + j] - fac.values[x, i, j]) < 1e-8
                assert np.allclose(flat.q[x * g + i, x * g + j], fac.q[x, i, j], atol=1e-8)
    # different cells are always resolved in the flat version (the cell is observed)
    cells = np.arange(p.n_states) // g
    assert flat.resolved[cells[:, None] != cells[None, :]].all()


def test_distinguishability_identity_and_caveat():
    rng = np.random.default_rng(0)
    z = rng.dirichlet(np.ones(4), size=5)
    _, score = distinguishability(z, 1.0)
    # the paper's sum_o p(1-q) + q(1-p), halved, is 1 - sum_o p q
    direct = 0.5 * (z @ (1 - z).T + (1 - z) @ z.T).sum() / 1.0
    paper = np.array([[0.5 * np.sum(a * (1 - b) + b * (1 - a)) for b in z] for a in z])
    assert np.allclose(score, paper, atol=1e-12) and np.isfinite(direct)
    # not a divergence: a fair coin is "distinguishable from itself" once lambda <= 1/2
    d, s = distinguishability([[0.5, 0.5]], 0.5)
    assert d[0, 0] and abs(s[0, 0] - 0.5) < 1e-12
    d1, _ = distinguishability(np.eye(3), 1.0)
    assert (d1 == ~np.eye(3, dtype=bool)).all()


def test_fixed_iterations_and_non_convergence_warns():
    w = tmaze()
    pv = momdp_pair_value_iteration(w.pomdp(), 2, iterations=1)
    assert pv.iterations == 1 and pv.converged
    # the T-maze needs 6 sweeps for the sign's value to reach the junction
    with pytest.warns(InfometerWarning, match="did not converge in 2 iterations"):
        pv = pair_value_iteration(w.pomdp(), max_iter=2)
    assert not pv.converged


def test_bad_arguments():
    p = tmaze().pomdp()
    with pytest.raises(ValueError, match="weighting must be one of"):
        PairPolicy(momdp_pair_value_iteration(p, 2), "diagonal")
    with pytest.raises(ValueError, match="does not divide"):
        momdp_pair_value_iteration(p, 3)
    with pytest.raises(ValueError, match="lam must be"):
        pair_value_iteration(p, lam=0.0)
    with pytest.raises(TypeError, match="hold_resolved"):
        pair_value_iteration(p, hold_resolved="yes")
    rng = np.random.default_rng(1)
    noisy = POMDP(
        np.tile(np.eye(4), (2, 1, 1)),
        np.zeros((4, 2)),
        rng.dirichlet(np.ones(3), size=4),
        0.9,
        np.ones(4) / 4,
    )
    with pytest.raises(ValueError, match="visible part is not observed"):
        momdp_pair_value_iteration(noisy, 2)
