"""Learned VI²N vs a QMDP-net-style network on ambiguous grid worlds; the learned sender.

Both networks are trained by imitation of the exact planner (belief-space DP) on generated
symmetric hidden-goal grid worlds (6x6 to 10x10, one landmark that shows the goal), then run
greedily on held-out maps; success = ending on the true goal within 4 * rows * cols steps,
averaged over both goals.  The tabular planners (exact, the pair planner with both
weightings, QMDP) are scored on the same maps.  Training uses one torch thread per model (the
convolutions are tiny; two threads were ~10x slower in CPU time on the shared machine).

The persuasion part (``--part sender``) trains the policy-gradient sender on the
prosecutor-judge problem (two messages per turn, 1-3 turns, 1 or 4 restarts) for several
seeds and reports its value as a fraction of the LP value.

    PYTHONPATH=src python benchmarks/accuracy/decision_learned.py --part planners --seeds 0,1,2
    PYTHONPATH=src python benchmarks/accuracy/decision_learned.py --part sender \
        --sender-seeds 0,1,2,3,4
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import time

import numpy as np
import torch

from infometer.systems.decision import (
    PairPolicy,
    generate_world,
    momdp_pair_value_iteration,
    qmdp,
    solve_pomdp,
)
from infometer.systems.decision.grid import success_rate
from infometer.systems.decision.learned import LearnedPlanner, imitation_data
from infometer.systems.decision.multiturn import train_sender

TABULAR = {
    "exact (belief DP)": lambda w: solve_pomdp(w.pomdp(), method="exact").policy,
    "pair planner, pairs weighting": lambda w: PairPolicy(
        momdp_pair_value_iteration(w.pomdp(), 2), "pairs"
    ),
    "pair planner, product weighting": lambda w: PairPolicy(
        momdp_pair_value_iteration(w.pomdp(), 2), "product"
    ),
    "QMDP": lambda w: qmdp(w.pomdp()),
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--train-maps", type=int, default=400)
    ap.add_argument("--test-maps", type=int, default=200)
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--sender-seeds", default="0,1,2,3,4")
    ap.add_argument("--part", choices=["planners", "sender"], default="planners")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    torch.set_num_threads(1)
    if args.part == "sender":
        sender(args)
        return
    seeds = [int(s) for s in args.seeds.split(",")]
    info = {
        "date": dt.date.today().isoformat(),
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs",
        "torch": torch.__version__,
        "load_start": os.getloadavg(),
    }
    rng = np.random.default_rng(12345)
    sizes = rng.integers(6, 11, args.train_maps)
    train = [generate_world(int(n), seed=10_000 + i) for i, n in enumerate(sizes)]
    t0 = time.perf_counter()
    data = imitation_data(train)
    info["label_seconds"] = time.perf_counter() - t0
    info["n_samples"] = int(data.map_index.size)
    tests = {
        f"symmetric {n}x{n}": [
            generate_world(n, seed=90_000 + 1000 * n + i) for i in range(args.test_maps)
        ]
        for n in (8, 10)
    }
    tests["random 10x10 (layout not seen in training)"] = [
        generate_world(10, kind="random", seed=70_000 + i) for i in range(args.test_maps)
    ]
    rows = []
    for name, make in TABULAR.items():
        for tname, worlds in tests.items():
            st = success_rate(worlds, make)
            rows.append(
                {
                    "planner": name,
                    "test": tname,
                    "success": st.success_rate,
                    "stderr": st.stderr,
                    "steps": st.mean_steps,
                }
            )
            print(rows[-1], flush=True)
    for kind in ("vi2n", "qmdp"):
        for seed in seeds:
            net = LearnedPlanner(kind, epochs=args.epochs, lr=0.01, seed=seed, threads=1).fit(data)
            log = net.log
            for tname, worlds in tests.items():
                st = net.evaluate(worlds)
                rows.append(
                    {
                        "planner": f"learned {kind}",
                        "seed": seed,
                        "test": tname,
                        "success": st.success_rate,
                        "stderr": st.stderr,
                        "steps": st.mean_steps,
                        "train_accuracy": log.train_accuracy,
                        "wall_s": log.wall_seconds,
                        "cpu_s": log.cpu_seconds,
                        "load": log.loadavg,
                    }
                )
                print(rows[-1], flush=True)
    info["load_end"] = os.getloadavg()
    out = args.out or "bench-out/decision_planners.json"
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    with open(out, "w") as f:
        json.dump({"info": info, "planners": rows}, f, indent=1)
    print(json.dumps(info))
    # markdown summary: learned planners as mean (min-max) over seeds
    print("\n| planner | " + " | ".join(tests) + " |")
    print("|---|" + "---|" * len(tests))
    for name in [*TABULAR, "learned vi2n", "learned qmdp"]:
        cells = []
        for tname in tests:
            s = [r["success"] for r in rows if r["planner"] == name and r["test"] == tname]
            cells.append(
                f"{np.mean(s):.3f}"
                if len(s) == 1
                else f"{np.mean(s):.3f} ({min(s):.3f}-{max(s):.3f})"
            )
        print(f"| {name} | " + " | ".join(cells) + " |")


def sender(args: argparse.Namespace) -> None:
    """Policy-gradient sender vs the LP value on the prosecutor-judge problem."""
    problem = ([0.7, 0.3], [[1, 0], [0, 1]], [[0, 0], [1, 1]])
    load0 = os.getloadavg()
    rows = []
    for turns in (1, 2, 3):
        for restarts in (1, 4):
            for seed in (int(s) for s in args.sender_seeds.split(",")):
                c0 = time.process_time()
                t = train_sender(
                    *problem, n_turns=turns, restarts=restarts, steps=2000, seed=seed, unit="bits"
                )
                rows.append(
                    {
                        "turns": turns,
                        "restarts": restarts,
                        "seed": seed,
                        "value": t.result.value.value,
                        "lp": t.lp_value,
                        "fraction": t.fraction_of_lp,
                        "mi_bits": t.result.total_mi.value,
                        "cmi_bits": [e.value for e in t.result.per_turn_cmi],
                        "wall_s": t.wall_seconds,
                        "cpu_s": time.process_time() - c0,
                    }
                )
                print(rows[-1], flush=True)
    info = {"date": dt.date.today().isoformat(), "load_start": load0, "load_end": os.getloadavg()}
    out = args.out or "bench-out/decision_sender.json"
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    with open(out, "w") as f:
        json.dump({"info": info, "sender": rows}, f, indent=1)
    print(json.dumps(info))
    print(
        "\n| turns | restarts | fraction of the LP value, mean (min-max) over seeds | cpu s/run |"
    )
    print("|---|---|---|---|")
    for turns in (1, 2, 3):
        for restarts in (1, 4):
            sel = [r for r in rows if r["turns"] == turns and r["restarts"] == restarts]
            f = [r["fraction"] for r in sel]
            print(
                f"| {turns} | {restarts} | {np.mean(f):.3f} ({min(f):.3f}-{max(f):.3f}) | "
                f"{np.mean([r['cpu_s'] for r in sel]):.1f} |"
            )


if __name__ == "__main__":
    main()
