"""Cold start: ``import infometer``, ``infometer --help`` and first kNN calls, each in a
fresh process.

Usage::

    python benchmarks/coldstart.py [--rounds 3] [--tree before=/path/to/old/src] [--out F]

Every measurement is a new Python process (wall time measured around it, CPU time from
``getrusage`` of the child).  First calls run with an **empty temporary numba cache
directory** (``NUMBA_CACHE_DIR``), then again with the cache that run left ("cached"), as
a new user's first and second session would.  Small problems (N = 1,000) run on the
engine's scipy backend and never compile; from ``JIT_MIN_POINTS`` points the compiled
kernels are used (compiled once per install, for every dimension).  The last rows run the
package from a **read-only copy** (as a system-wide install), with no ``NUMBA_CACHE_DIR``:
numba then caches under ``$XDG_CACHE_HOME/numba`` (here a fresh temporary directory),
and the second run must find it there.

``--tree LABEL=SRC`` adds another source tree (a folder holding ``infometer/``) measured
in the same rounds, interleaved (e.g. the sources of an older commit, from
``git archive <commit> src | tar -x -C /tmp/old``).  The table reports the minimum and
median wall time over the rounds, their spread, the minimum CPU time and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import Cell, dump, header, markdown, timed_process  # noqa: E402

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"

_CALL = """
import json, time
t0, c0 = time.perf_counter(), time.process_time()
import numpy as np
import infometer as im
t1, c1 = time.perf_counter(), time.process_time()
rng = np.random.default_rng(0)
what, n, d = {what!r}, {n}, {d}
x = rng.standard_normal((n, d))
y = 0.75 * x + 0.66 * rng.standard_normal((n, d))
if what == "frenzel_pompe":
    v = im.cond_mutual_info(x, y, rng.standard_normal((n, 1)), method=what).value
elif what == "wkv":
    v = im.kl_divergence(x, y + 0.5, method=what).value
elif what == "kozachenko_leonenko":
    v = im.entropy(x, method=what).value
else:
    v = im.mutual_info(x, y, method=what).value
