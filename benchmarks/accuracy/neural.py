"""Neural MI bounds on Beyond Normal's high-dimensional tasks, beside KSG and torch-mist.

For each task: one sample of ``--n`` rows (seeded), the first 80% to train, the last 20%
held out; every neural estimate is computed on the held-out rows.  infometer's bounds
(InfoNCE, MINE, NWJ, SMILE, GAN-DIME; separable critic, batch 256) get the same CPU-time
budget each (``--budget``, process CPU clock, one torch thread).  KSG (infometer ``ksg1``,
k = 3) uses all rows.  torch-mist (PyPI ``torch-mist``) pins ``numpy<2``, so it cannot live
in infometer's environment: with ``--peer-python`` it runs in a separate virtualenv (same
torch 2.13.0 CPU build, one thread) on the same rows, saved as .npy files; it has no time
budget, so it runs its own defaults (early stopping, at most ``--peer-iterations``) with a
critic of the same width and its CPU time is reported beside.  bmi (PyPI
``benchmark-mi``, the Beyond Normal authors' package, JAX) likewise needs ``numpy<2`` and a
JAX it supports (``jax==0.4.30`` with bmi 0.1.3): with ``--bmi-python`` its InfoNCE, MINE
and NWJ estimators and its KSG (``KSGEnsembleFirstEstimator(neighborhoods=(3,),
metric_x="chebyshev")``, i.e. KSG-1 with k = 3) run in that environment on all ``--n`` rows
of the same sample with bmi's own defaults (a joint critic of hidden layers 16 and 8,
learning rate 0.1, batch 256, 10,000 steps) except ``train_test_split=0.8``: bmi draws its
own 80/20 split of the rows and reports the estimate on its held-out part.  The two KSGs
are also timed in steady state (issue 42) beside the plain cKDTree and brute-force KSG-1
of ``benchmarks/_floors.py``: bmi's in one long-lived process of its virtualenv
(``benchmarks/_peer.py``), infometer's and the floor here, interleaved after an untimed
warm-up, ``--ksg-repeats`` runs, min CPU (``benchmarks/_timing.py``), one thread each.
``--bounds`` with no name runs the KSG comparison alone.

Example::

    PYTHONPATH=src python benchmarks/accuracy/neural.py --n 5000 --budget 30 \\
        --peer-python /tmp/peers/bin/python --bmi-python /tmp/peers/bin/python
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import _floors as F  # noqa: E402
import _peer as P  # noqa: E402
import _timing as T  # noqa: E402

import infometer as im  # noqa: E402

TASKS = (
    "multinormal-sparse-25-25-2-2.0",
    "half_cube-multinormal-sparse-25-25-2-2.0",
    "spiral-multinormal-sparse-25-25-2-2.0",
    "multinormal-dense-25-25-0.5",
    "multinormal-dense-50-50-0.5",
    "student-identity-5-5-2",
    "asinh-student-identity-5-5-2",
)
BOUNDS = ("infonce", "mine", "nwj", "smile", "gan_dime")
PEER_BOUNDS = ("infonce", "mine", "nwj", "smile")

PEER_SCRIPT = r"""
import json, sys, time, numpy as np, torch
torch.set_num_threads(1)
from torch_mist import estimate_mi
d, name = sys.argv[1], sys.argv[2]
hidden, iters, seed = (int(v) for v in sys.argv[3:6])
torch.manual_seed(seed)
tr = {"x": torch.as_tensor(np.load(d + "/xtr.npy")), "y": torch.as_tensor(np.load(d + "/ytr.npy"))}
te = {"x": torch.as_tensor(np.load(d + "/xte.npy")), "y": torch.as_tensor(np.load(d + "/yte.npy"))}
c0, t0 = time.process_time(), time.perf_counter()
v = estimate_mi(tr, estimator=name, test_data=te, hidden_dims=[hidden, hidden], batch_size=256,
                max_iterations=iters, verbose=False, logger=False)
cpu, wall = time.process_time() - c0, time.perf_counter() - t0
print(json.dumps({"value": float(v), "cpu_s": cpu, "wall_s": wall}))
"""

BMI_BOUNDS = ("infonce", "mine", "nwj")
BMI_SCRIPT = r"""
import json, sys, time, numpy as np
import bmi
d, name, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
x = np.concatenate([np.load(d + "/xtr.npy"), np.load(d + "/xte.npy")]).astype(np.float64)
y = np.concatenate([np.load(d + "/ytr.npy"), np.load(d + "/yte.npy")]).astype(np.float64)
if name == "ksg1":
    est = bmi.estimators.KSGEnsembleFirstEstimator(neighborhoods=(3,), metric_x="chebyshev")
else:
    cls = {"infonce": bmi.estimators.InfoNCEEstimator, "mine": bmi.estimators.MINEEstimator,
           "nwj": bmi.estimators.NWJEstimator}[name]
    est = cls(train_test_split=0.8, verbose=False, seed=seed)
