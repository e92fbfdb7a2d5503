"""Time infometer's kNN MI (KSG-1) against its peers in the same run.

Usage::

    PYTHONPATH=src /work/venv/bin/python benchmarks/peers/knn.py            # default grid
    PYTHONPATH=src /work/venv/bin/python benchmarks/peers/knn.py --quick    # small smoke run
    PYTHONPATH=src /work/venv/bin/python benchmarks/peers/knn.py --out bench-out/knn.json

Data: X ~ N(0, I_d), Y = 0.75 X + sqrt(1 - 0.75^2) E, true MI = -(d/2) log(1 - 0.75^2)
(0.4133 nats for d = 1, 1.2400 for d = 3).  k = 3 everywhere, nats.

Peers (benchmark-only dependencies, ``pip install infometer[peers]`` or their own
virtualenvs under ``/work/peers``): scikit-learn ``mutual_info_regression`` (1-D only),
ennemi ``estimate_mi`` (1-D x, 1-D y here), npeet-plus ``mi`` and infomeasure
``mutual_information(approach="ksg")``.  A peer this Python cannot import runs in a
long-lived process of its virtualenv (``benchmarks/_peer.py``), timed inside it; a peer
found nowhere is skipped.  The floor is the plain cKDTree KSG-1 of
``benchmarks/_floors.py`` (the same number).  Timing goes through
``benchmarks/_timing.py``: in each cell infometer, the floor and the peers run interleaved
on the same data (round-robin), ``--repeats`` times each after a warm-up on 500 points of
the same dimension (imports, numba, thread pools: steady state; one run only for a
contender whose first run takes more than ``--slow`` seconds).  BLAS / OpenMP / numba run
on one thread (set here unless already set).  The table gives min and median wall, the
spread, min and median CPU (process CPU of all threads) and the wall and CPU ratios of the
minima.  numba compilation is done (and timed) once before the timed runs.  ``--cold``
adds, per cell, the cold start: a fresh process per side (interpreter, imports, numba
cache loading, ``np.load``, one call), timed from outside.

``--profile`` splits infometer's time into its stages; ``--counts`` times the 2-4 column
marginal counts on the quantile grid against the kd-tree on several kinds of data;
``--rankbits`` times the scipy backend's counts (rank-interval bitsets against cKDTree);
``--memory`` measures the peak resident memory of one infometer run in a fresh process
per N (to check O(N·d) growth).
"""

from __future__ import annotations

import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _timing.py
import _floors as F  # noqa: E402
import _peer as P  # noqa: E402
import _timing as T  # noqa: E402
import numpy as np  # noqa: E402

RHO = 0.75


def make(n: int, d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, d))
    y = RHO * x + np.sqrt(1 - RHO**2) * rng.standard_normal((n, d))
    return x, y


def truth(d: int) -> float:
    return -d / 2 * np.log(1 - RHO**2)


# ------------------------------------------------------------------ the contenders
def ours(x, y):
    import infometer as im

    return im.mutual_info(x, y, method="ksg1", k=3).value


PEERS: dict[str, tuple[str, str, tuple[int, ...]]] = {
    # name: (module it imports, job in benchmarks/_peer.py, dims supported)
    "scikit-learn": ("sklearn", "sklearn_mi_regression", (1,)),
    "ennemi": ("ennemi", "ennemi_mi", (1,)),
    "npeet-plus": ("npeet_plus", "npeet_mi", (1, 3)),
    "infomeasure": ("infomeasure", "infomeasure_mi_ksg", (1, 3)),
}
FLOOR = "floor: plain cKDTree KSG-1"


# ------------------------------------------------------------------ profile / memory
def profile(n: int, d: int) -> dict[str, float]:
    """Stage times of one KSG-1 run (same calls as the estimator, timed one by one)."""
    from scipy.special import digamma

    from infometer.estimators.knn import _engine as engine
    from infometer.estimators.knn._prep import prepare

    x, y = make(n, d)
    out = {}
    t0 = time.perf_counter()
    p = prepare({"x": x, "y": y}, standardize=True, jitter="auto", jitter_scale=1e-10, seed=0)
    bx, by = p.blocks
    xy = np.hstack([bx, by])
    t1 = time.perf_counter()
    tree = engine.KDTree(xy)
    t2 = time.perf_counter()
    dist, _ = tree.knn_self(3)
    eps = dist[:, 2].copy()
    t3 = time.perf_counter()
    nx = engine.count_within(bx, eps, strict=True)
    ny = engine.count_within(by, eps, strict=True)
    t4 = time.perf_counter()
    _ = digamma(3) + digamma(n) - np.mean(digamma(nx + 1)) - np.mean(digamma(ny + 1))
    t5 = time.perf_counter()
    out["prepare (standardise, tie check)"] = t1 - t0
    out["joint kd-tree build"] = t2 - t1
    out["joint kNN query"] = t3 - t2
    out["marginal counts" + (" (sorted 1-D)" if d == 1 else " (quantile grid)")] = t4 - t3
    out["digamma + mean"] = t5 - t4
    return out


