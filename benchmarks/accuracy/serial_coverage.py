"""Coverage of the intervals of serial quantities (issue 38 §2): the ``"block"`` scheme of
``resample.error_bars`` against an i.i.d. resampling of the same rows, on processes whose
value is known exactly.

* AIS of a Gaussian AR(1), history k = 1: ``−½ log(1 − φ²)``; φ = 0.5 and 0.9.
* TE x → y of a Gaussian VAR(1) (x_t = a x_{t−1} + e, y_t = 0.5 y_{t−1} + 0.3 x_{t−1} + e'),
  k = l = 1: I(y_t; x_{t−1} | y_{t−1}) from the stationary covariance (Lyapunov equation);
  a = 0.5 and 0.9 (the source's memory sets the dependence of the TE terms).
* Entropy rate of a binary Markov chain (plug-in, k = 1): ``Σ π_i H_b(p_i)`` exactly;
  flips 0→1 / 1→0 with probabilities (0.3, 0.3) and (0.05, 0.1) (persistent).
* TE of the a = 0.9 VAR with KSG-1 (k = 4 neighbours), N = 500 and 2000: the kNN case.

Per cell: R = 100 replicate series (seeds fixed; ``REPLICATES=``), each with a 95% and a
90% interval (from one set of 200 resamples, as ``error_bars`` draws them); the share that
covers the truth with its Clopper–Pearson 95% interval, the mean width, and the same for
the i.i.d. scheme (the estimator's own row scheme: basic bootstrap for the Gaussian and
plug-in estimators, subsampling for KSG) on the same replicate.  Table to stdout (pasted
into benchmarks/results/serial_coverage.md), raw numbers to
benchmarks/results/serial_coverage.json (resumed).

Run from the repository root:
    OPENBLAS_NUM_THREADS=1 PYTHONPATH=src .venv/bin/python benchmarks/accuracy/serial_coverage.py
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
import warnings

import numpy as np
from scipy import linalg, stats

from infometer.core import registry, resample
from infometer.core.data import as_variables
from infometer.measures.truth import closed_forms
from infometer.measures.truth.discrete import markov_entropy_rate, sample_markov_chain

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "benchmarks", "results", "serial_coverage.json")
R = int(os.environ.get("REPLICATES", "100"))
R_KNN = int(os.environ.get("REPLICATES_KNN", "100"))
LEVELS = (0.9, 0.95)


def ar1(phi: float, n: int, rng: np.random.Generator, burn: int = 500) -> np.ndarray:
    e = rng.normal(size=n + burn)
    x = np.empty(n + burn)
    x[0] = e[0] / np.sqrt(1 - phi * phi)
    for t in range(1, n + burn):
        x[t] = phi * x[t - 1] + e[t]
    return x[burn:]


def var_pair(a: float, n: int, rng: np.random.Generator, burn: int = 500):
    e = rng.normal(size=(n + burn, 2))
    x, y = np.zeros(n + burn), np.zeros(n + burn)
    for t in range(1, n + burn):
        x[t] = a * x[t - 1] + e[t, 0]
        y[t] = 0.5 * y[t - 1] + 0.3 * x[t - 1] + e[t, 1]
    return x[burn:], y[burn:]


def var_te(a: float) -> float:
    """I(y_t; x_{t-1} | y_{t-1}) of the VAR(1) above, from its stationary covariance."""
    A = np.array([[a, 0.0], [0.3, 0.5]])
    S = linalg.solve_discrete_lyapunov(A, np.eye(2))
    joint = np.block([[S, A @ S], [S @ A.T, S]])  # (x_t, y_t, x_{t-1}, y_{t-1})
    order = [1, 2, 3]  # y_t ; x_{t-1} ; y_{t-1}
    return closed_forms.gaussian_cond_mutual_info(joint[np.ix_(order, order)], 1, 1)


def cells() -> list[dict]:
    out = []
    for n in (500, 2000, 8000):
        for phi in (0.5, 0.9):
            out.append({"name": f"AIS AR(1) φ={phi}", "kind": "ais", "p": phi, "n": n})
        for a in (0.5, 0.9):
            out.append({"name": f"TE VAR(1) a={a}", "kind": "te", "p": a, "n": n})
        for f in ((0.3, 0.3), (0.05, 0.1)):
            out.append({"name": f"entropy rate Markov flips {f}", "kind": "er", "p": f, "n": n})
    for n in (500, 2000):
        out.append({"name": "TE VAR(1) a=0.9, ksg1", "kind": "te_knn", "p": 0.9, "n": n})
    return out


def setup(cell: dict, rng: np.random.Generator):
    """(quantity, method, params, data dict, truth)."""
    k, n, p = cell["kind"], cell["n"], cell["p"]
    if k == "ais":
        return (
            "active_info_storage",
            "gaussian",
            {"k": 1},
            {"x": ar1(p, n, rng)},
            -0.5 * np.log(1 - p * p),
        )
    if k in ("te", "te_knn"):
        x, y = var_pair(p, n, rng)
        meth, params = ("gaussian", {}) if k == "te" else ("ksg1", {"cmi_k": 4})
        return (
            "transfer_entropy",
            meth,
            {"k": 1, "l": 1, **params},
            {"source": x, "target": y},
            var_te(p),
        )
    t = np.array([[1 - p[0], p[0]], [p[1], 1 - p[1]]])
    return (
        "entropy_rate",
        "plugin",
        {"k": 1},
        {"x": sample_markov_chain(t, n, rng)},
        markov_entropy_rate(t),
    )


def one(cell: dict, r: int) -> dict:
    rng = np.random.default_rng([cell["n"], r, hash(cell["name"]) % 2**31])
    quantity, method, params, data, truth = setup(cell, rng)
    variables = as_variables(data)
    spec = registry.get(quantity, method)
    full = spec.check_params(params)
    raw = spec.func(*variables.values(), **full)
    iid = dataclasses.replace(
        spec, resampling="subsample" if cell["kind"] == "te_knn" else "bootstrap"
    )
    rec = {"value": raw.value, "truth": truth}
    for name, sp in (("block", spec), ("iid", iid)):
        # one set of 200 resamples, both levels (error_bars = resample_values + this)
        vals = resample.resample_values(
            sp, variables, full, scheme=sp.resampling, n_resamples=200, seed=r
        )
        for level in LEVELS:
            _, (lo, hi), _ = resample.interval_from_values(
                sp, variables, full, raw, vals, level=level
            )
            rec[f"{name}_{level}"] = [lo, hi]
    return rec


def main() -> None:
    warnings.simplefilter("ignore")
    registry.get("transfer_entropy", "gaussian")  # loads the families (post-load hooks)
    doc = json.load(open(OUT)) if os.path.exists(OUT) else {}
    for cell in cells():
        key = f"{cell['name']}|{cell['n']}"
        reps = R_KNN if cell["kind"] == "te_knn" else R
        have = doc.get(key, [])
        if len(have) >= reps:
            continue
        t0 = time.process_time()
        for r in range(len(have), reps):
            have.append(one(cell, r))
        doc[key] = have
        with open(OUT, "w") as f:
            json.dump(doc, f)
        print(key, f"{time.process_time() - t0:.0f} s CPU", flush=True)
    print(table(doc))


def table(doc: dict) -> str:
    lines = [
        "| process | N | truth | scheme | nominal | coverage (95% CI) | mean width |",
        "|---|---|---|---|---|---|---|",
    ]
    for key, recs in doc.items():
        name, n = key.split("|")
        truth = recs[0]["truth"]
        for scheme in ("block", "iid"):
            for level in LEVELS:
                ivs = np.array([r[f"{scheme}_{level}"] for r in recs])
                hit = (ivs[:, 0] <= truth) & (truth <= ivs[:, 1])
                k, m = int(hit.sum()), hit.size
                lo = stats.beta.ppf(0.025, k, m - k + 1) if k else 0.0
                hi = stats.beta.ppf(0.975, k + 1, m - k) if k < m else 1.0
                width = float(np.mean(ivs[:, 1] - ivs[:, 0]))
                lines.append(
                    f"| {name} | {n} | {truth:.4f} | {scheme} | {level:.0%} | "
                    f"{k / m:.3f} ({lo:.3f}–{hi:.3f}), {k}/{m} | {width:.4f} |"
                )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
