"""The timing helpers benchmarks/limits.py was written with (speed branch), kept for it
until limits.py is ported to the shared harness in _timing.py.

Shared timing protocol of the benchmarks (see benchmarks/RESULTS.md, "How we time").

* Contenders run **interleaved**: round 1 runs every contender once, round 2 again, and so
  on, so that a change in the machine's load hits all of them alike.
* Each cell reports the **minimum** and the **median** wall time of its rounds (at least
  3) and their **spread** (max - min, as a fraction of the median), the process CPU time
  (user + sys of all threads; for a subprocess, of the child) and the **load average**
  (``os.getloadavg()[0]``) before each run.
* Ratios are given on minima, for wall time and for CPU time: the wall ratio includes the
  use of a second core, the CPU ratio is per unit of work.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Cell:
    """All runs of one contender on one task."""

    name: str
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    loads: list[float] = field(default_factory=list)
    value: Any = None

    @property
    def wall(self) -> float:
        return min(self.walls)

    @property
    def cpu(self) -> float:
        return min(self.cpus)

    @property
    def median(self) -> float:
        return statistics.median(self.walls)

    @property
    def spread(self) -> float:
        """(max - min) / median of the wall times."""
        return (max(self.walls) - min(self.walls)) / self.median if self.median > 0 else 0.0

    @property
    def load(self) -> str:
        return f"{min(self.loads):.1f}-{max(self.loads):.1f}"

    def row(self) -> dict:
        return {
            "name": self.name,
            "wall_min_s": self.wall,
            "wall_median_s": self.median,
            "spread": self.spread,
            "cpu_min_s": self.cpu,
            "walls": self.walls,
            "cpus": self.cpus,
            "loads": self.loads,
            "value": self.value,
        }


def load() -> float:
    return os.getloadavg()[0]


def timed_call(f: Callable[[], Any]) -> tuple[float, float, Any]:
    """Wall and process CPU time (all threads) of one in-process call, and its value."""
    w, c = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        v = f()
    return time.perf_counter() - w, time.process_time() - c, v


def timed_process(cmd: Sequence[str], env: dict | None = None) -> tuple[float, float, str]:
    """Wall and CPU time (user + sys of the child) of one subprocess, and its stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, r.stdout


def interleave(
    contenders: dict[str, Callable[[], tuple[float, float, Any]]],
    rounds: int,
    stop_after: float = float("inf"),
) -> dict[str, Cell]:
    """Run each contender once per round, in the same order, for ``rounds`` rounds.

    Each contender returns ``(wall, cpu, value)``.  A contender whose first run takes more
    than ``stop_after`` seconds is run only once (the cell says so by its single time).
    """
    cells = {name: Cell(name) for name in contenders}
    for rnd in range(rounds):
        for name, f in contenders.items():
            cell = cells[name]
            if rnd and cell.walls and cell.walls[0] > stop_after:
                continue
            ld = load()
            w, c, v = f()
            cell.walls.append(w)
            cell.cpus.append(c)
            cell.loads.append(ld)
            cell.value = v
    return cells


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b > 0 else "-"


def header(cmd: str) -> dict:
    """Date, machine, software and the command, for the record."""
    import numpy as np

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next(ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {
        "command": cmd,
        "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
        "machine": f"{cpu}, {os.cpu_count()} cores, {platform.platform()}",
        "python": platform.python_version(),
        "numpy": np.__version__,
        "load_at_start": [round(x, 2) for x in os.getloadavg()],
    }


def markdown(rows: list[list[Any]], head: list[str]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def dump(path: str | None, payload: dict) -> None:
    if not path:
        return
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as fh:
        json.dump(payload, fh, indent=1, default=str)


def python() -> str:
    return sys.executable
