"""Peers in steady state: one long-lived process per peer, in the peer's own virtualenv.

A peer that is importable by the running Python is called in-process.  Otherwise it runs
in ``python benchmarks/_peer.py serve`` under its virtualenv's interpreter
(``/work/peers/<venv>/bin/python``, or ``PEER_PY_<VENV>``): the process stays alive for the
whole benchmark, so after the harness's untimed warm-up call its imports, numba
compilation and caches are warm, as infometer's are in the benchmark's own process.  Each
call is timed **inside** that process (wall, and ``time.process_time()``: CPU of all its
threads) and comes back as ``_timing.Measured``; the data go over once, as ``.npy`` files,
before any timing.

``cold(...)`` is the other figure: what a one-off user pays, a **fresh** process of the
given interpreter that imports, loads the data and runs the job once (``python
benchmarks/_peer.py once JOB ...``), wall from spawn to exit and the CPU of the whole
child.  The infometer side of a cold start runs the same way (``im_*`` jobs, the
benchmark's own interpreter), so both sides pay an interpreter start and an ``np.load``.

The jobs are the small functions in ``JOBS`` below; each imports its library lazily.  This
file imports nothing of infometer at module level (it runs in the peers' virtualenvs).
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

from _timing import Measured  # benchmarks/ is on sys.path: this file's folder or the caller's

RESULT = "@@result "
PEERS_DIR = Path(os.environ.get("PEERS_DIR", "/work/peers"))
#: module a peer is imported as -> its virtualenv under PEERS_DIR
VENV = {
    "sklearn": "sklearn",
    "ennemi": "ennemi",
    "npeet_plus": "npeet",
    "infomeasure": "infomeasure",
    "bmi": "bmi",
}
#: One thread for BLAS / OpenMP / numba on both sides (issue 42).
ONE_THREAD = {
    v: "1"
    for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")
}


# ------------------------------------------------------------------ the jobs
def _np():
    import numpy as np

    return np


def sklearn_mi_score(x, y):
    from sklearn.metrics import mutual_info_score

    return float(mutual_info_score(x, y))


def sklearn_mi_regression(x, y, k=3):
    from sklearn.feature_selection import mutual_info_regression

    return float(mutual_info_regression(x, y.ravel(), n_neighbors=k, random_state=0)[0])


def ennemi_mi(x, y, k=3):
    import ennemi

    return float(_np().asarray(ennemi.estimate_mi(y.ravel(), x.ravel(), k=k)).ravel()[0])


def ennemi_cmi(y, x, cond, k=3):
    import ennemi

    return float(_np().ravel(ennemi.estimate_mi(y, x, cond=cond, k=k))[0])


def npeet_mi(x, y, k=3):
    import npeet_plus

    return float(npeet_plus.mi(x, y, k=k, base=_np().e))


def infomeasure_h(x, y, z):
    import infomeasure

    return float(infomeasure.entropy((x, y, z), approach="discrete"))


def infomeasure_mi_discrete(x, y):
    import infomeasure

    return float(infomeasure.mutual_information(x, y, approach="discrete"))


def infomeasure_mi_ksg(x, y, k=3):
    import infomeasure

    return float(infomeasure.mutual_information(x, y, approach="ksg", k=k))


def infomeasure_te_ksg(x, y, k=4):
    import infomeasure

    return float(
        infomeasure.transfer_entropy(
            x, y, approach="ksg", k=k, src_hist_len=1, dest_hist_len=1, step_size=1
        )
    )


def bmi_ksg(x, y, k=3):
    import bmi

    est = bmi.estimators.KSGEnsembleFirstEstimator(neighborhoods=(k,), metric_x="chebyshev")
    return float(est.estimate(x, y))


def im_mi(x, y, method="ksg1", **kw):
    import infometer as im

    return float(im.mutual_info(x, y, method=method, **kw).value)


def im_entropy(x, method="plugin"):
    import infometer as im

    return float(im.entropy(x, method=method).value)


def im_te(x, y, method="ksg1"):
    import infometer as im

    return float(im.transfer_entropy(x, y, method=method).value)


JOBS = {
    f.__name__: f
    for f in (
        sklearn_mi_score,
        sklearn_mi_regression,
        ennemi_mi,
        ennemi_cmi,
        npeet_mi,
        infomeasure_h,
        infomeasure_mi_discrete,
        infomeasure_mi_ksg,
        infomeasure_te_ksg,
        bmi_ksg,
        im_mi,
        im_entropy,
        im_te,
    )
}


def _run_job(job: str, arrays: list, kw: dict) -> dict:
    warnings.simplefilter("ignore")
    t0, c0 = time.perf_counter(), time.process_time()
    with contextlib.redirect_stdout(sys.stderr):  # the peers' own prints
        v = JOBS[job](*arrays, **kw)
    return {"value": v, "wall": time.perf_counter() - t0, "cpu": time.process_time() - c0}


# ------------------------------------------------------------------ the peer side
def serve() -> None:
    """One request per stdin line: ``{"put": name, "path": p}`` loads an array,
    ``{"job": j, "args": [names], "kw": {...}}`` runs a job on loaded arrays."""
    np = _np()
    data: dict = {}
    out = sys.stdout
    for line in sys.stdin:
        req = json.loads(line)
        try:
            if "put" in req:
                data[req["put"]] = np.load(req["path"])
                rec: dict = {"ok": True}
            else:
                rec = _run_job(req["job"], [data[a] for a in req["args"]], req.get("kw", {}))
        except Exception as e:  # noqa: BLE001 - reported to the client, which raises
            rec = {"error": f"{type(e).__name__}: {e}"}
        print(RESULT + json.dumps(rec), file=out, flush=True)


def once(argv: list[str]) -> None:
    """``once JOB KW_JSON PATH...``: load, run once, print the result (a cold start)."""
    np = _np()
    job, kw, paths = argv[0], json.loads(argv[1]), argv[2:]
    rec = _run_job(job, [np.load(p) for p in paths], kw)
    print(RESULT + json.dumps(rec), flush=True)


# ------------------------------------------------------------------ the client side
def importable(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def python_for(module: str) -> str | None:
    """The interpreter that runs ``module``'s jobs: this one if it imports it, else the
    peer's virtualenv (``PEER_PY_<VENV>`` overrides), else None (the peer is skipped)."""
    if importable(module):
        return sys.executable
    venv = VENV.get(module, module)
    exe = os.environ.get(f"PEER_PY_{venv.upper()}") or str(PEERS_DIR / venv / "bin" / "python")
    return exe if Path(exe).exists() else None