def counts(n: int, repeats: int) -> list[dict]:
    """Marginal range counts: the quantile grid against the kd-tree (both exact), build included.

    Radii are KSG-1's (k = 3 joint max-norm neighbour distance of (x, y), strict), on data
    meant to stress the grid: Gaussian with MI, independent, nearly collinear columns,
    ties (values rounded to 0.1) and Cauchy tails.
    """
    from infometer.estimators.knn import _engine as engine

    rng = np.random.default_rng(1)
    rows = []
    for d in (2, 3, 4):
        for kind in ("gauss", "independent", "dependent", "ties", "cauchy"):
            x = rng.standard_normal((n, d))
            noise = rng.standard_normal((n, d))
            if kind == "dependent":
                x = x[:, :1] + 0.2 * x  # columns correlated ~0.96
            elif kind == "ties":
                x = np.round(x, 1)
            elif kind == "cauchy":
                x, noise = rng.standard_cauchy((n, d)), rng.standard_cauchy((n, d))
            y = noise if kind == "independent" else RHO * x + np.sqrt(1 - RHO**2) * noise
            eps, _ = engine.kth_neighbours(np.hstack([x, y]), 3)
            r = np.where(eps > 0, np.nextafter(eps, 0), -1.0)

            def grid_count(x=x, eps=eps):
                return engine.RangeCounter(x).count(eps, strict=True)

            def tree_count(x=x, r=r):
                c = engine.KDTree(x).count_self(r)
                c[r < 0] = 0
                return c

            assert np.array_equal(grid_count(), tree_count())
            res = T.interleave(
                [T.Candidate("grid", grid_count), T.Candidate("tree", tree_count)],
                repeats,
                log=lambda _: None,
            )
            g, tr = res["grid"].stat("wall", "median"), res["tree"].stat("wall", "median")
            rows.append({"d": d, "kind": kind, "grid_s": g, "tree_s": tr})
            print(f"| {d} | {kind} | {g:.3f} | {tr:.3f} | {tr / g:.2f}x |", flush=True)
    return rows


def rankbits(repeats: int, sizes=(250, 500, 2000, 8000), dims=(2, 3, 8, 16)) -> list[dict]:
    """The scipy backend's marginal counts: cKDTree against the rank-interval bitsets of
    ``knn/rankbits.py`` (both exact; KSG-1 radii of Gaussian data with rho = RHO)."""
    from infometer.estimators.knn import _engine as engine

    engine.BACKEND = "scipy"
    rows = []
    try:
        for n in sizes:
            for d in dims:
                x, y = make(n, d)
                eps, _ = engine.kth_neighbours(np.hstack([x, y]), 3)
                bits = engine.RangeCounter(x)
                if not bits._bits:
                    continue
                engine.RANKBITS_MIN_POINTS, keep = 10**9, engine.RANKBITS_MIN_POINTS
                tree = engine.RangeCounter(x)
                engine.RANKBITS_MIN_POINTS = keep
                assert np.array_equal(bits.count(eps, strict=True), tree.count(eps, strict=True))
                res = T.interleave(
                    [
                        T.Candidate("rankbits", lambda b=bits, e=eps: b.count(e, strict=True)),
                        T.Candidate("cKDTree", lambda t=tree, e=eps: t.count(e, strict=True)),
                    ],
                    repeats,
                    log=lambda _: None,
                )
                row = {"n": n, "d": d}
                for name in ("rankbits", "cKDTree"):
                    for what in ("wall", "cpu"):
                        row[f"{name}_{what}"] = res[name].stat(what, "min")
                rows.append(row)
                print(
                    f"| {n} | {d} | {row['rankbits_wall']:.4f} / {row['rankbits_cpu']:.4f} | "
                    f"{row['cKDTree_wall']:.4f} / {row['cKDTree_cpu']:.4f} | "
                    f"{row['rankbits_wall'] / row['cKDTree_wall']:.2f}x / "
                    f"{row['rankbits_cpu'] / row['cKDTree_cpu']:.2f}x |",
                    flush=True,
                )
    finally:
        engine.BACKEND = "auto"
    return rows


