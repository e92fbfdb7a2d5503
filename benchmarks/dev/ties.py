"""Rounded and tied data: the numbers behind docs/knn.md, "Ties and rounding" (issue 35).

    python benchmarks/dev/ties.py entropy      # KL on dequantised rounded Gaussians vs truth
    python benchmarks/dev/ties.py mi           # KSG-1 dequantised / jittered, GKOV, plug-in
    python benchmarks/dev/ties.py few          # binary and 5-point data: GKOV vs dequantised
    python benchmarks/dev/ties.py real         # the defaults on scikit-learn's bundled tables
    python benchmarks/dev/ties.py complexity   # sample entropy of a rounded AR(1)

Truths from ``infometer.measures.truth.quantised``: h(X') = H(round(Y/Δ)) + log Δ from the
Gaussian's cell probabilities; the MI of a rounded bivariate Gaussian by quadrature.
"""

from __future__ import annotations

import argparse
import os
import warnings

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import infometer as im  # noqa: E402
from infometer.core.data import find_ties  # noqa: E402
from infometer.measures.truth.quantised import (  # noqa: E402
    rounded_gaussian_entropy,
    rounded_gaussian_pair_mutual_info,
)


def miller_madow_mi(x: np.ndarray, y: np.ndarray) -> float:
    _, ix = np.unique(x, return_inverse=True)
    _, iy = np.unique(y, return_inverse=True)
    n = x.size
    t = np.zeros((ix.max() + 1, iy.max() + 1))
    np.add.at(t, (ix, iy), 1)

    def h(c: np.ndarray) -> float:
        c = c[c > 0]
        p = c / n
        return float(-(p * np.log(p)).sum() + (c.size - 1) / (2 * n))

    return h(t.sum(1)) + h(t.sum(0)) - h(t.ravel())


def entropy_table(reps: int = 20) -> None:
    rng = np.random.default_rng(1)
    print("N, step/sd: mean error ± sd of the auto entropy (dequantised KL) and of MM + log Δ")
    for n in (200, 1000, 5000):
        for step in (0.05, 0.2, 0.5, 1.0, 2.0):
            truth = rounded_gaussian_entropy(step)
            kl, mm = [], []
            for _ in range(reps):
                x = step * np.round(rng.normal(size=n) / step)
                kl.append(im.entropy(x, seed=int(rng.integers(2**31))).value - truth)
                _, c = np.unique(x, return_counts=True)
                p = c / n
                mm.append(-(p * np.log(p)).sum() + (c.size - 1) / (2 * n) + np.log(step) - truth)
            print(
                f"N={n:5d} step={step:4}: auto {np.mean(kl):+.3f} ± {np.std(kl):.3f}   "
                f"MM+log step {np.mean(mm):+.3f} ± {np.std(mm):.3f}"
            )


def mi_table(reps: int = 10, rho: float = 0.6) -> None:
    rng = np.random.default_rng(2)
    cov = [[1, rho], [rho, 1]]
    print(f"rho={rho}: mean error ± sd against the exact I of the rounded pair")
    for n in (200, 1000, 5000):
        for step in (0.1, 0.3, 1.0, 2.0):
            truth = rounded_gaussian_pair_mutual_info(rho, step)
            res: dict[str, list[float]] = {"auto": [], "ksg1 jitter": [], "gkov": [], "MM": []}
            for _ in range(reps):
                q = step * np.round(rng.multivariate_normal([0, 0], cov, n) / step)
                x, y = q[:, 0], q[:, 1]
                res["auto"].append(im.mutual_info(x, y).value - truth)
                res["ksg1 jitter"].append(im.mutual_info(x, y, method="ksg1").value - truth)
                res["gkov"].append(im.mutual_info(x, y, method="gkov").value - truth)
                res["MM"].append(miller_madow_mi(x, y) - truth)
            cells = "  ".join(f"{k} {np.mean(v):+.3f}±{np.std(v):.3f}" for k, v in res.items())
            print(f"N={n:5d} step={step:3}: truth {truth:.4f}  {cells}")


def few_table(reps: int = 10) -> None:
    rng = np.random.default_rng(3)
    from math import log

    truth = log(2) + 0.2 * log(0.2) + 0.8 * log(0.8)
    print(f"binary x, y = x xor Bernoulli(0.2): truth {truth:.4f}")
    for n in (200, 1000, 5000):
        res: dict[str, list[float]] = {"auto": [], "ksg1 dequantised": []}
        for _ in range(reps):
            x = rng.integers(0, 2, n)
            y = (x ^ (rng.random(n) < 0.2)).astype(float)
            x = x.astype(float)
            res["auto"].append(im.mutual_info(x, y).value - truth)
            res["ksg1 dequantised"].append(
                im.mutual_info(x, y, method="ksg1", dequantize=True).value - truth
            )
        cells = "  ".join(f"{k} {np.mean(v):+.4f}±{np.std(v):.3f}" for k, v in res.items())
        print(f"N={n:5d}: {cells}  (auto = {im.mutual_info(x, y).method})")


def real_table() -> None:
    from sklearn import datasets

    cases = [
        ("iris", datasets.load_iris(), [0, 1, 2, 3]),
        ("diabetes", datasets.load_diabetes(scaled=False), [0, 2, 3, 8, 9]),
        ("wine", datasets.load_wine(), [0, 4, 10, 12]),
        ("breast_cancer", datasets.load_breast_cancer(), [0, 7, 20]),
        ("digits", datasets.load_digits(), [20, 36]),
    ]
    print("column: old default (KL, tiny jitter) | auto now | Gaussian bound | MM + log step")
    for name, b, cols in cases:
        names = [str(c) for c in getattr(b, "feature_names", range(b.data.shape[1]))]
        for j in cols:
            x = b.data[:, j]
            old = im.entropy(x, method="kozachenko_leonenko").value
            new = im.entropy(x).value
            t = find_ties(x)
            bound = 0.5 * np.log(2 * np.pi * np.e * (x.var() + (t.step or 0) ** 2 / 12))
            _, c = np.unique(x, return_counts=True)
            p = c / x.size
            mm = -(p * np.log(p)).sum() + (c.size - 1) / (2 * x.size) + np.log(t.step or 1)
            print(
                f"{name}[{names[j]}]: {old:+.3f} | {new:+.3f} | {bound:+.3f} | {mm:+.3f} "
                f"({t.describe()})"
            )


def complexity_table() -> None:
    rng = np.random.default_rng(0)
    x = np.zeros(2000)
    for t in range(1, 2000):
        x[t] = 0.7 * x[t - 1] + rng.normal()
    print(f"AR(1) phi=0.7, N=2000, sd {x.std():.3f}: sample entropy (r=0.2)")
    print(f"unrounded: {im.complexity(x, 'sample').value:.4f}")
    for step in (0.05, 0.3, 1.0):
        xr = step * np.round(x / step)
        raw = im.complexity(xr, "sample").value
        deq = im.complexity(xr, "sample", dequantize=True).value
        print(f"step {step} ({step / x.std():.2f} sd): recorded {raw:.4f}, dequantised {deq:.4f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("what", choices=("entropy", "mi", "few", "real", "complexity"))
    args = ap.parse_args()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        {
            "entropy": entropy_table,
            "mi": mi_table,
            "few": few_table,
            "real": real_table,
            "complexity": complexity_table,
        }[args.what]()


if __name__ == "__main__":
    main()
