"""Where the wall time of one KSG-1 call goes: a timeline of its phases, by thread.

    python benchmarks/dev/ksg_timeline.py --n 1e6 --d 3 --repeats 3

Data as in ``benchmarks/speed/limits.py`` (task ``ksg_large``): x ~ N(0, I_d),
y = 0.75 x + sqrt(1 - 0.75^2) noise, seed 0.  The kernels are loaded on a small problem
first; then each repeat times ``im.mutual_info(x, y, method="ksg1")`` with the engine's
phases wrapped to record when each starts and ends on which thread: input preparation
(``_prep``), the joint kd-tree and the two marginal counters being built (``KDTree``,
``RangeCounter``, on build threads), the joint kNN (``knn_self``), and the two marginal
counts (``count``, with the grid layout ``grid.build`` inside).  The wrappers only read
the clock, so the call's value is unchanged (printed).  Prints each repeat's timeline (start
and end in seconds from the call's start), its wall and CPU time (all threads), the
1-minute load, and the speed probe of ``_timing.py`` before and after.

``--parts`` also times the build phase's pieces alone (min of ``--repeats``): the joint
kd-tree with and without its search layout, one marginal counter (its three argsorts), and
for comparison six ``np.sort`` of contiguous columns.
"""

from __future__ import annotations

import argparse
import functools
import math
import os
import sys
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _timing.py
from _timing import speed_probe  # noqa: E402

import infometer as im
from infometer.estimators.knn import _grid as grid
from infometer.estimators.knn import engine, estimators

_WRAPPED = [
    (estimators, "_prep", "prepare input"),
    (engine.KDTree, "__init__", "build kd-tree"),
    (engine.RangeCounter, "__init__", "build counter"),
    (engine.KDTree, "knn_self", "joint kNN"),
    (grid, "build", "grid layout"),
    (engine.RangeCounter, "count", "marginal count"),
]


def gauss(n: int, d: int, rho: float = 0.75) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, d))
    return x, rho * x + math.sqrt(1 - rho**2) * rng.standard_normal((n, d))


def instrument(log: list, t0: list) -> None:
    """Wrap each phase so that it appends (label, thread, start, end) to ``log``."""
    for owner, name, label in _WRAPPED:
        f = getattr(owner, name)

        @functools.wraps(f)
        def timed(*args, _f=f, _label=label, **kwargs):
            s = time.perf_counter()
            out = _f(*args, **kwargs)
            thread = threading.current_thread().name
            log.append((_label, thread, s - t0[0], time.perf_counter() - t0[0]))
            return out

        setattr(owner, name, timed)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", default="1e6")
    ap.add_argument("--d", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--parts", action="store_true", help="time the build phase's pieces alone")
    a = ap.parse_args()
    im.mutual_info(*gauss(30_000, a.d), method="ksg1")  # load (or compile) the kernels
    x, y = gauss(int(float(a.n)), a.d)
    log: list = []
    t0 = [0.0]
    instrument(log, t0)
    print(f"speed probe before: {speed_probe():.3f} s", flush=True)
    for r in range(a.repeats):
        log.clear()
        load = os.getloadavg()[0]
        t0[0], c0 = time.perf_counter(), time.process_time()
        value = im.mutual_info(x, y, method="ksg1").value
        wall, cpu = time.perf_counter() - t0[0], time.process_time() - c0
        print(
            f"[{r + 1}/{a.repeats}] N={float(a.n):.0e} d={a.d}x{a.d}: {wall:.3f} s wall, "
            f"{cpu:.3f} s CPU, load {load:.1f}, value {value:.10f}",
            flush=True,
        )
        for label, thread, s, e in sorted(log, key=lambda row: row[2]):
            print(f"    {label:15s} {thread:20s} {s:6.3f} -> {e:6.3f} s  ({e - s:.3f} s)")
    if a.parts:
        parts(x, y, a.repeats)
    print(f"speed probe after: {speed_probe():.3f} s", flush=True)


def parts(x: np.ndarray, y: np.ndarray, repeats: int) -> None:
    """Wall and CPU (min of ``repeats``) of the build phase's pieces, each alone."""
    joint = np.hstack([x, y])
    tree = engine.KDTree(joint)
    nodes = (tree.data, tree._leaf_of, *tree._nodes()[1:])
    cols = np.vstack([x.T, y.T])
    jobs = {
        "kd-tree with search layout": lambda: engine.KDTree(joint, metric="max"),
        "kd-tree, no layout": lambda: engine.KDTree(joint),
        "search layout alone": lambda: engine._search_layout(*nodes),
        "one marginal counter": lambda: engine.RangeCounter(x),
        "6 np.sort, contiguous": lambda: [np.sort(c) for c in cols],
    }
    for name, f in jobs.items():
        best = (np.inf, np.inf)
        for _ in range(repeats):
            w, c = time.perf_counter(), time.process_time()
            f()
            best = min(best, (time.perf_counter() - w, time.process_time() - c))
        print(f"    alone: {name:28s} {best[0]:.3f} s wall / {best[1]:.3f} s CPU", flush=True)


if __name__ == "__main__":
    main()
