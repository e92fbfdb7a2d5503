"""Grid-world tooling: maps, symmetric generation, success rates, PNG rendering."""

from __future__ import annotations

import numpy as np
import pytest

from infometer.systems.decision import (
    GridWorld,
    PairPolicy,
    generate_world,
    momdp_pair_value_iteration,
    qmdp,
    render_maps,
    render_world,
    solve_pomdp,
    tmaze,
)
from infometer.systems.decision.grid import success_rate


def test_tmaze_layout():
    w = tmaze(3, 2)
    assert w.shape == (4, 5) and len(w.cells) == 8
    assert w.start == (2, 2) and w.landmarks == ((3, 2),) and w.goals == ((0, 0), (0, 4))
    p = w.pomdp()
    assert p.n_states == 16 and p.terminal.sum() == 4
    assert p.deterministic_observations and p.deterministic_transitions


@pytest.mark.parametrize("seed", [0, 5, 11])
def test_symmetric_worlds_are_mirror_images(seed):
    w = generate_world(9, seed=seed)
    assert (w.walls == w.walls[:, ::-1]).all()
    (r0, c0), (r1, c1) = w.goals
    assert r0 == r1 and c0 + c1 == w.shape[1] - 1
    assert w.reachable()
    assert w.landmarks[0][1] != w.shape[1] // 2
    again = generate_world(9, seed=seed)
    assert (again.walls == w.walls).all() and again.landmarks == w.landmarks


def test_slip_spreads_moves():
    w = generate_world(6, slip=0.3, seed=2)
    t = w.pomdp().transitions
    assert np.allclose(t.sum(axis=2), 1.0)
    assert not w.pomdp().deterministic_transitions


def test_success_rates_order_the_planners():
    worlds = [generate_world(7, seed=s) for s in range(6)]
    exact = success_rate(worlds, lambda w: solve_pomdp(w.pomdp(), method="exact").policy)
    pair = success_rate(
        worlds, lambda w: PairPolicy(momdp_pair_value_iteration(w.pomdp(), 2), "pairs")
    )
    q = success_rate(worlds, lambda w: qmdp(w.pomdp()))
    assert exact.success_rate == 1.0 and exact.terminated_rate == 1.0
    assert pair.success_rate == 1.0
    assert q.success_rate < 1.0  # QMDP does not look for the landmark
    assert "success" in repr(q)


def test_render(tmp_path):
    w = generate_world(8, seed=1)
    ep = w.run(solve_pomdp(w.pomdp(), method="exact").policy, 0)
    fv = momdp_pair_value_iteration(w.pomdp(), 2)
    a, b = tmp_path / "world.png", tmp_path / "m.png"
    ax = render_world(
        w,
        path=a,
        trajectories=[("exact", w.path(ep))],
        values=fv.reward_map(w.goal_prior),
        title="t",
    )
    axes = render_maps(w, fv.reward_map(w.goal_prior), fv.informative_map(w.goal_prior), path=b)
    assert ax.get_title() == "t" and len(axes) == 2
    for f in (a, b):
        assert f.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f.stat().st_size > 2000


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"start": (0, 0)}, "start cell .* is a wall"),
        ({"goals": [(1, 1), (1, 1)]}, "goals must be distinct"),
        ({"goals": []}, "at least one"),
        ({"landmarks": [(9, 9)]}, "outside"),
        ({"goal_prior": [0.9, 0.2]}, "goal_prior sums to"),
        ({"slip": 0.9}, "slip must be <= 0.75"),
        ({"walls": np.zeros(5)}, "walls must be a non-empty 2-D"),
        ({"start": "a"}, "start must be a"),
    ],
)
def test_bad_worlds(kw, match):
    walls = np.ones((4, 4), dtype=bool)
    walls[1:3, 1:3] = False
    args = {"walls": walls, "start": (2, 1), "goals": [(1, 1), (1, 2)], "landmarks": [(2, 2)]}
    args.update(kw)
    with pytest.raises((ValueError, TypeError), match=match):
        GridWorld(**args)


def test_bad_generation_arguments():
    with pytest.raises(ValueError, match="size must be >= 5"):
        generate_world(3)
    with pytest.raises(ValueError, match="n_goals=2"):
        generate_world(8, n_goals=3)
    with pytest.raises(ValueError, match="kind must be one of"):
        generate_world(8, kind="maze")
    assert generate_world(8, kind="random", n_goals=3, seed=4).n_goals == 3