class Data:
    """Arrays saved once as .npy files, shared by the peer processes and the cold starts."""

    def __init__(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="im-peer-")
        self.paths: dict[str, str] = {}
        self.arrays: dict = {}

    def add(self, name: str, arr) -> str:
        path = os.path.join(self.dir, f"{name}.npy")
        _np().save(path, arr)
        self.paths[name], self.arrays[name] = path, arr
        return name

    def close(self) -> None:
        for p in self.paths.values():
            with contextlib.suppress(OSError):
                os.remove(p)
        with contextlib.suppress(OSError):
            os.rmdir(self.dir)


def _child_env() -> dict:
    env = {**os.environ, **{k: os.environ.get(k, v) for k, v in ONE_THREAD.items()}}
    return env


class Peer:
    """One long-lived peer process (``serve``) under ``python``."""

    def __init__(self, python: str, data: Data) -> None:
        self.python, self.data, self.loaded = python, data, set()
        env = _child_env()
        env.pop("PYTHONPATH", None)  # the peer never sees infometer's source tree
        self.proc = subprocess.Popen(
            [python, __file__, "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )

    def _ask(self, req: dict) -> dict:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"peer process {self.python} died")
            if line.startswith(RESULT):
                rec = json.loads(line[len(RESULT) :])
                if "error" in rec:
                    raise RuntimeError(rec["error"])
                return rec

    def call(self, job: str, *names: str, **kw):
        """Run ``job`` on the named arrays; its in-process wall / CPU as ``Measured``."""
        for n in names:
            if n not in self.loaded:
                self._ask({"put": n, "path": self.data.paths[n]})
                self.loaded.add(n)
        rec = self._ask({"job": job, "args": list(names), "kw": kw})
        return Measured(rec["wall"], rec["cpu"], rec["value"])

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            self.proc.wait(timeout=60)


def job_fn(module: str, data: Data, peers: dict[str, Peer], job: str, *names: str, **kw):
    """A harness contender for ``job``: in-process when ``module`` imports here, else on a
    long-lived ``Peer`` (created once per interpreter); None when the peer is missing."""
    python = python_for(module)
    if python is None:
        return None
    if python == sys.executable:
        arrays = [data.arrays[n] for n in names]
        return lambda: JOBS[job](*arrays, **kw)
    if python not in peers:
        peers[python] = Peer(python, data)
    peer = peers[python]
    return lambda: peer.call(job, *names, **kw)


def record_versions(run, dists: dict[str, str]) -> None:
    """Put each peer's version (and where it ran) in the run's record: ``dists`` maps the
    import name to the distribution name."""
    for module, dist in dists.items():
        python = python_for(module)
        if python is None:
            run.meta["packages"][dist] = "not installed"
            continue
        code = f"import importlib.metadata as m; print(m.version({dist!r}))"
        r = subprocess.run([python, "-c", code], capture_output=True, text=True, check=False)
        where = "" if python == sys.executable else f" (in {Path(python).parents[1]})"
        run.meta["packages"][dist] = (r.stdout.strip() or "unknown") + where


def cold(python: str, data: Data, job: str, *names: str, pythonpath: str | None = None, **kw):
    """A cold start: a fresh ``python`` process runs ``job`` once.  Wall from spawn to
    exit, CPU of the whole child (``RUSAGE_CHILDREN``); the value is the job's answer and
    ``extra`` holds the job's own in-process time (the cold figure minus it is the
    start-up: interpreter, imports, JIT / cache loading, ``np.load``)."""
    env = _child_env()
    env.pop("PYTHONPATH", None)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    cmd = [python, __file__, "once", job, json.dumps(kw), *(data.paths[n] for n in names)]
    c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - t0
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        raise RuntimeError(f"{job} in a fresh {python} failed: {r.stderr[-1500:]}")
    line = [ln for ln in r.stdout.splitlines() if ln.startswith(RESULT)][-1]
    rec = json.loads(line[len(RESULT) :])
    cpu = c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime
    return Measured(wall, cpu, rec["value"], extra={"job_wall": rec["wall"], "job_cpu": rec["cpu"]})


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve()
    elif sys.argv[1] == "once":
        once(sys.argv[2:])
    else:
        raise SystemExit(__doc__)
