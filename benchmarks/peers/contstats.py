"""Benchmarks for the parametric / histogram / transfer-entropy / error-bar area.

Prints markdown tables.  Timings go through ``benchmarks/_timing.py`` (contenders of a part
interleaved on the same data, min / median of ``--repeats``, CPU beside wall, load recorded):

A. Transfer entropy X -> Y of a Gaussian VAR(1) against its closed form, infometer's
   estimators vs infomeasure's KSG TE, ennemi's kNN CMI on the same embedding and the floor
   (the plain cKDTree Frenzel-Pompe program of ``benchmarks/_floors.py``, the same number).
   Steady state: BLAS / OpenMP / numba on one thread (set here unless already set); a peer
   this Python cannot import runs in a long-lived process of its virtualenv
   (``benchmarks/_peer.py``), warm after the untimed warm-up.  ``--cold`` adds the cold
   start of the KSG rows (a fresh process per side, timed from outside).
B. Gaussian / Gaussian-copula MI at N = 10^6.
C. Coverage of nominal 90% intervals for KSG MI: subsampling (infometer's scheme) vs a
   with-replacement bootstrap of the same estimator.

Usage: python benchmarks/peers/contstats.py [--repeats 3] [--reps 20] [--parts A,B,C]
"""

from __future__ import annotations

import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _timing.py
import _floors as F  # noqa: E402
import _peer as P  # noqa: E402
import _timing as T  # noqa: E402
import numpy as np  # noqa: E402
from scipy.linalg import solve_discrete_lyapunov  # noqa: E402

import infometer as im  # noqa: E402
from infometer.core import api, registry  # noqa: E402
from infometer.core.data import as_variables  # noqa: E402
from infometer.measures.stats import resample_values  # noqa: E402
from infometer.measures.timeseries import embed_arrays  # noqa: E402

warnings.simplefilter("ignore")
A = np.array([[0.5, 0.0], [0.5, 0.4]])


