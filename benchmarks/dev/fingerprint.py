"""Fingerprint of the library's numbers, to check that a refactor changes none of them.

Runs every registered estimator (as ``tests/test_every_estimator.py`` does, on the same
small data), with and without ``ci=``, plus the composite entry points that a refactor of
the orchestration touches (``im.pairwise``, ``im.infer_network``, ``im.multiplets``,
``im.pid``, the ``bench`` runner on the quick suite) and their execution paths (blocks on
two threads, a resumable store, one and two bench workers), and writes every number as a
hex float (JSON: nothing is pickled).

    python benchmarks/dev/fingerprint.py --out before.json
    ... refactor ...
    python benchmarks/dev/fingerprint.py --out after.json --compare before.json

``--compare`` prints every key whose value differs (bit for bit) or that appeared or
disappeared, and exits 1 if any differs.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import warnings

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import infometer as im  # noqa: E402
from infometer.core import registry  # noqa: E402
from infometer.core.api import run  # noqa: E402
from infometer.core.data import as_variables  # noqa: E402

N = 120
TINY = {"steps": 10, "hidden": 8, "passes": 1, "batch_size": 32, "progress": False}
TORCH_FAMILIES = ("diffusion", "neural")


def _hex(v) -> str:
    v = float(v)
    return "nan" if math.isnan(v) else v.hex()


def _data(quantity: str, continuous: bool) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    if quantity in registry.EXAMPLES:
        return registry.EXAMPLES[quantity](rng)
    roles = registry.QUANTITY_ROLES[quantity]
    roles = roles[:2] if quantity == "transfer_entropy" else roles
    if continuous:
        base = rng.normal(size=N)
        return {r: base + rng.normal(size=N) for r in roles}
    base = rng.integers(0, 3, size=N)
    return {r: (base + (rng.random(N) < 0.3)) % 3 for r in roles}


def _estimators(out: dict[str, str], torch_ok: bool) -> None:
    seen = set()
    for s in registry.specs():
        if (s.quantity, s.func) in seen:
            continue
        seen.add((s.quantity, s.func))
        if s.family in TORCH_FAMILIES and not torch_ok:
            continue
        data = _data(s.quantity, "continuous" in s.kinds)
        params = {k: v for k, v in TINY.items() if k in s.params}
        vs = as_variables(data, paired=s.quantity not in registry.UNPAIRED)
        key = f"est/{s.quantity}/{s.name}"
        try:
            e = run(s.quantity, vs, method=s.name, params=params)
            out[key] = _hex(e.value)
            if s.family not in TORCH_FAMILIES:
                c = run(s.quantity, vs, method=s.name, ci=0.9, n_resamples=20, params=params)
                out[key + "/ci"] = f"{_hex(c.ci[0])} {_hex(c.ci[1])} {_hex(c.stderr)}"
        except Exception as exc:  # noqa: BLE001 - a fingerprint records failures too
            out[key] = f"error: {type(exc).__name__}"


def _frame(out: dict[str, str], prefix: str, df) -> None:
    """Every cell of a result table, row by row (floats as hex)."""
    for i, row in enumerate(df.itertuples(index=False)):
        cells = []
        for v in row:
            if isinstance(v, (float, np.floating)):
                cells.append(_hex(v))
            elif hasattr(v, "value") and hasattr(v, "unit"):  # an Estimate
                cells.append(_hex(v.value))
            else:
                cells.append(str(v))
        out[f"{prefix}/{i}"] = " ".join(cells)


def _composites(out: dict[str, str]) -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(size=(300, 6))
    x[:, 1] += x[:, 0]
    x[:, 2] += 0.5 * x[:, 1]
    df = {f"c{i}": x[:, i] for i in range(6)}
    for method in ("ksg1", "gaussian_copula"):
        r = im.pairwise(df, method=method, n_permutations=19, seed=0, progress=False)
        _frame(out, f"pairwise/{method}", r.edges)
    v = np.zeros((1500, 4))
    e = rng.normal(size=v.shape)
    for t in range(2, len(v)):
        v[t, 0] = 0.5 * v[t - 1, 0] + e[t, 0]
        v[t, 1] = 0.4 * v[t - 1, 1] + 0.5 * v[t - 1, 0] + e[t, 1]
        v[t, 2] = 0.4 * v[t - 1, 2] + 0.5 * v[t - 2, 1] + e[t, 2]
        v[t, 3] = e[t, 3]
    ts = {f"s{i}": v[:, i] for i in range(4)}
    for method in ("mte", "bivariate_te", "pcmci"):
        net = im.infer_network(
            ts,
            method=method,
            max_lag=2,
            cmi="gaussian",
            n_permutations=50,
            n_permutations_omnibus=50,
            seed=0,
            progress=False,
        )
        _frame(out, f"network/{method}", net.edges)
    m = im.multiplets(
        x,
        measure="o_information",
        sizes=(3, 4),
        method="gaussian_copula",
        n_permutations=19,
        seed=0,
        progress=False,
    )
    _frame(out, "multiplets", m.to_frame())
    xs = rng.integers(0, 2, size=(400, 2))
    y = xs[:, 0] ^ xs[:, 1]
    for measure in ("broja", "imin", "isx"):
        p = im.pid(xs, y, measure=measure)
        _frame(out, f"pid/{measure}", p.to_frame())


def _bench(out: dict[str, str]) -> None:
    from infometer.workflows.bench import runner, suites

    suite = suites.SUITES["quick"]
    jobs, _ = runner.plan(suites.suite_tasks("quick"), suite.methods, (200,), (0,))
    for job in jobs:
        row = runner.run_job(job)
        out[f"bench/{job.task}/{job.method}"] = _hex(row.get("estimate", float("nan")))


def _matrix(out: dict[str, str], prefix: str, a) -> None:
    out[prefix] = " ".join(_hex(v) for v in np.asarray(a, dtype=float).ravel())


def _execution(out: dict[str, str]) -> None:
    """The execution paths of pairwise and bench: blocks, threads, stores, workers."""
    import tempfile

    import pandas as pd

    from infometer.workflows.bench import Store, plan, run_sweep, suite_tasks

    rng = np.random.default_rng(3)
    n = 300
    a = rng.normal(size=n)
    df = pd.DataFrame({f"c{j}": rng.normal(size=n) for j in range(9)})
    df["c1"] = a + 0.5 * rng.normal(size=n)
    df["c0"] = a
    df["d0"] = rng.integers(0, 3, n)
    df["d1"] = (df["d0"] + rng.integers(0, 2, n)) % 3
    _matrix(out, "exec/auto", im.pairwise(df, progress=False).matrix)
    res = im.pairwise(df, block_size=3, n_jobs=2, progress=False)
    _matrix(out, "exec/auto_blocks", res.matrix)
    r = im.pairwise(df.iloc[:, :9], method="copula", n_permutations=49, progress=False)
    _matrix(out, "exec/copula_perm", r.matrix)
    _matrix(out, "exec/copula_perm/p", r.p_values)
    r = im.pairwise(df.iloc[:, :6], method="ksg", given="c5", n_permutations=19, seed=4)
    _matrix(out, "exec/cmi_perm", r.matrix)
    _matrix(out, "exec/cmi_perm/p", r.p_values)
    with tempfile.TemporaryDirectory() as d:
        _matrix(out, "exec/store", im.pairwise(df, store=d, block_size=4, progress=False).matrix)
    jobs, _ = plan(suite_tasks("quick")[:4], ["auto", "ksg1"], [100], [0, 1])
    for name, workers in (("bench1", 1), ("bench2", 2)):
        with tempfile.TemporaryDirectory() as d, Store(d) as st:
            run_sweep(jobs, st, workers=workers, progress=False)
            for r in st.rows():
                key = f"exec/{name}/{r['task']}/{r['method']}/{r['n']}/{r['seed']}"
                out[key] = _hex(r.get("estimate", float("nan")))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--compare", default=None)
    ap.add_argument("--no-torch", action="store_true")
    a = ap.parse_args()
    out: dict[str, str] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if not a.no_torch:
            try:
                import torch

                torch.set_num_threads(1)
                torch_ok = True
            except ImportError:
                torch_ok = False
        else:
            torch_ok = False
        _estimators(out, torch_ok)
        for name, f in (("composites", _composites), ("bench", _bench), ("execution", _execution)):
            try:
                f(out)
            except Exception as exc:  # noqa: BLE001
                out[f"{name}/error"] = f"{type(exc).__name__}: {exc}"
    with open(a.out, "w") as fh:
        json.dump(out, fh, indent=0, sort_keys=True)
    print(f"{len(out)} numbers -> {a.out}")
    if a.compare:
        old = json.load(open(a.compare))
        diff = sorted(k for k in set(old) | set(out) if old.get(k) != out.get(k))
        for k in diff:
            print(f"{k}: {old.get(k, '<absent>')} -> {out.get(k, '<absent>')}")
        print(f"{len(diff)} of {len(set(old) | set(out))} differ")
        return 1 if diff else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
