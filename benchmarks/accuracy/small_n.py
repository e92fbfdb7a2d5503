"""Learned estimators at small n, at their defaults (issue 35 §3): truth, estimate, bias check.

Each case has an exact answer; each estimate is one default call of the functional API
(``infometer.entropy`` / ``infometer.mutual_info``, ``seed=0``) on ``n`` rows:

* InfoSEDD (``method="infosedd"``), 20-mers over 4 symbols:
  ``random``: independent uniform tokens (MI of the halves 0, H = 20 log 4 = 27.73);
  ``channel``: X = positions 0-9 uniform, Y = 10-19 a copy with 10% symmetric errors
  (MI = 10 (log 4 - h) = 9.51, H = 10 (log 4 + h) = 18.21, h = H(Y_i | X_i)).
* Neural bounds (``--bounds``, default infonce), 2 + 2 dimensional Gaussians:
  ``independent`` (MI 0) and ``correlated`` (rho = 0.8 per coordinate: MI 1.02).

* ``--layer``: ``infometer.layer_info`` at its defaults on 200 rows through a 3-layer MLP
  with 8 hidden units (the issue's case); the inputs take 8 values, so every layer is a
  deterministic ``T = f(X)`` with I(X;T) = H(T) exactly, and I(T;Y) (y = parity of the
  input's index) exact the same way (entropies of the activation patterns).

Prints one JSON line per estimate (CPU seconds from ``time.process_time``, the bias check
and whether it was flagged) and a markdown table.  Run against another checkout with
``PYTHONPATH=<checkout>/src`` to compare (estimators without a bias check print none).

Example: ``python benchmarks/accuracy/small_n.py --n 300 1000 5000 --threads 1``
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import time
import warnings

import numpy as np

H_ERR = -0.9 * math.log(0.9) - 0.1 * math.log(0.1 / 3)


def sequences(kind: str, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "random":
        return rng.integers(0, 4, (n, 20))
    x = rng.integers(0, 4, (n, 10))
    flip = rng.random((n, 10)) < 0.1
    return np.hstack([x, np.where(flip, (x + rng.integers(1, 4, x.shape)) % 4, x)])


def gaussians(kind: str, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 2))
    rho = 0.0 if kind == "independent" else 0.8
    return x, rho * x + math.sqrt(1 - rho**2) * rng.normal(size=(n, 2))


def cases(bounds: list[str]) -> list[tuple[str, str, str, float]]:
    """(estimator, quantity, data kind, truth)."""
    out = [
        ("infosedd", "mutual_info", "random", 0.0),
        ("infosedd", "entropy", "random", 20 * math.log(4)),
        ("infosedd", "mutual_info", "channel", 10 * (math.log(4) - H_ERR)),
        ("infosedd", "entropy", "channel", 10 * (math.log(4) + H_ERR)),
    ]
    for b in bounds:
        out += [(b, "mutual_info", "independent", 0.0), (b, "mutual_info", "correlated", 1.0216)]
    return out


def run_one(im, method: str, quantity: str, kind: str, n: int, seed: int):
    if method == "infosedd":
        s = sequences(kind, n, seed)
        if quantity == "entropy":
            return im.entropy(s, method=method, seed=0)
        return im.mutual_info(s[:, :10], s[:, 10:], method=method, discrete=True, seed=0)
    x, y = gaussians(kind, n, seed)
    return im.mutual_info(x, y, method=method, seed=0)


def _entropy(rows: np.ndarray) -> float:
    _, counts = np.unique(np.round(rows, 6), axis=0, return_counts=True)
    p = counts / counts.sum()
    return float(-(p * np.log(p)).sum())


def layer_case(n: int = 200) -> None:
    import torch

    import infometer as im

    try:
        from infometer.estimators.neural import collect_activations
    except ImportError:  # a checkout from before the relayout (issue 37)
        from infometer.neural import collect_activations

    rng = np.random.default_rng(0)
    protos = rng.normal(size=(8, 4))
    idx = rng.integers(0, 8, n)
    x = torch.as_tensor(protos[idx], dtype=torch.float32)
    y = idx % 2
    torch.manual_seed(0)
    net = torch.nn.Sequential(
        torch.nn.Linear(4, 8),
        torch.nn.ReLU(),
        torch.nn.Linear(8, 8),
        torch.nn.ReLU(),
        torch.nn.Linear(8, 2),
    )
    acts = collect_activations(net, x)
    c0, t0 = time.process_time(), time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = im.layer_info(net, x, y)
    cpu, wall = time.process_time() - c0, time.perf_counter() - t0
    print("| layer | quantity | exact | estimate | bias check | flagged |")
    print("|---|---|---|---|---|---|")
    for (_, row), est in zip(df.iterrows(), df.attrs["estimates"], strict=True):
        t = acts[row["layer"]]
        if row["quantity"] == "I(X;T)":
            exact = _entropy(t)
        else:
            exact = _entropy(y[:, None]) + _entropy(t) - _entropy(np.c_[t, y])
        d = est.diagnostics
        b = d.get("bias_check")
        print(
            f"| {row['layer']} | {row['quantity']} | {exact:.3f} | {row['value']:.3f} | "
            + ("—" if b is None else f"{b:+.3f}")
            + f" | {d.get('bias_check_large', '—')} |"
        )
    print(
        json.dumps(
            {
                "case": "layer_info",
                "n": n,
                "cpu_s": round(cpu, 1),
                "wall_s": round(wall, 1),
                "threads": torch.get_num_threads(),
                "load": round(_load(), 1),
            }
        )
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[300, 1000, 5000])
    ap.add_argument("--bounds", nargs="+", default=["infonce"])
    ap.add_argument("--only", choices=["infosedd", "neural"], default=None)
    ap.add_argument("--seed", type=int, default=35, help="data seed (plus n)")
    ap.add_argument("--threads", type=int, default=None, help="torch threads (default: as is)")
    ap.add_argument("--layer", action="store_true", help="the layer_info case only")
    args = ap.parse_args()
    import torch

    import infometer as im

    if args.threads is not None:
        torch.set_num_threads(args.threads)
    if args.layer:
        layer_case()
        return
    rows = []
    for method, quantity, kind, truth in cases(args.bounds):
        if args.only == "infosedd" and method != "infosedd":
            continue
        if args.only == "neural" and method == "infosedd":
            continue
        for n in args.n:
            c0, t0 = time.process_time(), time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est = run_one(im, method, quantity, kind, n, args.seed + n)
            d = est.diagnostics
            row = {
                "method": method,
                "quantity": quantity,
                "data": kind,
                "n": n,
                "truth": round(truth, 3),
                "estimate": round(float(est.value), 3),
                "bias_check": None if d.get("bias_check") is None else round(d["bias_check"], 3),
                "flagged": d.get("bias_check_large"),
                "cpu_s": round(time.process_time() - c0, 1),
                "wall_s": round(time.perf_counter() - t0, 1),
                "threads": torch.get_num_threads(),
                "load": round(_load(), 1),
            }
            rows.append(row)
            print(json.dumps(row), flush=True)
    print(f"\n{platform.processor() or platform.machine()}, torch {torch.__version__}\n")
    print("| estimator | quantity | data | n | truth | estimate | bias check | flagged | CPU s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        b = "—" if r["bias_check"] is None else f"{r['bias_check']:+.3f}"
        f = "—" if r["flagged"] is None else ("yes" if r["flagged"] else "no")
        print(
            f"| {r['method']} | {r['quantity']} | {r['data']} | {r['n']} | {r['truth']:.2f} "
            f"| {r['estimate']:.2f} | {b} | {f} | {r['cpu_s']} |"
        )


def _load() -> float:
    try:
        import os

        return os.getloadavg()[0]
    except OSError:  # pragma: no cover - not on every platform
        return float("nan")


if __name__ == "__main__":
    main()
