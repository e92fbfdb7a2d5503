"""The one timing harness every script in ``benchmarks/`` uses.

Method (the project's rule for speed claims, issue 9 §5):

* every contender runs on the **same data in the same run, interleaved** round-robin
  (A, B, C, A, B, C, ...), so that a burst of load on the shared machine hits all of them
  and not one contender's block of repeats;
* each is run ``repeats`` >= 3 times (after one untimed warm-up call unless ``warmup=False``);
  a contender whose first run is longer than ``slow_s`` is run once and the table says so;
* for each run we record the **wall** time and the **CPU** time: ``time.process_time()``
  (all threads of this process) plus the CPU of child processes that ended during the run
  (``RUSAGE_CHILDREN``), so a contender that works in a subprocess is charged for it;
* the table gives min and median wall, the spread (min–max), min and median CPU, and the
  ratio to a reference contender **of the minima** (the least disturbed run of each) for
  wall and CPU side by side.  On a loaded machine the wall ratio mostly measures who got
  the cores; the CPU ratio is the cost per unit of work and is the claim then;
* the 1-minute load average is read before and after the whole run and at every timed run,
  and printed with the date, the machine (platform, CPU model, cores, Python, numpy and its
  BLAS, numba threads) and the exact command line.

A contender is ``Candidate(name, fn)`` with ``fn()`` returning its answer (a number shown in
the table so a fast wrong answer is visible).  A contender that times itself (work in a
fresh process, where the outer clock would include the imports) returns ``Measured``.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import resource
import shlex
import statistics
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Measured:
    """What a self-timing contender returns: its own wall and CPU seconds and its answer."""

    wall: float
    cpu: float
    value: Any = None
    extra: dict = field(default_factory=dict)


@dataclass
class Candidate:
    """A contender: ``fn()`` computes the answer (or returns ``Measured``)."""

    name: str
    fn: Callable[[], Any]
    warmup: bool = True


@dataclass
class Timing:
    """All timed runs of one contender."""

    name: str
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    loads: list[float] = field(default_factory=list)
    value: Any = None
    extras: list[dict] = field(default_factory=list)
    error: str | None = None

    @property
    def n(self) -> int:
        return len(self.walls)

    def stat(self, what: str, how: str) -> float:
        xs = self.walls if what == "wall" else self.cpus
        if not xs:
            return float("nan")
        return {"min": min, "median": statistics.median, "max": max}[how](xs)

    def summary(self) -> dict:
        out = {"name": self.name, "runs": self.n, "error": self.error, "value": self.value}
        for what in ("wall", "cpu"):
            for how in ("min", "median", "max"):
                out[f"{what}_{how}"] = self.stat(what, how)
        out["loads"] = self.loads
        return out


def _cpu_now() -> float:
    """CPU seconds of this process (all threads) and of its waited-for children."""
    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + ch.ru_utime + ch.ru_stime


def measure(fn: Callable[[], Any]) -> Measured:
    """Run ``fn`` once; wall and CPU (process + children) seconds and its answer."""
    c0, t0 = _cpu_now(), time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        v = fn()
    wall, cpu = time.perf_counter() - t0, _cpu_now() - c0
    if isinstance(v, Measured):
        return v
    return Measured(wall, cpu, v)


def load1() -> float:
    return os.getloadavg()[0]


def interleave(
    candidates: Sequence[Candidate],
    repeats: int = 3,
    *,
    slow_s: float = float("inf"),
    log: Callable[[str], None] | None = None,
) -> dict[str, Timing]:
    """Time every candidate ``repeats`` times, round-robin; warm-ups first, in order.

    A candidate that raises is recorded with its error and dropped from later rounds.
    A candidate whose first timed run exceeds ``slow_s`` seconds is not run again.
    """
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")
    log = log or (lambda s: print(s, file=sys.stderr, flush=True))
    res = {c.name: Timing(c.name) for c in candidates}
    live = []
    for c in candidates:
        if not c.warmup:
            live.append(c)
            continue
        try:
            measure(c.fn)
            live.append(c)
        except Exception as e:  # noqa: BLE001 - a failing peer is reported, not fatal
            res[c.name].error = f"{type(e).__name__}: {e}"
            log(f"  {c.name}: warm-up failed: {res[c.name].error}")
    for r in range(repeats):
        for c in list(live):
            t = res[c.name]
            if t.n and t.walls[0] > slow_s:
                continue
            load = load1()
            try:
                m = measure(c.fn)
            except Exception as e:  # noqa: BLE001
                t.error = f"{type(e).__name__}: {e}"
                live.remove(c)
                log(f"  [{r + 1}/{repeats}] {c.name}: failed: {t.error}")
                continue
            t.walls.append(m.wall)
            t.cpus.append(m.cpu)
            t.loads.append(load)
            t.value = m.value
            if m.extra:
                t.extras.append(m.extra)
            shown = f", value {_fmt_value(m.value)}" if m.value is not None else ""
            log(
                f"  [{r + 1}/{repeats}] {c.name}: {m.wall:.3f} s wall, {m.cpu:.3f} s CPU, "
                f"load {load:.1f}{shown}"
            )
    return res


# ------------------------------------------------------------------ the record
def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _blas() -> str:
    try:
        from threadpoolctl import threadpool_info

        libs = [
            f"{d.get('internal_api')} {d.get('version') or ''} ({d.get('num_threads')} threads)"
            for d in threadpool_info()
            if d.get("user_api") == "blas"
        ]
        if libs:
            return ", ".join(libs)
    except Exception:  # noqa: BLE001 - optional information
        pass
    try:
        import numpy as np

        cfg = np.show_config(mode="dicts")
        b = cfg["Build Dependencies"]["blas"]
        return f"{b.get('name')} {b.get('version', '')}".strip()
    except Exception:  # noqa: BLE001
        return "unknown"


def _versions(pkgs: Sequence[str]) -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for p in pkgs:
        try:
            out[p] = version(p)
        except PackageNotFoundError:
            out[p] = "not installed"
    return out


def command_line() -> str:
    """The exact command that ran this script, from the repository root."""
    script = os.path.relpath(os.path.abspath(sys.argv[0]), os.getcwd())
    exe = os.path.relpath(sys.executable) if sys.executable.startswith(os.getcwd()) else "python"
    pp = os.environ.get("PYTHONPATH")
    return (f"PYTHONPATH={pp} " if pp else "") + shlex.join([exe, script, *sys.argv[1:]])


def speed_probe() -> float:
    """Seconds (min of 3) for a fixed single-thread workload: three sorts of 10^6 floats and
    a 10^6-step Python loop.  This machine's speed drifts by tens of percent over an hour
    even when idle, so every run records it before and after: absolute figures from runs
    with different probes are not comparable, ratios of interleaved runs are."""
    import numpy as np

    x = np.random.default_rng(0).random(10**6)
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        for _ in range(3):
            np.sort(x)
        s = 0
        for i in range(10**6):
            s += i
        best = min(best, time.perf_counter() - t)
    return best


def machine(packages: Sequence[str] = ()) -> dict:
    """Date, machine, software, the load average and the speed probe now."""
    import numpy as np

    info = {
        "date_utc": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M"),
        "command": command_line(),
        "platform": platform.platform(),
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "blas": _blas(),
        "load_before": list(os.getloadavg()),
        "probe_before_s": speed_probe(),
    }
    try:
        import numba

        info["numba"] = f"{numba.__version__} ({numba.get_num_threads()} threads)"
    except ImportError:
        pass
    info["packages"] = _versions(packages)
    return info


class Run:
    """One benchmark invocation: its record, its sections of timings, its markdown."""

    def __init__(self, packages: Sequence[str] = ()):
        self.meta = machine(packages)
        self.sections: list[dict] = []

    def finish(self) -> None:
        self.meta["load_after"] = list(os.getloadavg())
        self.meta["probe_after_s"] = speed_probe()

    def header(self) -> str:
        m = self.meta
        pk = ", ".join(f"{k} {v}" for k, v in m["packages"].items())
        after = m.get("load_after")
        loads = [x for s in self.sections for t in s["rows"] for x in t["loads"]]
        load = f"1/5/15-min load average before {_l(m['load_before'])}"
        if after:
            load += f", after {_l(after)}"
        if loads:
            load += f"; 1-min load at the timed runs {min(loads):.1f}–{max(loads):.1f}"
        return "\n".join(
            [
                f"Command: `{m['command']}`  ",
                f"Date: {m['date_utc']} UTC; machine: {m['cpu']}, {m['cores']} cores, "
                f"{m['platform']}; Python {m['python']}, numpy {m['numpy']} ({m['blas']})"
                + (f", numba {m['numba']}" if "numba" in m else "")
                + (f"; {pk}" if pk else "")
                + ".  ",
                f"Load: {load}.  ",
                f"Speed probe ({_PROBE}): {_probe(m)}.",
            ]
        )

    def add(self, title: str, timings: dict[str, Timing], ref: str | None = None) -> str:
        """Record a section and return its markdown table."""
        rows = [t.summary() for t in timings.values()]
        self.sections.append({"title": title, "ref": ref, "rows": rows})
        return table(timings, ref)

    def dump(self, path: str) -> None:
        os.makedirs(os.path.dirname(os.path.abspath(path)) or ".", exist_ok=True)
        with open(path, "w") as fh:
            json.dump({"meta": self.meta, "sections": self.sections}, fh, indent=1, default=str)


_PROBE = "`_timing.speed_probe()`, a fixed single-thread workload, min of 3; lower is faster"


def _probe(m: dict) -> str:
    before, after = m.get("probe_before_s"), m.get("probe_after_s")
    out = f"{before:.3f} s before" if before is not None else "not measured"
    return out + (f", {after:.3f} s after" if after is not None else "")


def _l(xs: Sequence[float]) -> str:
    return "/".join(f"{x:.1f}" for x in xs)


def _fmt_value(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4f}" if v == 0 or abs(v) >= 1e-3 else f"{v:.2e}"
    if v is None:
        return ""
    return str(v)


def _ratio(t: Timing, base: Timing, what: str) -> str:
    b = base.stat(what, "min")
    return f"{t.stat(what, 'min') / b:.1f}x" if b > 0 else "–"


def _s(x: float) -> str:
    """Seconds: three decimals, or three significant digits below 0.01 s (a call of tens
    of microseconds would read 0.000)."""
    return f"{x:.3f}" if x == 0 or x >= 0.01 else f"{x:.3g}"


def table(timings: dict[str, Timing], ref: str | None = None) -> str:
    """Markdown: runs, min / median wall, spread, min / median CPU, value, ratios of minima."""
    head = (
        "| contender | runs | min wall s | median wall s | wall spread s | min CPU s "
        "| median CPU s | value | wall ratio | CPU ratio |"
    )
    lines = [head, "|---|---|---|---|---|---|---|---|---|---|"]
    base = timings.get(ref) if ref else None
    for name, t in timings.items():
        if t.n == 0:
            lines.append(f"| {name} | 0 | | | | | | {t.error or 'not run'} | | |")
            continue
        if base is not None and base.n:
            if name == ref:
                wr = cr = "1"
            else:
                wr, cr = _ratio(t, base, "wall"), _ratio(t, base, "cpu")
        else:
            wr = cr = ""
        label = f"**{name}**" if name == ref else name
        lines.append(
            f"| {label} | {t.n} | {_s(t.stat('wall', 'min'))} | {_s(t.stat('wall', 'median'))} "
            f"| {_s(t.stat('wall', 'min'))}–{_s(t.stat('wall', 'max'))} "
            f"| {_s(t.stat('cpu', 'min'))} | {_s(t.stat('cpu', 'median'))} "
            f"| {_fmt_value(t.value)} | {wr} | {cr} |"
        )
    return "\n".join(lines)


__all__ = [
    "Candidate",
    "Measured",
    "Run",
    "Timing",
    "command_line",
    "interleave",
    "load1",
    "machine",
    "measure",
    "table",
]


if __name__ == "__main__":  # a self-check: python benchmarks/_timing.py
    import numpy as np

    a = np.random.default_rng(0).standard_normal((200, 200))
    run = Run()
    res = interleave(
        [Candidate("matmul", lambda: float((a @ a).sum())), Candidate("sort", lambda: 0.0)], 3
    )
    run.finish()
    print(run.header())
    assert all(len(asdict(t)["walls"]) == 3 for t in res.values())
    print(run.add("self-check", res, ref="matmul"))
