"""The fixed cost of a public call: microseconds per call of small public calls.

Each contender runs its call ``--calls`` times per timed run (a single call is below the
timer's resolution), interleaved through ``benchmarks/_timing.py`` (one untimed warm-up,
``--repeats`` runs, min and median).  Run it against two checkouts to compare them::

    PYTHONPATH=src .venv/bin/python benchmarks/dev/call_overhead.py
    PYTHONPATH=/path/to/other/checkout/src .venv/bin/python benchmarks/dev/call_overhead.py

BLAS / OpenMP / numba are pinned to one thread unless those variables are set.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
from _timing import Candidate, Run, interleave  # noqa: E402

import infometer as im  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000, help="samples of each signal")
    ap.add_argument("--calls", type=int, default=2000, help="calls per timed run")
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    x = rng.normal(size=a.n).cumsum()
    y = x + rng.normal(size=a.n) * 10
    sym = rng.integers(0, 8, size=a.n)
    img = np.random.default_rng(3).normal(size=(31, 31)).cumsum(0)
    calls = {
        "complexity permutation (order 5, normalize)": lambda: im.complexity(
            x, "permutation", order=5, normalize=True
        ),
        "complexity svd (order 5, normalize)": lambda: im.complexity(
            x, "svd", order=5, normalize=True
        ),
        "complexity permutation_2d, 31 x 31 image": lambda: im.complexity(img, "permutation_2d"),
        "mutual_info gaussian": lambda: im.mutual_info(x, y, method="gaussian"),
        "entropy plugin (8 symbols)": lambda: im.entropy(sym, method="plugin"),
    }

    def loop(f):
        def run():
            for _ in range(a.calls):
                v = f()
            return float(v.value)

        return run

    res = interleave([Candidate(k, loop(f)) for k, f in calls.items()], repeats=a.repeats)
    run = Run(("infometer",))
    run.finish()
    print(run.header())
    print(f"\nN = {a.n}; infometer from {Path(im.__file__).parent}\n")
    print("| call | µs per call, CPU (min) | median | wall (min) |")
    print("|---|---|---|---|")
    for name, t in res.items():
        per = 1e6 / a.calls
        print(
            f"| {name} | {t.stat('cpu', 'min') * per:.1f} | {t.stat('cpu', 'median') * per:.1f} "
            f"| {t.stat('wall', 'min') * per:.1f} |"
        )


if __name__ == "__main__":
    main()