def var1(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    e = rng.normal(size=(n + 200, 2))
    s = np.zeros((n + 200, 2))
    for t in range(1, n + 200):
        s[t] = A @ s[t - 1] + e[t]
    return s[200:]


def te_truth() -> float:
    s0 = solve_discrete_lyapunov(A, np.eye(2))
    s1 = A @ s0
    return 0.5 * np.log(s0[1, 1] - s1[1, 1] ** 2 / s0[1, 1])


def part_a(repeats: int, run: T.Run, cold: bool = False) -> None:
    n = 10_000
    s = var1(n, 1)
    x, y = s[:, 0], s[:, 1]
    truth = te_truth()
    xs, yf, zp = embed_arrays(x, y)
    data, hosts = P.Data(), {}
    for name, arr in (
        ("x", x),
        ("y", y),
        ("yf", np.ascontiguousarray(yf[:, 0])),
        ("xs", np.ascontiguousarray(xs[:, 0])),
        ("zp", np.ascontiguousarray(zp[:, 0])),
    ):
        data.add(name, arr)
    rows = [
        ("infometer gaussian", lambda: im.transfer_entropy(x, y, method="gaussian").value),
        (
            "infometer gaussian_copula",
            lambda: im.transfer_entropy(x, y, method="gaussian_copula").value,
        ),
        ("infometer histogram", lambda: im.transfer_entropy(x, y, method="histogram").value),
        ("infometer ksg1 (k=3)", lambda: im.transfer_entropy(x, y, method="ksg1").value),
        ("floor: plain cKDTree Frenzel-Pompe (k=3)", lambda: F.ksg_te(x, y, 3)),
    ]
    peers = [  # name, module, job, arrays, kw
        ("infomeasure ksg (k=4)", "infomeasure", "infomeasure_te_ksg", ("x", "y"), {"k": 4}),
        ("ennemi kNN CMI (k=3)", "ennemi", "ennemi_cmi", ("yf", "xs", "zp"), {"k": 3}),
    ]
    for name, module, job, names, kw in peers:
        fn = P.job_fn(module, data, hosts, job, *names, **kw)
        if fn is not None:
            rows.append((name, fn))
    print(f"\n### A. TE X->Y, Gaussian VAR(1), N = {n}, k = l = 1; closed form {truth:.4f} nats\n")
    try:
        res = T.interleave([T.Candidate(name, f) for name, f in rows], repeats)
        print(run.add("A", res, ref="infometer ksg1 (k=3)"))
        print("\n| tool | TE error vs closed form |\n|---|---|")
        for name, t in res.items():
            print(f"| {name} | {t.value - truth:+.4f} |")
        if cold:
            src = str(Path(__file__).resolve().parents[2] / "src")
            cands = [
                T.Candidate(
                    "infometer ksg1 (k=3), fresh process",
                    lambda: P.cold(sys.executable, data, "im_te", "x", "y", pythonpath=src),
                    warmup=False,
                )
            ]
            for name, module, job, names, kw in peers:
                py = P.python_for(module)
                if py is not None:
                    cands.append(
                        T.Candidate(
                            f"{name}, fresh process",
                            lambda py=py, job=job, names=names, kw=kw: P.cold(
                                py, data, job, *names, **kw
                            ),
                            warmup=False,
                        )
                    )
            print("\n### A, cold start (fresh process: interpreter, imports, np.load, one call)\n")
            res = T.interleave(cands, repeats)
            print(run.add("A cold", res, ref="infometer ksg1 (k=3), fresh process"))
    finally:
        for h in hosts.values():
            h.close()
        data.close()


def part_b(repeats: int, run: T.Run) -> None:
    n, rho = 1_000_000, 0.6
    rng = np.random.default_rng(0)
    x = rng.normal(size=n)
    y = rho * x + np.sqrt(1 - rho**2) * rng.normal(size=n)
    truth = -0.5 * np.log(1 - rho**2)
    print(f"\n### B. MI at N = {n}, rho = {rho}; closed form {truth:.4f} nats\n")
    cands = [
        T.Candidate(
            f"infometer {m}" + (" (exp/cube marginals)" if m == "gaussian_copula" else ""),
            lambda m=m, xx=xx, yy=yy: im.mutual_info(xx, yy, method=m).value,
        )
        for m, xx, yy in (
            ("gaussian", x, y),
            ("gaussian_copula", np.exp(x), y**3),
            ("histogram", x, y),
        )
    ]
    print(run.add("B", T.interleave(cands, repeats)))


def part_c(reps: int) -> None:
    n, rho, b = 1000, 0.6, 50
    truth = -0.5 * np.log(1 - rho**2)
    spec = registry.get("mutual_info", "ksg1")
    rng = np.random.default_rng(3)
    hit = {"subsample": 0, "bootstrap": 0}
    for r in range(reps):
        x = rng.normal(size=n)
        vs = as_variables({"x": x, "y": rho * x + np.sqrt(1 - rho**2) * rng.normal(size=n)})
        est = api.run("mutual_info", vs, method="ksg1", ci=0.9, seed=r, n_resamples=b)
        hit["subsample"] += est.ci[0] <= truth <= est.ci[1]
        vals = resample_values(
            spec, vs, dict(est.params), scheme="bootstrap", n_resamples=b, seed=r
        )
        lo, hi = 2 * est.value - np.quantile(vals, [0.95, 0.05])
        hit["bootstrap"] += lo <= truth <= hi
    print(
        f"\n### C. Coverage of nominal 90% KSG intervals, N = {n}, rho = {rho}, "
        f"{reps} repetitions, {b} resamples\n"
    )
    print("| scheme | coverage |")
    print("|---|---|")
    print(
        f"| infometer subsampling m = n/2, scaled sqrt(m/(n-m)) | {hit['subsample'] / reps:.2f} |"
    )
    print(
        f"| with-replacement bootstrap (basic interval), same estimator | "
        f"{hit['bootstrap'] / reps:.2f} |"
    )


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--parts", default="A,B,C", help="which parts to run")
    ap.add_argument("--cold", action="store_true", help="part A: also time cold starts")
    a = ap.parse_args()
    run = T.Run(["infometer", "scipy"])
    P.record_versions(run, {"ennemi": "ennemi", "infomeasure": "infomeasure"})
    parts = set(a.parts.upper().split(","))
    if "A" in parts:
        part_a(a.repeats, run, a.cold)
    if "B" in parts:
        part_b(a.repeats, run)
    if "C" in parts:
        part_c(a.reps)
    run.finish()
    print("\n" + run.header())