t2, c2 = time.perf_counter(), time.process_time()
print(json.dumps({{"import_s": t1 - t0, "call_s": t2 - t1, "call_cpu_s": c2 - c1, "value": v}}))
"""

#: (label, estimator, N, d); d is the dimension of x (and of y)
SMALL = [
    ("ksg1 1x1", "ksg1", 1000, 1),
    ("ksg1 3x3", "ksg1", 1000, 3),
    ("frenzel_pompe 1x1|1", "frenzel_pompe", 1000, 1),
    ("kozachenko_leonenko 2-D", "kozachenko_leonenko", 1000, 2),
    ("wkv 2-D", "wkv", 1000, 2),
]
#: compiled backend: each sequence starts from an empty cache, later calls reuse it
LARGE = [
    [
        ("ksg1 3x3", "ksg1", 30_000, 3, "empty numba cache"),
        ("ksg1 3x3", "ksg1", 30_000, 3, "cached"),
        ("ksg1 2x2", "ksg1", 30_000, 2, "cached 3x3 kernels (a new dimension)"),
        ("frenzel_pompe 1x1|1", "frenzel_pompe", 30_000, 1, "cached ksg1 kernels"),
    ],
    [
        ("frenzel_pompe 1x1|1", "frenzel_pompe", 30_000, 1, "empty numba cache"),
        ("frenzel_pompe 1x1|1", "frenzel_pompe", 30_000, 1, "cached"),
    ],
]


def _env(src: Path | None, **extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH")}
    if src is not None:
        env["PYTHONPATH"] = str(src)
    env.update(extra)
    return env


def _call(
    src, cache_env: dict, what: str, n: int, d: int, prefix: list[str] | None = None
) -> tuple[float, float, dict]:
    code = _CALL.format(what=what, n=n, d=d)
    cmd = [*(prefix or []), sys.executable, "-c", code]
    wall, cpu, out = timed_process(cmd, _env(src, **cache_env))
    return wall, cpu, json.loads(out.strip().splitlines()[-1])


def _read_only(path: Path) -> list[str]:
    """A command prefix under which ``path`` cannot be written.

    File modes are set to read-only; root ignores them, so as root the command runs in a
    private mount namespace where ``path`` is bind-mounted read-only.
    """
    for p in sorted(path.rglob("*"), reverse=True) + [path]:
        p.chmod(0o555 if p.is_dir() else 0o444)
    if os.geteuid() != 0 or not shutil.which("unshare"):
        return []
    script = (
        f'mount --bind "{path}" "{path}" && mount -o remount,bind,ro "{path}" && exec "$0" "$@"'
    )
    return ["unshare", "-m", "sh", "-c", script]


def one_round(trees: dict[str, Path | None], cells: dict[tuple, Cell], tmp: Path) -> None:
    def add(key, wall, cpu, info=None):
        cell = cells.setdefault(key, Cell(" / ".join(key)))
        cell.walls.append(wall)
        cell.cpus.append(cpu)
        cell.loads.append(os.getloadavg()[0])
        if info is not None:
            cell.value = info

    for label, src in trees.items():
        env = _env(src)
        add(
            (label, "import infometer"),
            *timed_process([sys.executable, "-c", "import infometer"], env)[:2],
        )
        help_cmd = [sys.executable, "-c", "from infometer.cli.app import main; main()", "--help"]
        add((label, "infometer --help"), *timed_process(help_cmd, env)[:2])
        for name, what, n, d in SMALL:
            cache = Path(tempfile.mkdtemp(dir=tmp))
            for state in ("empty numba cache", "cached"):
                w, c, info = _call(src, {"NUMBA_CACHE_DIR": str(cache)}, what, n, d)
                add((label, f"first {name} call, N={n:,}", state), w, c, info)
        for sequence in LARGE:
            cache = Path(tempfile.mkdtemp(dir=tmp))
            for name, what, n, d, state in sequence:
                w, c, info = _call(src, {"NUMBA_CACHE_DIR": str(cache)}, what, n, d)
                add((label, f"first {name} call, N={n:,}", state), w, c, info)
        # a read-only copy of the package and no NUMBA_CACHE_DIR: numba's user-wide cache
        ro = Path(tempfile.mkdtemp(dir=tmp))
        ignore = shutil.ignore_patterns("*.nbi", "*.nbc")  # no numba cache from earlier runs
        shutil.copytree((src or SRC) / "infometer", ro / "infometer", ignore=ignore)
        prefix = _read_only(ro)
        xdg = Path(tempfile.mkdtemp(dir=tmp))
        for state in ("empty numba cache", "cached"):
            env = {"XDG_CACHE_HOME": str(xdg)}
            w, c, info = _call(ro, env, "ksg1", 30_000, 3, prefix)
            info["numba_index_files_in_XDG_CACHE_HOME"] = sum(1 for _ in xdg.rglob("*.nbi"))
            info["numba_index_files_in_package"] = sum(1 for _ in ro.rglob("*.nbi"))
            add((label, "read-only package, ksg1 3x3 N=30,000", state), w, c, info)
        for p in [ro, *ro.rglob("*")]:
            p.chmod(0o755)
        shutil.rmtree(xdg, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tree", action="append", default=[], help="LABEL=SRC, another source tree")
    ap.add_argument("--out", help="write the runs as JSON here")
    a = ap.parse_args(argv)
    trees: dict[str, Path | None] = {"this checkout": None}
    for t in a.tree:
        label, _, path = t.partition("=")
        trees[label] = Path(path).resolve()
    meta = header("python benchmarks/coldstart.py " + " ".join(argv or sys.argv[1:]))
    print(json.dumps(meta, indent=1), flush=True)
    cells: dict[tuple, Cell] = {}
    with tempfile.TemporaryDirectory(prefix="infometer-coldstart-") as tmp:
        for warm in trees.values():  # write the bytecode once: "warm bytecode" as a user has
            timed_process([sys.executable, "-c", "import infometer.cli.app"], _env(warm))
        for r in range(a.rounds):
            one_round(trees, cells, Path(tmp))
            print(f"round {r + 1} done, load {os.getloadavg()[0]:.1f}", flush=True)
    rows = []
    for key, cell in cells.items():
        info = cell.value or {}
        call = f"{info['call_s']:.2f} / {info['call_cpu_s']:.2f}" if "call_s" in info else ""
        rows.append(
            [
                key[0],
                " ".join(key[1:]),
                f"{cell.wall:.2f}",
                f"{cell.median:.2f}",
                f"{cell.spread:.0%}",
                f"{cell.cpu:.2f}",
                call,
                cell.load,
            ]
        )
    head = [
        "tree",
        "measurement (fresh process)",
        "wall min s",
        "wall median s",
        "spread",
        "CPU min s",
        "call alone, last run: wall / CPU s",
        "load",
    ]
    print(markdown(rows, head))
    dump(a.out, {"meta": meta, "cells": [c.row() for c in cells.values()]})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
