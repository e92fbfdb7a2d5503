"""One whole ``im.mutual_info(x, y, method="ksg1")`` call, A/B between source trees.

    git worktree add /tmp/before <rev>
    python benchmarks/dev/ksg_ab.py --src /tmp/before/src,src --n 1e6 --rounds 5

Data as in ``benchmarks/speed/limits.py`` (task ``ksg_large``): x ~ N(0, I_d),
y = 0.75 x + sqrt(1 - 0.75^2) noise, seed 0, ``--d`` columns each.  For every ``--src`` (a
directory put first on ``PYTHONPATH``) a fresh process loads the kernels on a small problem,
then times one call (wall, and CPU of all threads).  The sources take turns (A B A B ...),
``--rounds`` rounds;
the minimum and median of each are printed with the 1-minute load of every run, and the
values must be equal (only the speed may differ).  This machine's speed drifts by tens of
percent over minutes, so only ratios of interleaved runs are compared.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

_CHILD = r"""
import json, math, sys, time
import numpy as np
import infometer as im
n, d = int(sys.argv[1]), int(sys.argv[2])
def gauss(n, d):  # limits.py's data (RHO = 0.75)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, d))
    return x, 0.75 * x + math.sqrt(1 - 0.75**2) * rng.standard_normal((n, d))
im.mutual_info(*gauss(30_000, d), method="ksg1")  # load (or compile) the kernels
x, y = gauss(n, d)
w, c = time.perf_counter(), time.process_time()
v = im.mutual_info(x, y, method="ksg1").value
print(json.dumps([time.perf_counter() - w, time.process_time() - c, v]))
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", required=True, help="comma-separated source dirs to compare")
    ap.add_argument("--n", default="1e6")
    ap.add_argument("--d", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args(argv)
    srcs = a.src.split(",")
    runs: dict[str, list] = {s: [] for s in srcs}
    for r in range(a.rounds):
        for s in srcs:
            path = os.pathsep.join([s, os.environ.get("PYTHONPATH", "")])
            env = dict(os.environ, PYTHONPATH=path)
            cmd = [sys.executable, "-c", _CHILD, str(int(float(a.n))), str(a.d)]
            out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
            wall, cpu, value = json.loads(out.stdout.strip().splitlines()[-1])
            load = os.getloadavg()[0]
            runs[s].append((wall, cpu, value))
            print(f"[{r + 1}/{a.rounds}] {s}: {wall:.3f} s wall, {cpu:.3f} s CPU, load {load:.1f}")
    values = {v for s in srcs for _, _, v in runs[s]}
    if len(values) != 1:
        raise SystemExit(f"the sources give different values: {sorted(values)}")
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(f"{stamp}; KSG-1 {a.d}x{a.d}, N={float(a.n):.0e}, value {values.pop():.10f}")
    base = None
    for s in srcs:
        w = sorted(x[0] for x in runs[s])
        c = sorted(x[1] for x in runs[s])
        line = f"{s}: min wall {w[0]:.3f} s (median {w[len(w) // 2]:.3f}), min CPU {c[0]:.3f} s"
        if base is None:
            base = (w[0], c[0])
        else:
            line += f" | /{srcs[0]}: wall {w[0] / base[0]:.2f}x, CPU {c[0] / base[1]:.2f}x"
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
