"""Same bits before and after a refactor of the orchestration (pairwise, bench, parallel).

    git archive <BASE> src | tar -x -C /tmp/base          # the tree before the change
    PYTHONPATH=/tmp/base/src .venv/bin/python benchmarks/dev/same_bits.py save /tmp/bits.pkl
    PYTHONPATH=src .venv/bin/python benchmarks/dev/same_bits.py compare /tmp/bits.pkl

Computes a few all-pairs matrices (auto methods on a mixed table, several blocks on two
threads, the copula with a shared-null permutation test, KSG CMI with per-pair nulls, a
resumable block store) and a small bench sweep (in process and on two spawned workers),
and pickles what users read (matrices, p-values, edge lists, the sweep's estimates).
``compare`` prints ``identical`` or ``DIFFERENT`` per item and exits 1 on any difference.
Issue 29 (the Execution object, parallel/ as a package): every item identical against
48a05f0.
"""

from __future__ import annotations

import pickle
import sys
import tempfile
import warnings

import numpy as np
import pandas as pd


def compute() -> dict:
    import infometer as im
    from infometer.bench import Store, plan, run_sweep, suite_tasks

    warnings.simplefilter("ignore")
    rng = np.random.default_rng(3)
    n = 300
    a = rng.normal(size=n)
    df = pd.DataFrame({f"c{j}": rng.normal(size=n) for j in range(9)})
    df["c1"] = a + 0.5 * rng.normal(size=n)
    df["c0"] = a
    df["d0"] = rng.integers(0, 3, n)
    df["d1"] = (df["d0"] + rng.integers(0, 2, n)) % 3
    out: dict = {"auto": im.pairwise(df, progress=False).matrix.to_numpy()}
    res = im.pairwise(df, block_size=3, n_jobs=2, progress=False)
    out["auto_blocks"] = res.matrix.to_numpy()
    r = im.pairwise(df.iloc[:, :9], method="copula", permutations=49, progress=False)
    out["copula_perm"] = (r.matrix.to_numpy(), r.p_values.to_numpy(), r.edges.to_numpy())
    r = im.pairwise(df.iloc[:, :6], method="ksg", given="c5", permutations=19, seed=4)
    out["cmi_perm"] = (r.matrix.to_numpy(), r.p_values.to_numpy())
    with tempfile.TemporaryDirectory() as d:
        res = im.pairwise(df, store=d, block_size=4, progress=False)
        out["store"] = res.matrix.to_numpy()
    jobs, _ = plan(suite_tasks("quick")[:4], ["auto", "ksg1"], [100], [0, 1])
    for name, workers in (("bench", 1), ("bench2", 2)):
        with tempfile.TemporaryDirectory() as d, Store(d) as st:
            run_sweep(jobs, st, workers=workers, progress=False)
            out[name] = sorted(
                (r["task"], r["method"], r["n"], r["seed"], r.get("estimate")) for r in st.rows()
            )
    return out


def main() -> int:
    mode, path = sys.argv[1], sys.argv[2]
    out = compute()
    if mode == "save":
        with open(path, "wb") as f:
            pickle.dump(out, f)
        return 0
    with open(path, "rb") as f:
        ref = pickle.load(f)  # our own file, written by `save` above
    bad = 0
    for key, value in ref.items():
        same = pickle.dumps(value) == pickle.dumps(out[key])
        bad += not same
        print(key, "identical" if same else "DIFFERENT")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
