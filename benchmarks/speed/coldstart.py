"""Cold start: what a new user waits for before the first answer (issue 10).

Every figure is a **fresh Python process**, timed from outside (wall, and the CPU of the
child process from ``RUSAGE_CHILDREN``) through ``benchmarks/_timing.py``, interleaved
round-robin with the other rows, min and median of ``--repeats`` (>= 3):

* ``python -c pass``: the interpreter alone, the floor under every other row;
* ``import infometer`` with warm bytecode (one untimed run first writes the ``.pyc``);
* ``infometer --help`` (the console script next to this Python);
* the first call of each kNN estimator at d×d (d×d×d for a conditional MI) with an
  **empty numba cache**: ``NUMBA_CACHE_DIR`` set to a new temporary directory for every run,
  so every kernel is compiled; then a second fresh process on that same, now warm, cache:
  what every later first call in a new process costs.  numba's user-supplied cache
  directory takes precedence over any cache next to the sources, so the cold rows compile
  even in an installed copy with a populated ``__pycache__``.

The "first call" column is the time of the estimator call alone, measured inside the child
(``import infometer`` and making the data excluded); "process" is the whole child from
outside.  N = ``--n`` rows (2,000 by default: below ``PARALLEL_MIN`` = 20,000 the kernels
run on one thread; give ``--n 2000,50000`` to include the parallel path).

Usage::

    python benchmarks/speed/coldstart.py                       # all rows, min of 3
    python benchmarks/speed/coldstart.py --dims 1,3 --methods ksg1 --repeats 3
    python benchmarks/speed/coldstart.py --out bench-out/coldstart.json

It imports whatever ``infometer`` the running Python finds (``PYTHONPATH=src`` for a
checkout), so it measures the code as it is.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _timing.py
import _timing as T  # noqa: E402

# (method, quantity, roles) of the kNN estimators timed by default; a method that is not
# registered in the infometer being measured is skipped with a note.
KNN = {
    "ksg1": ("mutual_info", ("x", "y")),
    "ksg2": ("mutual_info", ("x", "y")),
    "frenzel_pompe": ("cond_mutual_info", ("x", "y", "z")),
}

_CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import numpy as np
import infometer as im
t1 = time.perf_counter()
quantity, method, roles = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
d, n = int(sys.argv[4]), int(sys.argv[5])
rng = np.random.default_rng(0)
x = rng.standard_normal((n, d))
data = {"x": x, "y": 0.75 * x + 0.66 * rng.standard_normal((n, d))}
if "z" in roles:
    data["z"] = 0.5 * x + rng.standard_normal((n, d))
t2, c2 = time.perf_counter(), time.process_time()
v = im.estimate(quantity, data, method=method, k=3).value
t3, c3 = time.perf_counter(), time.process_time()
print(json.dumps({"import_s": t1 - t0, "call_s": t3 - t2, "call_cpu_s": c3 - c2, "value": v}))
"""


def _run(cmd: list[str], env: dict | None = None) -> str:
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:3])}... exited {r.returncode}: {r.stderr[-800:]}")
    return r.stdout


def _proc(cmd: list[str]) -> None:
    _run(cmd)


def _console_script() -> list[str]:
    exe = Path(sys.executable).with_name("infometer")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "infometer"]


class FirstCall:
    """Cold (empty cache) and warm (the cold run's cache) first calls of one estimator."""

    def __init__(self, method: str, quantity: str, roles: tuple[str, ...], d: int, n: int):
        self.args = [quantity, method, ",".join(roles), str(d), str(n)]
        self.cache: str | None = None
        self.dirs: list[str] = []

    def _child(self, cache: str) -> str:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        out = json.loads(_run([sys.executable, "-c", _CHILD, *self.args], env).splitlines()[-1])
        return f"{out['call_s']:.2f} / {out['call_cpu_s']:.2f}"

    def cold(self) -> str:
        self.cache = tempfile.mkdtemp(prefix="infometer-numba-")
        self.dirs.append(self.cache)
        return self._child(self.cache)

    def warm(self) -> str:
        if self.cache is None:  # the warm row needs the cold row's cache
            self.cold()
        return self._child(self.cache)

    def cleanup(self) -> None:
        for d in self.dirs:
            shutil.rmtree(d, ignore_errors=True)


def registered(methods: list[str]) -> tuple[list[str], list[str]]:
    code = (
        "import json; from infometer import registry as r; "
        "print(json.dumps({q: r.methods(q) for q in ('mutual_info', 'cond_mutual_info')}))"
    )
    have = json.loads(_run([sys.executable, "-c", code]).splitlines()[-1])
    ok = [m for m in methods if m in KNN and m in have.get(KNN[m][0], [])]
    return ok, [m for m in methods if m not in ok]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--methods", default=",".join(KNN), help=f"any of {', '.join(KNN)}")
    ap.add_argument("--dims", default="1,3,8")
    ap.add_argument("--n", default="2000", help="rows, comma-separated")
    ap.add_argument("--no-knn", action="store_true", help="import and --help only")
    ap.add_argument("--out", help="write the record as JSON here")
    a = ap.parse_args(argv)
    if a.repeats < 3:
        print("note: fewer than 3 repeats is a smoke run, not a measurement", file=sys.stderr)

    run = T.Run(["numba", "llvmlite", "scipy"])
    base = [
        T.Candidate("python -c pass", lambda: _proc([sys.executable, "-c", "pass"])),
        T.Candidate(
            "import infometer (warm bytecode)",
            lambda: _proc([sys.executable, "-c", "import infometer"]),
        ),
        T.Candidate("infometer --help", lambda: _proc([*_console_script(), "--help"])),
    ]
    firsts: list[FirstCall] = []
    cands = list(base)
    skipped: list[str] = []
    if not a.no_knn:
        methods, skipped = registered([m for m in a.methods.split(",") if m])
        for n in (int(float(s)) for s in a.n.split(",")):
            for d in (int(s) for s in a.dims.split(",")):
                for m in methods:
                    q, roles = KNN[m]
                    fc = FirstCall(m, q, roles, d, n)
                    firsts.append(fc)
                    shape = "×".join([str(d)] * len(roles))
                    label = f"{m} {shape}, N = {n}"
                    cands.append(T.Candidate(f"{label}, empty cache", fc.cold, warmup=False))
                    cands.append(T.Candidate(f"{label}, warm cache", fc.warm, warmup=False))
    try:
        res = T.interleave(cands, a.repeats)
    finally:
        for fc in firsts:
            fc.cleanup()
    run.finish()
    print(run.header() + "\n")
    if skipped:
        print(f"Not registered in this infometer, skipped: {', '.join(skipped)}.\n")
    body = run.add("cold start", res, ref=None)
    # the value column holds the first-call time measured inside the child process
    body = body.replace("| value |", "| first call, in process: wall / CPU s |", 1)
    print(body)
    if a.out:
        run.dump(a.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
