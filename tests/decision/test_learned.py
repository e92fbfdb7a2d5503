"""The differentiable planners: the convolutional value iteration is value iteration, the
expert labels are the exact planner's, and a tiny training run is seeded and usable.

Accuracy at full settings (success rates against QMDP-net on 10x10 maps) is measured in
benchmarks/accuracy/decision_learned.py and recorded in benchmarks/RESULTS.md.
"""

from __future__ import annotations

import numpy as np
import pytest

from infometer.systems.decision import generate_world, solve_mdp, solve_pomdp

torch = pytest.importorskip("torch")

from infometer.systems.decision.learned import (  # noqa: E402
    LearnedPlanner,
    _build_net,
    _inputs,
    imitation_data,
    pad_world,
)


def test_conv_value_iteration_with_the_true_kernel_is_value_iteration():
    # a one-hot 3x3 kernel per move on [R, V] (weight 1 on R, gamma on V), rewards on
    # entering (-1 a step, +10 - 1 the goal, -10 - 1 the other candidate, -1000 a wall) and
    # no value after a goal or a wall: the fixed point is the MDP value of every free cell
    w = generate_world(8, seed=3, discount=0.95)
    v_mdp = solve_mdp(w.pomdp()).values.reshape(-1, 2)
    net = _build_net("qmdp", 4, 1, 1, 2)
    weight = torch.zeros(4, 2, 3, 3)  # float64 below: the check is about the algorithm
    for a, (dr, dc) in enumerate([(-1, 0), (0, 1), (1, 0), (0, -1)]):
        weight[a, 0, 1 + dr, 1 + dc] = 1.0
        weight[a, 1, 1 + dr, 1 + dc] = 0.95
    net = net.double()
    net.trans.weight.data = weight.double()
    x = torch.as_tensor(_inputs(w))
    for g in range(2):
        r = -1.0 - 1000.0 * x[g, 0] + 10.0 * x[g, 2] - 10.0 * x[g, 3]
        alive = 1.0 - (x[g, 0] + x[g, 2] + x[g, 3]).clamp(max=1)
        with torch.no_grad():
            _, v = net._vi(
                r[None, None].double(),
                torch.zeros(1, 1, 8, 8).double(),
                alive[None, None].double(),
                400,
            )
        got = w.to_grid(v_mdp[:, g])
        free = ~w.walls.copy()
        for cell in w.goals:
            free[cell] = False
        # 400 sweeps: the distance to the fixed point is below 0.95^400 * 220 < 1e-6
        assert np.allclose(v[0, 0].numpy()[free], got[free], atol=1e-6)


def test_imitation_labels_are_the_exact_planners_actions():
    worlds = [generate_world(6, seed=s) for s in range(3)]
    data = imitation_data(worlds, canvas=8)
    assert data.inputs.shape == (3, 2, 4, 8, 8)
    assert np.allclose(data.target.sum(axis=1), 1.0) and np.allclose(data.belief.sum(axis=1), 1.0)
    # the first labelled sample of world 0 is its start with the uniform belief
    sol = solve_pomdp(worlds[0].pomdp(), method="exact")
    q0 = sol.policy.q[0]
    best = q0 >= q0.max() - 1e-9 * max(1, abs(q0.max()))
    assert tuple(data.cell[0]) == worlds[0].start and np.allclose(data.belief[0], 0.5)
    assert np.array_equal(data.target[0] > 0, best)


@pytest.mark.parametrize("kind", ["vi2n", "qmdp"])
def test_tiny_training_is_seeded_and_usable(kind):
    worlds = [generate_world(6, seed=s) for s in range(6)]
    data = imitation_data(worlds, canvas=8)
    kw = dict(canvas=8, hidden=4, k_vi=6, k_pair=6, epochs=2, batch_maps=3, seed=1, threads=1)
    a = LearnedPlanner(kind, **kw).fit(data)
    b = LearnedPlanner(kind, **kw).fit(data)
    assert a.log.losses == b.log.losses and len(a.log.losses) == 2
    assert all(np.isfinite(a.log.losses)) and 0.0 <= a.log.train_accuracy <= 1.0
    assert a.log.cpu_seconds > 0 and len(a.log.loadavg) == 3
    pol = a.policy(worlds[0])
    assert (pol.q_pair is not None) == (kind == "vi2n")
    stats = a.evaluate(worlds[:2], max_steps=20)
    assert 0.0 <= stats.success_rate <= 1.0 and stats.n_worlds == 2


def test_bad_arguments():
    with pytest.raises(ValueError, match="kind must be one of"):
        LearnedPlanner("vin")
    with pytest.raises(ValueError, match="larger than canvas=6"):
        pad_world(generate_world(8, seed=0), 6)
    with pytest.raises(ValueError, match="worlds is empty"):
        imitation_data([])
    with pytest.raises(RuntimeError, match="fit"):
        LearnedPlanner("qmdp", canvas=8).policy(generate_world(6, seed=0))
