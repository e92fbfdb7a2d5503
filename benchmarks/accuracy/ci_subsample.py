"""Coverage of subsampling intervals when m / n is small (the ``MAX_SUBSAMPLE`` cap).

Usage::

    python benchmarks/accuracy/ci_subsample.py [--n 20000] [--m 1000] [--reps 40]

From n = 100,000 rows on, subsamples have at most ``MAX_SUBSAMPLE`` = 50,000 rows, so at
n = 10^6 m / n = 0.05.  This runs the same ratio at a size that is quick to repeat: a
bivariate Gaussian with rho = 0.6 (true MI -0.5 log(1 - 0.36) = 0.2231 nats), ``ksg1``,
nominal 90% intervals from the default 200 subsamples, ``--reps`` independent data sets,
with the cap set to ``--m``.  It
prints the coverage of the true value, the mean subsampling se and the sd of the
full-data estimates over the repetitions (what the se should match).
"""

from __future__ import annotations

import argparse
import math
import os
import time

import numpy as np


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=20_000)
    ap.add_argument("--m", type=int, default=1_000)
    ap.add_argument("--reps", type=int, default=40)
    a = ap.parse_args(argv)
    import infometer as im
    from infometer.core import resample

    resample.MAX_SUBSAMPLE = a.m
    rho, truth = 0.6, -0.5 * math.log(1 - 0.36)
    load0, c0, t0 = os.getloadavg()[0], time.process_time(), time.perf_counter()
    hits, ses, vals = 0, [], []
    for r in range(a.reps):
        rng = np.random.default_rng(1000 + r)
        x = rng.standard_normal(a.n)
        y = rho * x + math.sqrt(1 - rho**2) * rng.standard_normal(a.n)
        e = im.mutual_info(x, y, method="ksg1", ci=0.9, seed=r)
        hits += e.ci[0] <= truth <= e.ci[1]
        ses.append(e.stderr)
        vals.append(e.value)
    print(
        f"n={a.n}, m={a.m} (m/n={a.m / a.n:.3f}), {a.reps} reps, 200 subsamples, "
        f"nominal 90%: coverage {hits / a.reps:.3f}; mean se {np.mean(ses):.4f}, "
        f"sd of the estimates over reps {np.std(vals, ddof=1):.4f}, mean bias "
        f"{np.mean(vals) - truth:+.4f}; {time.perf_counter() - t0:.0f} s wall, "
        f"{time.process_time() - c0:.0f} s CPU, load {load0:.1f}->{os.getloadavg()[0]:.1f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
