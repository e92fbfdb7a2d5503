"""Value-of-information maps and trajectories on the T-maze and a generated grid world.

    PYTHONPATH=src python examples/voi_maps.py [OUT_DIR]      # default examples-out/

Writes, for the T-maze of the brief and a 10x10 symmetric hidden-goal world:
* ``*_maps.png``: the two VI²N maps, rewarding cells (MDP value averaged over the goal) and
  informative cells (pair values, highest where the goal is revealed);
* ``*_paths.png``: trajectories of the exact planner, QMDP, and the pair planner with both
  action weightings, for goal 0;
and prints the known values (POMDP 4, no sign -4, MDP 6, value of the sign 8, EVPI 10).
"""

from __future__ import annotations

import sys
from pathlib import Path

from infometer.systems.decision import (
    PairPolicy,
    generate_world,
    momdp_pair_value_iteration,
    pomdp_evpi,
    qmdp,
    render_maps,
    render_world,
    solve_mdp,
    solve_pomdp,
    tmaze,
    value_of_information_source,
)


def show(world, name: str, out: Path, max_steps: int) -> None:
    p = world.pomdp()
    pv = momdp_pair_value_iteration(p, world.n_goals)
    render_maps(
        world,
        pv.reward_map(world.goal_prior),
        pv.informative_map(world.goal_prior),
        path=out / f"{name}_maps.png",
        title=name,
    )
    policies = {
        "exact": solve_pomdp(p, method="exact").policy,
        "QMDP": qmdp(p),
        "pairs weighting": PairPolicy(pv, "pairs"),
        "product weighting": PairPolicy(pv, "product"),
    }
    paths = []
    for label, pol in policies.items():
        ep = world.run(pol, 0, max_steps=max_steps)
        tag = (
            "reaches G0" if world.success(ep) else ("wrong goal" if ep.terminated else "never ends")
        )
        paths.append((f"{label} ({tag}, {ep.steps} steps)", world.path(ep)))
        print(f"  {name:8s} {label:18s} return {ep.total_reward:6.1f}  {tag}")
    render_world(
        world, path=out / f"{name}_paths.png", trajectories=paths, title=f"{name}: goal G0"
    )


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "examples-out")
    out.mkdir(parents=True, exist_ok=True)
    maze = tmaze()
    p, blind = maze.pomdp(), maze.pomdp(landmarks=False)
    print("T-maze (stem 3, arms 2, +10 / -10, step cost 1):")
    print(f"  POMDP value          {solve_pomdp(p).value.value:6.2f}   (brief: 4)")
    print(f"  without the sign     {solve_pomdp(blind).value.value:6.2f}   (brief: -4)")
    print(f"  goal known (MDP)     {p.initial_belief @ solve_mdp(p).values:6.2f}   (brief: 6)")
    print(f"  value of the sign    {value_of_information_source(p, blind).value:6.2f}   (brief: 8)")
    print(f"  EVPI (no sign)       {pomdp_evpi(blind).value:6.2f}   (brief: 10)")
    show(maze, "tmaze", out, 30)
    show(generate_world(10, seed=4), "world10", out, 60)
    print(f"wrote PNGs to {out}/")


if __name__ == "__main__":
    main()
