"""Exact and point-based POMDP values against hand-derived answers.

The T-maze (brief §1, re-derived): stem cells 0..3 with the sign at 0 and the start at 1,
arms of 2 cells, step cost 1, +10 for the right end and -10 for the wrong one, prior 1/2.
* with the sign: walk 1 step down to read it, then 5 steps to the right end: -6 + 10 = 4;
* without it: 4 steps to either end, right half the time: -4 + 0 = -4;
* goal known (MDP): 4 steps: -4 + 10 = 6;
* value of the sign 4 - (-4) = 8; EVPI relative to no information 6 - (-4) = 10, relative
  to the problem with the sign 6 - 4 = 2.
With discount 0.95 the optimal walk collects -(1 - .95^6)/.05 + 10 * .95^5.
All these are exact in binary floating point or within 1e-9 of the closed form (value
iteration stops at a relative change of 1e-10).
"""

from __future__ import annotations

import numpy as np
import pytest

import infometer.systems.decision.solve as solve_mod
from infometer.systems.decision import (
    POMDP,
    policy_value,
    pomdp_evpi,
    qmdp,
    run_episode,
    solve_mdp,
    solve_pomdp,
    tmaze,
    value_of_information_source,
)

TOL = 1e-9
G95 = -(1 - 0.95**6) / 0.05 + 10 * 0.95**5  # 2.4396471875


@pytest.fixture(scope="module")
def maze():
    return tmaze()


def test_tmaze_known_values(maze):
    with_sign, no_sign = maze.pomdp(), maze.pomdp(landmarks=False)
    assert abs(solve_pomdp(with_sign, method="exact").value.value - 4.0) < TOL
    assert abs(solve_pomdp(no_sign, method="exact").value.value + 4.0) < TOL
    mdp = with_sign.initial_belief @ solve_mdp(with_sign).values
    assert abs(mdp - 6.0) < TOL
    voi = value_of_information_source(with_sign, no_sign)
    assert abs(voi.value - 8.0) < TOL and voi.unit == "utility"
    assert abs(pomdp_evpi(no_sign).value - 10.0) < TOL
    assert abs(pomdp_evpi(with_sign).value - 2.0) < TOL


def test_tmaze_merge_observations_removes_the_sign(maze):
    p = maze.pomdp()
    sign = f"{maze.landmarks[0]}:"
    group = [i for i, n in enumerate(p.observation_names) if n.startswith(sign)]
    assert len(group) == 2  # the sign reads g0 or g1
    merged = p.merge_observations([group])
    assert merged.n_observations == p.n_observations - 1
    assert abs(solve_pomdp(merged, method="exact").value.value + 4.0) < TOL


def test_qmdp_never_reads_the_sign(maze):
    pol = qmdp(maze.pomdp())
    for goal in range(2):
        ep = maze.run(pol, goal, max_steps=60)
        assert maze.landmarks[0] not in maze.path(ep)
        assert not ep.terminated
    v = policy_value(maze.pomdp(), pol, max_steps=60)
    assert v.method == "exact_rollout" and v.diagnostics["terminated"] == 0.0


def test_exact_policy_reaches_the_optimum(maze):
    sol = solve_pomdp(maze.pomdp(), method="exact")
    for goal in range(2):
        ep = maze.run(sol.policy, goal)
        assert ep.terminated and maze.success(ep) and ep.total_reward == 4.0
        assert maze.landmarks[0] in maze.path(ep)


def test_discounted_tmaze_exact_and_pbvi_agree():
    p = tmaze(discount=0.95).pomdp()
    ex = solve_pomdp(p, method="exact").value.value
    pb = solve_pomdp(p, method="pbvi", seed=1).value.value
    assert abs(ex - G95) < TOL
    # PBVI is a lower bound, tight here: its expansion reaches every belief of the optimal walk
    assert pb <= ex + TOL and abs(pb - G95) < 1e-6


def listen_pomdp(q: float, repeat: bool = False, discount: float = 0.95) -> POMDP:
    """Two hidden sides; listen once (noisy, right w.p. q) then guess, or guess at once.

    States: 0/1 before listening (side L/R), 2/3 after, 4 terminal.  Actions: listen,
    guess L, guess R.  Guessing right pays 1.  With ``repeat`` listening after listening
    hears again, so the reachable beliefs never end.
    """
    t = np.zeros((3, 5, 5))
    r = np.zeros((5, 3))
    for side in range(2):
        t[0, side, 2 + side] = 1.0
        t[0, 2 + side, 2 + side if repeat else 4] = 1.0
        for s in (side, 2 + side):
            for guess in range(2):
                t[1 + guess, s, 4] = 1.0
                r[s, 1 + guess] = float(guess == side)
    t[:, 4, 4] = 1.0
    z = np.zeros((5, 3))  # heard L, heard R, nothing
    z[[0, 1, 4], 2] = 1.0
    z[2] = [q, 1 - q, 0]
    z[3] = [1 - q, q, 0]
    return POMDP(t, r, z, discount, [0.5, 0.5, 0, 0, 0])


@pytest.mark.parametrize("q", [0.6, 0.8, 0.95])
def test_noisy_sensor_value_exact_and_pbvi(q):
    # listening then guessing is worth 0.95 q, guessing now 0.5; the sensor adds 0.95 q - 0.5
    p = listen_pomdp(q)
    want = max(0.5, 0.95 * q)
    assert abs(solve_pomdp(p, method="exact").value.value - want) < TOL
    assert abs(solve_pomdp(p, method="pbvi").value.value - want) < 1e-6
    voi = value_of_information_source(p, p.merge_observations([[0, 1]]))
    assert abs(voi.value - (want - 0.5)) < TOL


