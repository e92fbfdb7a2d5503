"""The crossover between the engine's brute force and its kd-tree / bitset path for the
joint kNN plus marginal counts of KSG-1 (``engine.brute_chosen``).

    python benchmarks/dev/knn_brute.py --d 8,12,16,20 --n 5e3,2e4,5e4 --repeats 3

Data: x ~ N(0, I_{d/2}), y = 0.6 x + 0.8 noise (seed 0), ``d`` joint columns.  For each
size, ``kernels._ksg_counts`` (KSG-1, k = 3) with ``engine.BRUTE = "never"`` (kd-tree
joint search or bitset index, marginal counts on the sorted column / grid / bitset index,
the bitset kernels treated as warm; ``--no-bitset``: without it, as below
``BITSET_COLD_MIN_POINTS`` on an install where it never ran) and ``"always"``, interleaved through
``benchmarks/_timing.py`` (warm-up, min of ``--repeats``), after checking that both give
the same counts.  Prints min CPU of each and brute / tree.  ``--fp`` times Frenzel-Pompe
(x, y, z of d/3 columns each) instead.  Threads are pinned to one (BLAS, OpenMP, numba)
unless those variables are set.
"""

from __future__ import annotations

import argparse
import os
import sys

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_v, "1")  # one thread each unless set: CPU per unit of work

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import _timing as T  # noqa: E402

from infometer.estimators.knn import _engine as engine  # noqa: E402
from infometer.estimators.knn import _kernels as kernels  # noqa: E402


def _data(n: int, d: int, fp: bool) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    parts = 3 if fp else 2
    w = max(d // parts, 1)
    x = rng.standard_normal((n, w))
    out = [x, 0.6 * x + 0.8 * rng.standard_normal((n, w))]
    if fp:
        out.append(0.5 * x + rng.standard_normal((n, w)))
    return out


def _counts(blocks: list[np.ndarray], how: str, fp: bool) -> np.ndarray:
    engine.BRUTE = how
    try:
        if fp:
            return np.stack(kernels._fp_counts(*blocks, 3, 0))
        return np.stack(kernels._ksg_counts(*blocks, 3, 1, 0)[:2])
    finally:
        engine.BRUTE = "auto"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--d", default="8,12,16,20", help="joint columns (comma-separated)")
    ap.add_argument("--n", default="5e3,2e4", help="sample sizes (comma-separated)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--fp", action="store_true", help="Frenzel-Pompe instead of KSG-1")
    ap.add_argument(
        "--no-bitset", action="store_true", help="the tree path without the bitset index"
    )
    a = ap.parse_args(argv)
    engine.BACKEND = "compiled"
    engine.BITSET_COLD_MIN_POINTS = 0  # the bitset kernels as on a warm install
    if a.no_bitset:  # as on an install where they never ran (below BITSET_COLD_MIN_POINTS)
        engine.BITSET_MIN_POINTS = 10**12
    run = T.Run()
    print(run.header(), flush=True)
    print("d,n,tree_cpu_s,brute_cpu_s,brute/tree,load", flush=True)
    for n in (int(float(v)) for v in a.n.split(",")):
        for d in (int(v) for v in a.d.split(",")):
            blocks = _data(n, d, a.fp)
            ref = _counts(blocks, "never", a.fp)
            if not np.array_equal(ref, _counts(blocks, "always", a.fp)):
                raise AssertionError(f"d={d} n={n}: brute force and tree counts differ")
            res = T.interleave(
                [
                    T.Candidate("tree", lambda b=blocks: _counts(b, "never", a.fp).sum()),
                    T.Candidate("brute", lambda b=blocks: _counts(b, "always", a.fp).sum()),
                ],
                a.repeats,
                log=lambda _: None,
            )
            t, b = res["tree"].stat("cpu", "min"), res["brute"].stat("cpu", "min")
            print(f"{d},{n},{t:.4f},{b:.4f},{b / t:.3f},{T.load1():.1f}", flush=True)
    run.finish()
    print(run.header().splitlines()[-2:], flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
