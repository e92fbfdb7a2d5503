"""Accuracy of the generalised-entropy and signal estimators against exact answers.

    PYTHONPATH=src python benchmarks/accuracy/entropies.py [--seeds 10] [--ns 1000,10000]

Prints markdown tables of bias and sd over seeds: Rényi / Tsallis (LPS kNN, k = 5) on
Gaussian, exponential and 2-D Gaussian data against the closed forms; Tsallis-2 of a
discrete pmf by the plug-in and the unbiased power sum; permutation entropy of white
noise against log m!; sample entropy of white noise against -log(2 Phi(r/sqrt 2) - 1).
"""

from __future__ import annotations

import argparse
import math
import warnings

import numpy as np
from scipy.special import ndtr


def row(name: str, truth: float, vals: list[float]) -> str:
    v = np.asarray(vals)
    return (
        f"| {name} | {truth:.4f} | {v.mean() - truth:+.4f} | {v.std(ddof=1):.4f} "
        f"| {np.sqrt(np.mean((v - truth) ** 2)):.4f} |"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--ns", default="1000,10000")
    a = ap.parse_args()
    warnings.simplefilter("ignore")
    import infometer as im
    from infometer.measures.generalized import (
        exponential_renyi_entropy,
        gaussian_renyi_entropy,
        renyi_to_tsallis,
    )

    ns = [int(s) for s in a.ns.split(",")]
    cov2 = np.array([[1.0, 0.6], [0.6, 2.0]])
    print("| estimator, data, N | truth (nats) | bias | sd | RMSE |")
    print("|---|---|---|---|---|")
    for n in ns:
        for alpha in (0.5, 2.0, 3.0):
            vals = [
                im.renyi_entropy(np.random.default_rng(s).normal(size=n), order=alpha).value
                for s in range(a.seeds)
            ]
            print(
                row(f"LPS Rényi-{alpha:g}, N(0,1), {n}", gaussian_renyi_entropy(1.0, alpha), vals)
            )
        vals = [
            im.renyi_entropy(np.random.default_rng(s).exponential(size=n), order=2).value
            for s in range(a.seeds)
        ]
        print(row(f"LPS Rényi-2, Exp(1), {n}", exponential_renyi_entropy(1.0, 2), vals))
        vals = [
            im.renyi_entropy(
                np.random.default_rng(s).multivariate_normal([0, 0], cov2, n), order=2
            ).value
            for s in range(a.seeds)
        ]
        print(row(f"LPS Rényi-2, 2-D Gaussian, {n}", gaussian_renyi_entropy(cov2, 2), vals))
        vals = [
            im.tsallis_entropy(np.random.default_rng(s).normal(size=n), order=2).value
            for s in range(a.seeds)
        ]
        print(
            row(
                f"LPS Tsallis-2, N(0,1), {n}",
                renyi_to_tsallis(gaussian_renyi_entropy(1.0, 2), 2),
                vals,
            )
        )
        for m in (3, 5):
            vals = [
                im.complexity(np.random.default_rng(s).normal(size=n), "permutation", order=m).value
                for s in range(a.seeds)
            ]
            print(
                row(f"permutation order {m}, white noise, {n}", math.log(math.factorial(m)), vals)
            )
        vals = [
            im.complexity(np.random.default_rng(s).normal(size=n), "sample").value
            for s in range(a.seeds)
        ]
        print(
            row(
                f"sample entropy r=0.2, white noise, {n}",
                -math.log(2 * ndtr(0.2 / math.sqrt(2)) - 1),
                vals,
            )
        )
    p = np.array([0.4, 0.3, 0.2, 0.1])
    truth = 1 - float((p**2).sum())
    for n in (10, 30):
        for method in ("plugin", "unbiased"):
            vals = [
                im.tsallis_entropy(
                    np.random.default_rng(s).choice(4, n, p=p), order=2, method=method
                ).value
                for s in range(200)
            ]
            print(row(f"Tsallis-2 {method}, 4-symbol pmf, {n} (200 seeds)", truth, vals))


if __name__ == "__main__":
    main()
