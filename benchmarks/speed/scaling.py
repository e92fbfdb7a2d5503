"""Issue 42 §3: each family's cost as a function of its size, as fitted exponents.

Usage (the peers live in their own venvs; each run times infometer and the peers its
interpreter can import, in the same process, steady state, one thread)::

    PYTHONPATH=src .venv/bin/python benchmarks/speed/scaling.py [--only ...] [--out F.json]
    PYTHONPATH=src /work/peers/hoi/bin/python benchmarks/speed/scaling.py --only multiplets
    PYTHONPATH=src /work/peers/idtxl/bin/python benchmarks/speed/scaling.py --only broja
    PYTHONPATH=src /work/peers/antropy/bin/python benchmarks/speed/scaling.py --only sample
    PYTHONPATH=src /work/peers/tigramite/bin/python benchmarks/speed/scaling.py --only pcmci

For each axis, CPU seconds (min of ``--repeats`` after a warm-up) at each size, and the
exponent b of ``cpu ≈ a · size^b`` fitted by least squares on the logs (over the sizes
where the time is above 5 ms, where fixed costs no longer dominate).  A contender whose run
exceeds ``--slow`` seconds is not run at larger sizes.
"""

from __future__ import annotations

import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[_v] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import _timing as T  # noqa: E402

FAMILIES = ("multiplets", "knn", "te", "discrete", "broja", "sample", "pcmci", "mte")


def cpu_min(fn: Callable[[], object], repeats: int) -> float:
    fn()  # warm-up: imports, compilation, caches
    best = float("inf")
    for _ in range(repeats):
        c0 = time.process_time()
        fn()
        best = min(best, time.process_time() - c0)
    return best


def exponent(sizes: list[float], cpus: list[float]) -> float | None:
    pts = [(s, c) for s, c in zip(sizes, cpus, strict=True) if c == c and c > 5e-3]
    if len(pts) < 2:
        return None
    x, y = np.log([p[0] for p in pts]), np.log([p[1] for p in pts])
    return float(np.polyfit(x, y, 1)[0])


def gauss(n: int, d: int, seed: int = 0) -> np.ndarray:
    x = np.random.default_rng(seed).normal(size=(n, d))
    x[:, 1] += x[:, 0]
    return x


def network_axes(family: str, contenders: dict, system, nodes: list[int], fixed: int) -> list:
    """The two axes of a network method: nodes (N = 2000, max_lag 2) and max_lag
    (``fixed`` nodes)."""
    return [
        (
            family,
            "nodes (N = 2000, max_lag 2)",
            nodes,
            {n: (lambda k, f=f: f(system(k), 2)) for n, f in contenders.items()},
        ),
        (
            family,
            f"max_lag ({fixed} nodes, N = 2000)",
            [1, 2, 4, 8],
            {n: (lambda k, f=f: f(system(fixed), k)) for n, f in contenders.items()},
        ),
    ]


