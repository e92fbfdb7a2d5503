"""Does the greedy / beam multiplet search find what the exhaustive search finds?

On random data sets with planted higher-order structure (a synergistic group: one
variable a weighted sum of 4 others plus noise; a redundant group: 4 variables sharing a
driver; weak random mixing of all columns), every multiplet of sizes 3..6 of 20 variables
is evaluated (``im.multiplets(search="exhaustive")``, 60,249 multiplets) and compared
with ``search="greedy"`` and ``search="beam"`` at two widths: for each size, the share of
data sets where the search's best multiplet is the exhaustive optimum, and the mean gap
(nats) between the two values.  Gaussian-copula O-information, objective synergy.

    PYTHONPATH=src OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/accuracy/multivariate.py \\
        [--datasets 20] [--png docs/img/multivariate_search.png]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from math import comb
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import _timing as T  # noqa: E402

import infometer as im  # noqa: E402

SEARCHES = [("greedy", 1), ("beam", 5), ("beam", 20)]
SIZES = (3, 6)


def planted(seed: int, n: int = 2000, d: int = 20) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d))
    cols = rng.permutation(d)
    syn, red = cols[:5], cols[5:9]
    w = rng.uniform(0.5, 1.5, size=4) * rng.choice([-1, 1], size=4)
    x[:, syn[4]] = x[:, syn[:4]] @ w + rng.uniform(0.5, 2.0) * rng.normal(size=n)
    x[:, red] += rng.uniform(0.5, 1.5) * rng.normal(size=(n, 1))
    return x @ (np.eye(d) + 0.1 * rng.normal(size=(d, d)))


def best_by_size(frame, sign: float = -1.0) -> dict[int, tuple]:
    out = {}
    for s, g in frame.groupby("size"):
        i = int(np.argmax(sign * g["value"].to_numpy()))
        out[int(s)] = (g["multiplet"].iloc[i], float(g["value"].iloc[i]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", type=int, default=20)
    ap.add_argument("--png", default=None)
    args = ap.parse_args()
    sizes = range(SIZES[0], SIZES[1] + 1)
    hit = {k: {s: 0 for s in sizes} for k in SEARCHES}
    gap = {k: {s: [] for s in sizes} for k in SEARCHES}
    times = {"exhaustive": [], **{k: [] for k in SEARCHES}}
    load0 = os.getloadavg()
    for seed in range(args.datasets):
        x = planted(seed)
        t0 = time.process_time()
        ex = best_by_size(im.multiplets(x, sizes=SIZES, progress=False).frame)
        times["exhaustive"].append(time.process_time() - t0)
        for k in SEARCHES:
            t0 = time.process_time()
            r = im.multiplets(x, sizes=SIZES, search=k[0], beam_width=k[1], progress=False)
            times[k].append(time.process_time() - t0)
            got = best_by_size(r.frame)
            for s in sizes:
                hit[k][s] += got[s][0] == ex[s][0]
                gap[k][s].append(got[s][1] - ex[s][1])  # >= 0: the search is less synergistic
        print(f"data set {seed}: done", file=sys.stderr, flush=True)
    print(
        f"Command: `{T.command_line()}`; {args.datasets} data sets (n=2000, d=20); "
        f"load before {load0}, after {os.getloadavg()}\n"
    )
    print(
        "| search | "
        + " | ".join(f"size {s}: found, mean gap" for s in sizes)
        + " | CPU s per search |"
    )
    print("|---|" + "---|" * (len(sizes) + 1))
    for k in SEARCHES:
        cells = [f"{hit[k][s]}/{args.datasets}, {np.mean(gap[k][s]):.1e}" for s in sizes]
        name = k[0] if k[0] == "greedy" else f"beam, width {k[1]}"
        print(f"| {name} | " + " | ".join(cells) + f" | {np.median(times[k]):.3f} |")
    total = sum(comb(20, s) for s in sizes)
    print(
        f"| exhaustive ({total:,} multiplets) | "
        + " | ".join("—" for _ in sizes)
        + f" | {np.median(times['exhaustive']):.3f} |"
    )
    if args.png:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
        for k in SEARCHES:
            name = k[0] if k[0] == "greedy" else f"beam {k[1]}"
            axes[0].plot(list(sizes), [hit[k][s] / args.datasets for s in sizes], "o-", label=name)
            axes[1].plot(list(sizes), [np.mean(gap[k][s]) for s in sizes], "o-", label=name)
        axes[0].set_ylabel("exhaustive optimum found\n(share of data sets)")
        axes[0].set_ylim(-0.05, 1.05)
        axes[1].set_ylabel("mean gap to the optimum (nats)")
        for ax in axes:
            ax.set_xlabel("multiplet size")
            ax.set_xticks(list(sizes))
            ax.legend(fontsize=8)
        fig.suptitle(
            f"greedy/beam vs exhaustive O-information search ({args.datasets} "
            "planted data sets, 20 variables)",
            fontsize=10,
        )
        fig.tight_layout()
        fig.savefig(args.png, dpi=110)
        print(f"\nfigure: {args.png}")


if __name__ == "__main__":
    main()
