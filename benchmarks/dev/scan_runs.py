"""Cost per point of the grid count's run scan, by run length (a floor for the count stage).

    python benchmarks/dev/scan_runs.py [--region 20000] [--points 1e7]

The marginal counts of :mod:`infometer.estimators.knn._grid` spend most of their time scanning runs
of
contiguous points, testing two or three columns per point (``RESULTS.md``: ~2,600 points
in ~15 runs per query for 3 columns at N = 10^6).  This times that loop alone, written as
in ``grid.count`` (unsigned positions, two columns, one branch-free test per column), over
runs of a fixed length starting at random positions inside the first ``--region`` points
(1.5 MB at 20,000: cache-resident, as the runs of consecutive queries mostly are) or
anywhere in 10^6 points (``--region 0``).  Prints ns per point, min of 3.  If long runs
cost about what runs of ~200 points cost, the per-run overhead is small and the scan runs
at the core's arithmetic throughput.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from infometer.core.jit import nb


@nb.njit(nogil=True, cache=False)
def scan(data, starts, length, qa, qb, r):
    cnt = 0
    for s in starts:
        for t in range(np.uint64(s), np.uint64(s + length)):
            cnt += (abs(data[0, t] - qa) <= r) & (abs(data[2, t] - qb) <= r)
    return cnt


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--region", type=int, default=20_000, help="0: the whole 10^6 points")
    ap.add_argument("--points", type=float, default=1e7, help="points scanned per timing")
    a = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    n = 10**6
    data = rng.standard_normal((3, n))
    region = a.region or n
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, region {region} points")
    for length in (16, 50, 100, 200, 400, 1600, 10000):
        starts = rng.integers(0, region - length, max(int(a.points) // length, 1))
        scan(data, starts[:10], length, 0.1, 0.2, 0.5)  # compile
        best = np.inf
        for _ in range(3):
            t = time.perf_counter()
            scan(data, starts, length, 0.1, 0.2, 0.5)
            best = min(best, time.perf_counter() - t)
        print(f"run length {length:>6}: {best / (len(starts) * length) * 1e9:.3f} ns per point")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