def axes(only: set[str]) -> list[tuple]:
    """(family, axis, sizes, {contender: fn(size)}) for the families and peers available."""
    import infometer as im

    out: list[tuple] = []

    def have(mod: str) -> bool:
        try:
            __import__(mod)
            return True
        except Exception:  # noqa: BLE001 - a missing peer is left out
            return False

    if "multiplets" in only:
        ours = {"infometer": None}
        peers = {}
        if have("hoi"):
            from hoi.metrics import Oinfo

            def hoi_sweep(x, lo, hi):
                Oinfo(x, verbose=False).fit(minsize=lo, maxsize=hi, method="gc")

            peers["hoi"] = hoi_sweep

        def sweep(x, lo, hi):
            im.multiplets(x, sizes=(lo, hi), progress=False)

        ours["infometer"] = sweep
        c = {**ours, **peers}
        out.append(
            (
                "multiplets (O-information, copula)",
                "variables d (triplets, N = 10^4)",
                [10, 20, 40, 80],
                {k: (lambda d, f=f: f(gauss(10_000, d), 3, 3)) for k, f in c.items()},
            )
        )
        out.append(
            (
                "multiplets (O-information, copula)",
                "multiplet size s (all of size s of 16, N = 10^4)",
                [3, 4, 5, 6],
                {k: (lambda s, f=f: f(gauss(10_000, 16), s, s)) for k, f in c.items()},
            )
        )
        out.append(
            (
                "multiplets (O-information, copula)",
                "rows N (triplets of 20)",
                [10**3, 10**4, 10**5],
                {k: (lambda n, f=f: f(gauss(n, 20), 3, 3)) for k, f in c.items()},
            )
        )
    if "knn" in only:
        c = {"infometer ksg1": lambda x: im.mutual_info(x[:, :1], x[:, 1:2], method="ksg1").value}
        if have("sklearn"):
            from sklearn.feature_selection import mutual_info_regression

            c["scikit-learn"] = lambda x: mutual_info_regression(
                x[:, :1], x[:, 1], n_neighbors=3, random_state=0
            )
        out.append(
            (
                "kNN MI (KSG-1, 1x1)",
                "rows N",
                [10**4, 3 * 10**4, 10**5, 3 * 10**5],
                {k: (lambda n, f=f: f(gauss(n, 2))) for k, f in c.items()},
            )
        )
    if "te" in only:
        from infometer.measures.dynamics import simulate

        def var(n):
            a = np.zeros((1, 2, 2))
            a[0] = [[0.5, 0.0], [0.4, 0.5]]
            return simulate.var(a, n, seed=1)

        out.append(
            (
                "transfer entropy (KSG-1, k = l = 1)",
                "rows N",
                [10**3, 10**4, 10**5],
                {
                    "infometer ksg1": lambda n: (
                        im.transfer_entropy((v := var(n))[:, 0], v[:, 1], method="ksg1").value
                    )
                },
            )
        )
        out.append(
            (
                "transfer entropy (Gaussian)",
                "history length k = l (N = 10^5)",
                [1, 2, 4, 8],
                {
                    "infometer gaussian": lambda k: (
                        im.transfer_entropy(
                            (v := var(10**5))[:, 0], v[:, 1], method="gaussian", k=k, l=k
                        ).value
                    )
                },
            )
        )
    if "discrete" in only:
        rng = np.random.default_rng(0)
        out.append(
            (
                "discrete plug-in MI",
                "rows N (100 x 100 symbols)",
                [10**5, 10**6, 10**7],
                {
                    "infometer plugin": lambda n: (
                        im.mutual_info(
                            rng.integers(0, 100, n), rng.integers(0, 100, n), method="plugin"
                        ).value
                    )
                },
            )
        )
        out.append(
            (
                "discrete plug-in MI",
                "alphabet K (N = 10^6)",
                [10, 100, 1000, 10_000],
                {
                    "infometer plugin": lambda k: (
                        im.mutual_info(
                            rng.integers(0, k, 10**6), rng.integers(0, k, 10**6), method="plugin"
                        ).value
                    )
                },
            )
        )
    if "broja" in only:
        from infometer.measures import exact

        c = {"infometer broja": lambda p: exact.pid(p, measure="broja")}
        if have("idtxl"):
            from idtxl import synergy_tartu

            def tartu(p):
                pdf = {
                    (t, a, b): float(p[a, b, t]) for a, b, t in np.ndindex(p.shape) if p[a, b, t]
                }
                synergy_tartu.pid(pdf_dirty=pdf, cone_solver="ECOS", output=0)

            c["IDTxl TartuPID (ECOS)"] = tartu

        def pmf(k):
            return np.random.default_rng(k).dirichlet(np.ones(k**3)).reshape(k, k, k)

        out.append(
            (
                "BROJA PID of a pmf",
                "alphabet k (k x k x k)",
                [2, 4, 6, 8, 12],
                {n: (lambda k, f=f: f(pmf(k))) for n, f in c.items()},
            )
        )
    if "sample" in only:

        def signal(n):
            rng = np.random.default_rng(0)
            return 0.1 * rng.normal(size=n).cumsum() + rng.normal(size=n)

        c = {"infometer": lambda x: im.complexity(x, "sample").value}
        if have("antropy"):
            import antropy

            c["antropy"] = lambda x: antropy.sample_entropy(x)
        out.append(
            (
                "sample entropy (m = 2, r = 0.2 sd)",
                "rows N",
                [10**3, 10**4, 10**5],
                {n: (lambda k, f=f: f(signal(k))) for n, f in c.items()},
            )
        )
    if "pcmci" in only or "mte" in only:
        from infometer.measures.dynamics import simulate

        def system(nodes, n=2000):
            a, _ = simulate.random_var(nodes, nodes + 2, lags=(1, 2), seed=3)
            return simulate.var(a, n, seed=4)

        if "pcmci" in only:
            c = {
                "infometer pcmci": lambda x, lag: im.infer_network(
                    x, method="pcmci", max_lag=lag, cmi="gaussian", progress=False
                )
            }
            if have("tigramite"):
                from tigramite import data_processing as pp
                from tigramite.independence_tests.parcorr import ParCorr
                from tigramite.pcmci import PCMCI

                def tig(x, lag):
                    pc = PCMCI(dataframe=pp.DataFrame(x), cond_ind_test=ParCorr(), verbosity=0)
                    pc.run_pcmci(tau_min=1, tau_max=lag, pc_alpha=0.2)

                c["Tigramite PCMCI"] = tig
            out += network_axes("PCMCI (Gaussian / ParCorr)", c, system, [4, 8, 16], 8)
        if "mte" in only:
            mte = {
                "infometer mte": lambda x, lag: im.infer_network(
                    x, method="mte", max_lag=lag, cmi="gaussian", progress=False
                )
            }
            out += network_axes("multivariate TE network (Gaussian)", mte, system, [3, 5, 8, 12], 5)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default=",".join(FAMILIES))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--slow", type=float, default=20.0, help="stop growing a contender past this")
    ap.add_argument("--out", help="write the measurements as JSON here")
    a = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    try:
        import numba

        numba.set_num_threads(1)
    except ImportError:
        pass
    run = T.Run(["infometer", "hoi", "idtxl-uv", "antropy", "tigramite", "scikit-learn"])
    rows = []
    for family, axis, sizes, contenders in axes(set(a.only.split(","))):
        for name, fn in contenders.items():
            cpus: list[float] = []
            for s in sizes:
                if cpus and cpus[-1] > a.slow:
                    cpus.append(float("nan"))
                    continue
                try:
                    cpus.append(cpu_min(lambda fn=fn, s=s: fn(s), a.repeats))
                except Exception as e:  # noqa: BLE001 - a peer that fails is reported
                    print(f"{family} / {name} at {s}: {type(e).__name__}: {e}", file=sys.stderr)
                    cpus.append(float("nan"))
                print(f"{family} | {axis} | {name} | {s} | {cpus[-1]:.4f}", file=sys.stderr)
            rows.append(
                {
                    "family": family,
                    "axis": axis,
                    "contender": name,
                    "sizes": sizes,
                    "cpu": cpus,
                    "exponent": exponent(sizes, cpus),
                    "load": T.load1(),
                }
            )
    run.finish()
    run.meta["scaling"] = rows
    print("| family | axis | contender | sizes | min CPU s at each size | fitted exponent |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        cells = ", ".join("–" if c != c else f"{c:.3g}" for c in r["cpu"])
        b = "–" if r["exponent"] is None else f"{r['exponent']:.2f}"
        sizes = ", ".join(f"{s:g}" for s in r["sizes"])
        print(f"| {r['family']} | {r['axis']} | {r['contender']} | {sizes} | {cells} | {b} |")
    print("\n" + run.header())
    if a.out:
        with open(a.out, "w") as fh:
            json.dump({"meta": run.meta}, fh, indent=1, default=str)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
