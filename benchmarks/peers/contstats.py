"""Benchmarks for the parametric / histogram / transfer-entropy / error-bar area.

Prints markdown tables.  Timings go through ``benchmarks/_timing.py`` (contenders of a part
interleaved on the same data, min / median of ``--repeats``, CPU beside wall, load recorded):

A. Transfer entropy X -> Y of a Gaussian VAR(1) against its closed form, infometer's
   estimators vs infomeasure's KSG TE and ennemi's kNN CMI on the same embedding.
B. Gaussian / Gaussian-copula MI at N = 10^6.
C. Coverage of nominal 90% intervals for KSG MI: subsampling (infometer's scheme) vs a
   with-replacement bootstrap of the same estimator.

Usage: python benchmarks/peers/contstats.py [--repeats 3] [--reps 20] [--parts A,B,C]
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _timing.py
import _timing as T  # noqa: E402
import numpy as np
from scipy.linalg import solve_discrete_lyapunov

import infometer as im
from infometer.core import api, registry
from infometer.core.data import as_variables
from infometer.measures.stats import resample_values
from infometer.measures.timeseries import embed_arrays

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


def part_a(repeats: int, run: T.Run) -> None:
    import ennemi
    import infomeasure as imf

    n = 10_000
    s = var1(n, 1)
    x, y = s[:, 0], s[:, 1]
    truth = te_truth()
    xs, yf, zp = embed_arrays(x, y)
    rows = [
        ("infometer gaussian", lambda: im.transfer_entropy(x, y, method="gaussian").value),
        (
            "infometer gaussian_copula",
            lambda: im.transfer_entropy(x, y, method="gaussian_copula").value,
        ),
        ("infometer histogram", lambda: im.transfer_entropy(x, y, method="histogram").value),
        ("infometer ksg1 (k=3)", lambda: im.transfer_entropy(x, y, method="ksg1").value),
        (
            "infomeasure ksg (k=4)",
            lambda: imf.transfer_entropy(
                x, y, approach="ksg", k=4, src_hist_len=1, dest_hist_len=1, step_size=1
            ),
        ),
        (
            "ennemi kNN CMI (k=3)",
            lambda: float(np.ravel(ennemi.estimate_mi(yf[:, 0], xs[:, 0], cond=zp[:, 0], k=3))[0]),
        ),
    ]
    print(f"\n### A. TE X->Y, Gaussian VAR(1), N = {n}, k = l = 1; closed form {truth:.4f} nats\n")
    res = T.interleave([T.Candidate(name, f) for name, f in rows], repeats)
    print(run.add("A", res, ref="infometer ksg1 (k=3)"))
    print("\n| tool | TE error vs closed form |\n|---|---|")
    for name, t in res.items():
        print(f"| {name} | {t.value - truth:+.4f} |")


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
    a = ap.parse_args()
    run = T.Run(["ennemi", "infomeasure", "scipy"])
    parts = set(a.parts.upper().split(","))
    if "A" in parts:
        part_a(a.repeats, run)
    if "B" in parts:
        part_b(a.repeats, run)
    if "C" in parts:
        part_c(a.reps)
    run.finish()
    print("\n" + run.header())