_MEM_SNIPPET = """
import sys, warnings
import numpy as np
sys.path.insert(0, {src!r})
import infometer as im
def rss(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) / 1024
n, d = {n}, {d}
rng = np.random.default_rng(0)
x = rng.standard_normal((n, d)); y = 0.75 * x + 0.66 * rng.standard_normal((n, d))
from infometer.estimators.knn import _engine as engine
engine.BACKEND = "compiled"  # the warm-up loads numba and the kernels (not counted below)
im.mutual_info(x[:1000], y[:1000], method="ksg1")
engine.BACKEND = "auto"
open("/proc/self/clear_refs", "w").write("5")  # reset the peak (VmHWM) to the current RSS
base = rss("VmRSS")
warnings.simplefilter("ignore")
im.mutual_info(x, y, method="ksg1")
print(rss("VmHWM") - base, x.nbytes * 2 / 2**20)
"""


def memory(n: int, d: int) -> tuple[float, float]:
    src = str(Path(__file__).resolve().parents[2] / "src")
    r = subprocess.run(
        [sys.executable, "-c", _MEM_SNIPPET.format(src=src, n=n, d=d)],
        capture_output=True,
        text=True,
        check=True,
    )
    extra, data = map(float, r.stdout.split())
    return extra, data


# ------------------------------------------------------------------ main
def parse_cell(cell: str) -> tuple[int, int]:
    d, n = cell.strip().split("x", 1)
    return int(d), int(float(n))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes only (smoke test)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--profile", action="store_true", help="stage times of infometer")
    ap.add_argument("--memory", action="store_true", help="peak RSS per N (fresh processes)")
    ap.add_argument(
        "--counts", action="store_true", help="marginal counts: quantile grid vs kd-tree"
    )
    ap.add_argument(
        "--rankbits",
        action="store_true",
        help="scipy-backend counts: rank-interval bitsets vs cKDTree",
    )
    ap.add_argument("--out", help="write results as JSON here")
    ap.add_argument(
        "--cells", help="comma-separated DxN cells, e.g. 1x1e6,3x1e5 ('none': no peer table)"
    )
    ap.add_argument(
        "--slow", type=float, default=600.0, help="one run only for a contender slower than this"
    )
    ap.add_argument("--cold", action="store_true", help="also time cold starts per cell")
    a = ap.parse_args(argv)

    grid = [(1, 10**4), (1, 10**5), (1, 10**6), (3, 10**4), (3, 10**5)]
    if a.quick:
        grid = [(1, 2000), (3, 2000)]
    if a.cells:
        grid = [] if a.cells == "none" else [parse_cell(c) for c in a.cells.split(",")]
    # npeet-plus and infomeasure take ~30 s each at 1-D N=1e6 (brief §3.1): not in the grid
    slow_skip = {("npeet-plus", 1, 10**6), ("infomeasure", 1, 10**6)}

    from infometer.estimators.knn import _engine as engine

    t = time.perf_counter()
    engine.BACKEND = "compiled"  # load (or compile, on a new install) the kernels here ...
    ours(*make(500, 1))
    ours(*make(500, 3))
    engine.BACKEND = "auto"  # ... so the timed runs use them at every size
    compile_s = time.perf_counter() - t
    run = T.Run(["infometer", "scipy"])
    P.record_versions(
        run,
        {
            "sklearn": "scikit-learn",
            "ennemi": "ennemi",
            "npeet_plus": "npeet-plus",
            "infomeasure": "infomeasure",
        },
    )
    run.meta["first_call_s (numba compile or cache load)"] = round(compile_s, 2)
    run.meta["repeats"] = a.repeats
    tables = []
    data, hosts = P.Data(), {}
    warmed: set[tuple[str, int]] = set()
    src = str(Path(__file__).resolve().parents[2] / "src")
    try:
        for d, n in grid:
            x, y = make(n, d)
            tag = f"{d}x{n}"
            data.add(f"x{tag}", x)
            data.add(f"y{tag}", y)
            data.add(f"wx{d}", make(500, d)[0])
            data.add(f"wy{d}", make(500, d)[1])
            cands = [
                T.Candidate("infometer ksg1", lambda x=x, y=y: ours(x, y), warmup=False),
                T.Candidate(FLOOR, lambda x=x, y=y: F.ksg1_mi(x, y), warmup=False),
            ]
            if ("infometer ksg1", d) not in warmed:
                ours(*make(500, d))
                F.ksg1_mi(*make(500, d))
                warmed.add(("infometer ksg1", d))
            peers = []
            for name, (module, job, dims) in PEERS.items():
                if d not in dims or (name, d, n) in slow_skip:
                    continue
                fn = P.job_fn(module, data, hosts, job, f"x{tag}", f"y{tag}")
                if fn is None:
                    continue
                peers.append((name, module, job))
                cands.append(T.Candidate(name, fn, warmup=False))
                if (name, d) not in warmed:  # imports, thread pools, numba for this dimension
                    # (a warm-up at N = 1e6 would be a full run)
                    T.measure(P.job_fn(module, data, hosts, job, f"wx{d}", f"wy{d}"))
                    warmed.add((name, d))
            print(f"cell {d}x{d}, N = {n:.0e}", file=sys.stderr, flush=True)
            res = T.interleave(cands, a.repeats, slow_s=a.slow)
            title = f"{d}x{d}, N = {n:.0e} (true MI {truth(d):.4f})"
            tables.append(f"**{title}**\n\n" + run.add(title, res, ref="infometer ksg1"))
            print(tables[-1] + "\n", flush=True)
            if a.cold:
                cold = [
                    T.Candidate(
                        "infometer ksg1, fresh process",
                        lambda tag=tag: P.cold(
                            sys.executable, data, "im_mi", f"x{tag}", f"y{tag}", pythonpath=src
                        ),
                        warmup=False,
                    )
                ]
                for name, module, job in peers:
                    py = P.python_for(module)
                    cold.append(
                        T.Candidate(
                            f"{name}, fresh process",
                            lambda py=py, job=job, tag=tag: P.cold(
                                py, data, job, f"x{tag}", f"y{tag}"
                            ),
                            warmup=False,
                        )
                    )
                res = T.interleave(cold, a.repeats, slow_s=a.slow)
                title = f"cold start, {d}x{d}, N = {n:.0e}"
                tables.append(
                    f"**{title}** (fresh process: interpreter, imports, numba cache, np.load, "
                    "one call)\n\n" + run.add(title, res, ref="infometer ksg1, fresh process")
                )
                print(tables[-1] + "\n", flush=True)
    finally:
        for h in hosts.values():
            h.close()
        data.close()
    run.finish()
    print(run.header() + "\n\n" + "\n\n".join(tables))
    result = {"meta": run.meta, "sections": run.sections}
    if a.profile:
        result["profile"] = {}
        for d, n in [(1, 2000), (3, 2000)] if a.quick else [(1, 10**6), (3, 10**5)]:
            profile(min(n, 5000), d)  # warm
            stages = profile(n, d)
            result["profile"][f"{d}x{d} N={n}"] = stages
            print(f"\nprofile {d}x{d} N={n}: total {sum(stages.values()):.3f} s")
            for k, v in stages.items():
                print(f"  {k:40s} {v:7.3f} s")
    if a.counts:
        n_counts = 2000 if a.quick else 10**5
        print(f"\nmarginal counts, N={n_counts}, median of {a.repeats} (build included)")
        print("| columns | data | grid s | kd-tree s | tree / grid |\n|---|---|---|---|---|")
        result["counts"] = counts(n_counts, a.repeats)
    if a.rankbits:
        print(f"\nscipy-backend counts (KSG-1 radii, strict), min of {a.repeats}, wall / CPU s")
        print("| N | columns | rankbits | cKDTree | ratio wall / CPU |\n|---|---|---|---|---|")
        result["rankbits"] = rankbits(a.repeats)
    if a.memory:
        result["memory"] = {}
        sizes = [10**4, 10**5] if a.quick else [10**5, 10**6]
        for d in (1, 3):
            for n in sizes:
                extra, data = memory(n, d)
                result["memory"][f"{d}x{d} N={n}"] = {"peak_extra_MiB": extra, "data_MiB": data}
                print(
                    f"memory {d}x{d} N={n:.0e}: peak RSS growth {extra:.1f} MiB "
                    f"(input data {data:.1f} MiB)"
                )
    if a.out:
        os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
        with open(a.out, "w") as fh:
            json.dump(result, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
