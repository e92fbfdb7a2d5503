"""Learned VI²N vs a QMDP-net-style network on ambiguous grid worlds; the learned sender.

Both networks are trained by imitation of the exact planner (belief-space DP) on generated
symmetric hidden-goal grid worlds (6x6 to 10x10, one landmark that shows the goal), then run
greedily on held-out maps; success = ending on the true goal within 4 * rows * cols steps,
averaged over both goals.  The tabular planners (exact, the pair planner with both
weightings, QMDP) are scored on the same maps.  Training uses one torch thread per model (the
convolutions are tiny; two threads were ~10x slower in CPU time on the shared machine).

The persuasion part trains the policy-gradient sender on the prosecutor-judge problem (one
turn, two messages) for several seeds and reports its value as a fraction of the LP value.

    PYTHONPATH=src python benchmarks/decision_learned.py --seeds 0,1,2
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

from infometer.decision import (
    PairPolicy,
    generate_world,
    momdp_pair_value_iteration,
    qmdp,
    solve_pomdp,
)
from infometer.decision.grid import success_rate
from infometer.decision.learned import LearnedPlanner, imitation_data
from infometer.decision.multiturn import train_sender

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
    ap.add_argument("--out", default="bench-out/decision_learned.json")
    args = ap.parse_args()
    torch.set_num_threads(1)
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
    sender = []
    for seed in (int(s) for s in args.sender_seeds.split(",")):
        t = train_sender(
            [0.7, 0.3], [[1, 0], [0, 1]], [[0, 0], [1, 1]], steps=1500, seed=seed, unit="bits"
        )
        sender.append(
            {
                "seed": seed,
                "value": t.result.value.value,
                "lp": t.lp_value,
                "fraction": t.fraction_of_lp,
                "signal_mi_bits": t.result.total_mi.value,
                "wall_s": t.wall_seconds,
            }
        )
        print(sender[-1], flush=True)
    info["load_end"] = os.getloadavg()
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    with open(args.out, "w") as f:
        json.dump({"info": info, "planners": rows, "sender": sender}, f, indent=1)
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


if __name__ == "__main__":
    main()