c0, t0 = time.process_time(), time.perf_counter()
v = est.estimate(x, y)
cpu, wall = time.process_time() - c0, time.perf_counter() - t0
print(json.dumps({"value": float(v), "cpu_s": cpu, "wall_s": wall}))
"""


def log(**row) -> None:
    print(json.dumps(row), flush=True)


def timed(fn, *args, **kwargs):
    l0 = os.getloadavg()[0]
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn(*args, **kwargs)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return out, round(wall, 1), round(cpu, 1), (round(l0, 1), round(os.getloadavg()[0], 1))


def run_peer(a, tmp: str, name: str, library: str = "torch-mist") -> dict:
    l0 = os.getloadavg()[0]
    if library == "bmi":
        cmd = [a.bmi_python, "-c", BMI_SCRIPT, tmp, name]
    else:
        cmd = [a.peer_python, "-c", PEER_SCRIPT, tmp, name, str(a.hidden), str(a.peer_iterations)]
    try:
        res = subprocess.run(
            [*cmd, str(a.seed)], capture_output=True, text=True, timeout=a.peer_timeout
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {a.peer_timeout} s"}
    lines = [ln for ln in res.stdout.splitlines() if ln.startswith("{")]
    if res.returncode != 0 or not lines:
        return {"error": (res.stderr.strip().splitlines() or ["no output"])[-1][:200]}
    out = json.loads(lines[-1])
    out["load"] = (round(l0, 1), round(os.getloadavg()[0], 1))
    return out


def ksg_steady(a, x: np.ndarray, y: np.ndarray) -> dict:
    """infometer's and bmi's KSG-1 (k = 3) and the floors (the plain cKDTree and
    brute-force KSG-1 of ``benchmarks/_floors.py``) on all rows, interleaved, bmi warm in
    its own long-lived process: values and min wall / CPU of each."""
    data = P.Data()
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    data.add("x", x64)
    data.add("y", y64)
    peer = P.Peer(a.bmi_python, data)
    try:
        res = T.interleave(
            [
                T.Candidate(
                    "infometer", lambda: im.mutual_info(x64, y64, method="ksg1", k=3).value
                ),
                T.Candidate("bmi", lambda: peer.call("bmi_ksg", "x", "y", k=3)),
                T.Candidate("floor_ckdtree", lambda: F.ksg1_mi(x64, y64, 3)),
                T.Candidate("floor_brute", lambda: F.ksg1_mi_brute(x64, y64, 3)),
            ],
            a.ksg_repeats,
            log=lambda _: None,
        )
    finally:
        peer.close()
        data.close()
    out: dict = {"load": round(os.getloadavg()[0], 1)}
    for name, t in res.items():
        out[f"{name}_value"] = t.value
        out[f"{name}_cpu_min_s"] = round(t.stat("cpu", "min"), 4)
        out[f"{name}_wall_min_s"] = round(t.stat("wall", "min"), 4)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tasks", nargs="+", default=list(TASKS))
    ap.add_argument("--bounds", nargs="*", default=list(BOUNDS))
    ap.add_argument("--ksg-repeats", type=int, default=3, help="steady-state KSG timing runs")
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--budget", type=float, default=30.0, help="CPU s per infometer bound")
    ap.add_argument("--max-steps", type=int, default=20000)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--peer-python", default=None, help="python of a venv with torch-mist")
    ap.add_argument("--bmi-python", default=None, help="python of a venv with benchmark-mi")
    ap.add_argument("--peer-iterations", type=int, default=5000)
    ap.add_argument("--peer-timeout", type=float, default=3600.0)
    a = ap.parse_args()
    import torch

    from infometer.estimators.neural import NeuralMI
    from infometer.measures.truth import get_task

    torch.set_num_threads(1)
    log(
        task="env",
        python=platform.python_version(),
        torch=torch.__version__,
        machine=platform.machine(),
        cpus=os.cpu_count(),
        date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        argv=sys.argv[1:],
    )
    for name in a.tasks:
        task = get_task(name)
        s = task.sample(a.n, seed=a.seed)
        x, y = s["x"].astype(np.float32), s["y"].astype(np.float32)
        cut = int(0.8 * a.n)
        row = {"task": name, "truth": task.truth, "n": a.n, "dims": list(task.dims)}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est, wall, cpu, load = timed(im.mutual_info, x, y, method="ksg1")
        log(
            **row,
            method="ksg1",
            library="infometer",
            value=est.value,
            cpu_s=cpu,
            wall_s=wall,
            load=load,
        )
        with tempfile.TemporaryDirectory() as tmp:
            for arr, fn in ((x[:cut], "xtr"), (y[:cut], "ytr"), (x[cut:], "xte"), (y[cut:], "yte")):
                np.save(os.path.join(tmp, fn + ".npy"), arr)
            if a.bmi_python:
                log(**row, method="ksg1", library="bmi", **run_peer(a, tmp, "ksg1", "bmi"))
                log(**row, method="ksg1", library="steady state", **ksg_steady(a, x, y))
            for bound in a.bounds:
                model = NeuralMI(
                    bound,
                    hidden=a.hidden,
                    steps=a.max_steps,
                    max_seconds=a.budget,
                    clock="cpu",
                    holdout=0.0,
                    seed=a.seed,
                )
                _, wall, cpu, load = timed(model.fit, x[:cut], y[:cut])
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    est = model.mutual_info(x[cut:], y[cut:])
                conv = est.diagnostics["convergence"]
                log(
                    **row,
                    method=bound,
                    library="infometer",
                    value=est.value,
                    cpu_s=cpu,
                    wall_s=wall,
                    load=load,
                    steps=model.log.steps,
                    stop=model.log.stop_reason,
                    diverged=conv["diverged"],
                    flags=[str(w.message)[:70] for w in caught],
                )
                if a.peer_python and bound in PEER_BOUNDS:
                    out = run_peer(a, tmp, bound)
                    log(**row, method=bound, library="torch-mist", **out)
                if a.bmi_python and bound in BMI_BOUNDS:
                    out = run_peer(a, tmp, bound, "bmi")
                    log(**row, method=bound, library="bmi", **out)


if __name__ == "__main__":
    main()