def test_repeated_noisy_looks_stay_finite_after_rounding():
    # the belief after k net "heard L" is 4^k / (4^k + 1): within 1e-10 of 1 after 17 looks,
    # where beliefs are identified, so exact DP finishes; listening more than once helps
    p = listen_pomdp(0.8, repeat=True)
    sol = solve_pomdp(p, method="exact")
    assert sol.value.diagnostics["n_beliefs"] < 100
    assert sol.value.value > 0.95 * 0.8


def random_pomdp(seed: int, n_s=5, n_a=3, n_o=3, discount=0.9) -> POMDP:
    rng = np.random.default_rng(seed)
    return POMDP(
        rng.dirichlet(np.ones(n_s), size=(n_a, n_s)),
        rng.normal(size=(n_s, n_a)),
        rng.dirichlet(np.ones(n_o), size=n_s),
        discount,
        np.ones(n_s) / n_s,
    )


def test_too_large_for_exact_dp_says_so_and_auto_falls_back():
    # noisy observations of a moving hidden state: the reachable beliefs multiply every step
    p = random_pomdp(7)
    with pytest.raises(ValueError, match="max_beliefs=200.*method='pbvi'"):
        solve_pomdp(p, method="exact", max_beliefs=200)
    sol = solve_pomdp(p, method="auto", max_beliefs=200, n_points=40)
    assert sol.method == "pbvi" and "pbvi" in sol.value.diagnostics["auto_reason"].lower()
    with pytest.raises(ValueError, match="discount < 1"):
        solve_pomdp(p.with_discount(1.0), method="pbvi")


def test_too_many_states_refused_before_starting(monkeypatch):
    monkeypatch.setattr(solve_mod, "MAX_EXACT_STATES", 4)
    with pytest.raises(ValueError, match="too many for exact.*method='pbvi'"):
        solve_pomdp(listen_pomdp(0.8), method="exact")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fully_observable_pomdp_equals_its_mdp(seed):
    p = random_pomdp(seed).fully_observable()
    v = solve_mdp(p).values
    for s in range(p.n_states):
        start = np.eye(p.n_states)[s]
        got = solve_pomdp(p.with_initial_belief(start), method="exact").value.value
        # both value iterations stop at a relative change of 1e-10; with gamma 0.9 the
        # distance to the fixed point is at most 10x that
        assert abs(got - v[s]) < 1e-8 * max(1, abs(v[s]))


def test_qmdp_is_an_upper_bound_and_pbvi_a_lower_bound():
    p = random_pomdp(4)
    pb = solve_pomdp(p, method="pbvi", n_points=80).value.value
    upper = float((p.initial_belief @ solve_mdp(p).q).max())
    assert pb <= upper + 1e-9


def test_episodes_are_reproducible_and_monte_carlo_has_an_error_bar():
    p = random_pomdp(5)
    pol = qmdp(p)
    a = run_episode(p, pol, max_steps=20, seed=3)
    b = run_episode(p, pol, max_steps=20, seed=3)
    assert a.states == b.states and a.rewards == b.rewards
    v = policy_value(p, pol, max_steps=30, n_episodes=100, seed=1)
    assert v.method == "monte_carlo" and v.stderr > 0 and v.n == 100
    assert policy_value(p, pol, max_steps=30, n_episodes=100, seed=1).value == v.value


@pytest.mark.parametrize(
    ("field", "value", "match"),
    [
        (
            "transitions",
            np.full((2, 3, 3), 0.5),
            r"transitions slice \[0, 0\] along axis -1 sums to",
        ),
        ("transitions", np.ones((2, 3)), "transitions must have shape"),
        ("rewards", np.zeros((2, 3)), r"rewards must have shape \(3, 2\)"),
        ("observations", np.full((3, 2), 0.7), r"observations slice \[0\] along axis -1 sums to"),
        ("observations", np.eye(4), r"observations must have shape \(3, \?\)"),
        ("discount", 1.5, "discount must be <= 1"),
        ("discount", 0.0, "discount must be > 0"),
        ("initial_belief", [0.5, 0.5, 0.5], "initial_belief sums to"),
        ("initial_belief", [1.0, 0.0], "initial_belief must have 3 entries"),
    ],
)
def test_bad_model_names_the_argument(field, value, match):
    args = {
        "transitions": np.tile(np.eye(3), (2, 1, 1)),
        "rewards": np.zeros((3, 2)),
        "observations": np.eye(3),
        "discount": 0.9,
        "initial_belief": [1.0, 0.0, 0.0],
    }
    args[field] = value
    with pytest.raises(ValueError, match=match):
        POMDP(**args)


def test_discount_one_without_an_exit_is_refused():
    # a loop that pays +1 forever has no finite value with discount 1
    p = POMDP(np.ones((1, 1, 1)), np.ones((1, 1)), np.ones((1, 1)), 1.0, [1.0])
    with pytest.raises(ValueError, match="did not converge"):
        solve_mdp(p, max_iter=500)
    with pytest.raises(ValueError, match="did not converge"):
        solve_pomdp(p, method="exact", max_iter=500)
