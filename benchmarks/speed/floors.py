"""Issue 42: infometer against the floor of each task, steady state, one thread each.

Usage::

    PYTHONPATH=src .venv/bin/python benchmarks/speed/floors.py [--repeats 5] [--only ...]
        [--out F.json]

Every contender runs in this one process after an untimed warm-up (steady state: imports,
numba compilation and caches are not timed), interleaved through ``benchmarks/_timing.py``;
BLAS, OpenMP and numba are pinned to one thread before anything is imported.  The answers
are compared first (the largest difference is printed with each table).  Tasks:

* ``sweep``: O-information (and TC, DTC, S-information) of every multiplet of sizes 3-5 of
  20 Gaussian variables, N = 10^4 (21,489 multiplets), ``im.multiplets`` (the public call,
  ranked DataFrame included) against

  - the **floor**: one covariance and one batched ``np.linalg.slogdet`` per multiplet
    (the multiplet's own block only: no quantity needs less);
  - the plain numpy program of the quantity: one covariance, a batched ``slogdet`` of
    every block each multiplet needs (the full block, the s leave-one-out blocks, the
    diagonal), summed; its values are the reference.

  ``method="gaussian"`` and ``"gaussian_copula"`` (the floor then adds an argsort per
  column and ``ndtri``).
* ``single``: one multiplet of 3, 5, 10 variables at N = 10^4, Gaussian copula,
  ``im.o_information`` against argsort per column + ``ndtri`` + covariance + ``slogdet``.
* ``dispersion``: ``im.complexity(x, "dispersion")`` (order 2, 6 classes) and its kernel
  at N = 10^3 ... 10^6 against ``ndtr`` + ``np.bincount``.
* ``sample``: ``im.complexity(x, "sample")`` and its kernel at N = 300 ... 10^4 against a
  plain sorted-scan numba kernel (written here; compiled in the warm-up) with the
  tolerance ``0.2 * np.std(x)`` it needs computed in the timed call, as the kernel does.
* ``networks``: ``im.infer_network`` (mTE and PCMCI on the 5-node VAR, N = 2000, max_lag
  3, and the 10-node VAR, N = 10^4, max_lag 5; PCMCI+ on the three systems of
  ``benchmarks/peers/networks.py``; Gaussian CMI / ParCorr) against
  ``_floors.network_floor``: the same list of conditional-independence tests, recorded from
  one run of the search (``benchmarks/_netrecord.py``), replayed as a plain loop (per test
  one QR, explicit residuals, partial correlation, p-value; the same permutations), and,
  where the search permutes (mTE), the same replay with the projection identity for the
  surrogates (one product per permutation).  The replay's statistics and decisions are
  compared with the library's first.
* ``broja``: the BROJA PID of Dirichlet(1) pmfs (2x2x2 to 6x6x6) by ``im``'s exact
  ``pid(p, measure="broja")`` against ``_floors.broja_slsqp``: the textbook primal program
  (minimise I_q(T; S1, S2) with both source-target pairs fixed) by scipy's SLSQP.  A
  convex solve has no closed program; this is the simplest correct one, not a lower bound
  (as the plain cKDTree KSG is for kNN).
"""

from __future__ import annotations

import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[_v] = "1"

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import warnings  # noqa: E402
from itertools import combinations  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import _timing as T  # noqa: E402

TASKS = ("sweep", "single", "dispersion", "sample", "networks", "broja")
LOG2PIE = math.log(2 * math.pi) + 1.0


def sweep_data(n: int = 10_000, d: int = 20, seed: int = 0) -> np.ndarray:
    """Gaussian columns with a redundant pair (0, 1) and, from 5 columns, a synergistic
    triplet (2, 3, 4) (hoi's benchmark data in benchmarks/peers/multivariate.py)."""
    x = np.random.default_rng(seed).normal(size=(n, d))
    x[:, 1] += x[:, 0]
    if d >= 5:
        x[:, 2] = x[:, 3] + x[:, 4] + 0.5 * x[:, 2]
    return x


def normal_scores(x: np.ndarray) -> np.ndarray:
    """Argsort per column, ranks / (n + 1), ``ndtri`` (no ties in these data)."""
    from scipy.special import ndtri

    n = x.shape[0]
    r = np.empty_like(x)
    for j in range(x.shape[1]):
        r[np.argsort(x[:, j]), j] = np.arange(1, n + 1)
    return ndtri(r / (n + 1))


def floor_logdets(x: np.ndarray, sizes=(3, 4, 5), copula: bool = False) -> int:
    """The floor: one covariance, one log-det per multiplet."""
    z = normal_scores(x) if copula else x
    c = np.cov(z, rowvar=False)
    total = 0
    for s in sizes:
        idx = np.array(list(combinations(range(x.shape[1]), s)))
        total += np.linalg.slogdet(c[idx[:, :, None], idx[:, None, :]])[1].size
    return total


def _h(c: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Maximum-likelihood Gaussian entropies of the blocks ``idx`` (m, k) of ``c``."""
    k = idx.shape[1]
    return 0.5 * (np.linalg.slogdet(c[idx[:, :, None], idx[:, None, :]])[1] + k * LOG2PIE)


def plain_program(x: np.ndarray, measure: str, sizes=(3, 4, 5), copula: bool = False) -> dict:
    """The simplest correct program: every needed block of every multiplet, batched."""
    z = normal_scores(x) if copula else x
    c = np.cov(z, rowvar=False, bias=True)
    out = {}
    for s in sizes:
        idx = np.array(list(combinations(range(x.shape[1]), s)))
        full = _h(c, idx)
        singles = 0.5 * (np.log(np.diag(c))[idx] + LOG2PIE).sum(1)
        loo = sum(_h(c, np.delete(idx, i, axis=1)) for i in range(s))
        tc, dtc = singles - full, loo - (s - 1) * full
        v = {
            "o_information": tc - dtc,
            "total_correlation": tc,
            "dual_total_correlation": dtc,
            "s_information": tc + dtc,
        }[measure]
        out.update(zip(map(tuple, idx.tolist()), v.tolist(), strict=True))
    return out


def ours_sweep(x: np.ndarray, measure: str, method: str, bias_correct: bool = True):
    import infometer as im

    return im.multiplets(
        x, measure=measure, sizes=(3, 5), method=method, bias_correct=bias_correct, progress=False
    )


def sweep_diff(x: np.ndarray, measure: str, copula: bool) -> float:
    """Largest |ours - plain program| (nats), both without the Wishart correction."""
    r = ours_sweep(x, measure, "gaussian_copula" if copula else "gaussian", bias_correct=False)
    ref = plain_program(x, measure, copula=copula)
    pairs = zip(r.frame["multiplet"], r.frame["value"], strict=True)
    got = {tuple(int(c[1:]) for c in m): v for m, v in pairs}
    return max(abs(got[m] - v) for m, v in ref.items())


def single_floor(x: np.ndarray) -> float:
    z = normal_scores(x)
    c = np.cov(z, rowvar=False, bias=True)
    d = x.shape[1]
    idx = np.arange(d)[None, :]
    full = _h(c, idx)[0]
    loo = _h(c, np.array([[j for j in range(d) if j != i] for i in range(d)])).sum()
    singles = 0.5 * (np.log(np.diag(c)) + LOG2PIE).sum()
    return float((d - 2) * full + singles - loo)


def signal(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return 0.1 * rng.normal(size=n).cumsum() + rng.normal(size=n)


def dispersion_reference(x: np.ndarray, c: int = 6) -> float:
    from scipy.special import ndtr

    y = ndtr((x - x.mean()) / x.std())
    z = np.clip(np.round(c * y + 0.5), 1, c).astype(np.int64) - 1
    counts = np.bincount(z[:-1] * c + z[1:], minlength=c * c)
    p = counts[counts > 0] / counts.sum()
    return float(-(p * np.log(p)).sum())


def _plain_scan():
    import numba

    @numba.njit(cache=False)
    def scan(x, m, tol):  # pragma: no cover - compiled
        rows = x.size - m
        order = np.argsort(x[:rows])
        a = b = 0
        for ii in range(rows):
            i = order[ii]
            for jj in range(ii + 1, rows):
                j = order[jj]
                if x[j] - x[i] > tol:
                    break
                ok = True
                for q in range(1, m):
                    if abs(x[i + q] - x[j + q]) > tol:
                        ok = False
                        break
                if ok:
                    b += 1
                    if abs(x[i + m] - x[j + m]) <= tol:
                        a += 1
        return -math.log(a / b)

    return scan


def run_tasks(run: T.Run, only: set[str], repeats: int) -> list[dict]:
    import infometer as im
    from infometer.measures.complexity import _measures as CM

    C = T.Candidate
    summary: list[dict] = []

    def record(title: str, cands, ref: str, floor: str, diff: float | None = None) -> None:
        print(f"\n### {title}\n", flush=True)
        res = T.interleave(cands, repeats)
        print(run.add(title, res, ref), flush=True)
        b = res[floor]
        row = {"task": title, "diff": diff}
        for name, t in res.items():
            if name == floor or not t.n:
                continue
            row[name] = (
                t.stat("cpu", "min") / b.stat("cpu", "min"),
                t.stat("wall", "min") / b.stat("wall", "min"),
            )
        summary.append(row)
        if diff is not None:
            print(f"\nlargest |difference| from the reference program: {diff:.1e}", flush=True)

    if "sweep" in only:
        x = sweep_data()
        for copula in (False, True):
            method = "gaussian_copula" if copula else "gaussian"
            for measure in (
                "o_information",
                "total_correlation",
                "dual_total_correlation",
                "s_information",
            ):
                if copula and measure != "o_information":
                    continue
                diff = sweep_diff(x, measure, copula)
                record(
                    f"{measure} sweep, sizes 3-5 of 20 variables, N = 10^4, {method}",
                    [
                        C(
                            "infometer",
                            lambda m=measure, me=method: len(ours_sweep(x, m, me).frame),
                        ),
                        C(
                            "floor: one slogdet per multiplet",
                            lambda c=copula: floor_logdets(x, copula=c),
                        ),
                        C(
                            "plain numpy program",
                            lambda m=measure, c=copula: len(plain_program(x, m, copula=c)),
                        ),
                    ],
                    "infometer",
                    "floor: one slogdet per multiplet",
                    diff,
                )
    if "single" in only:
        for d in (3, 5, 10):
            x = sweep_data(10_000, d, seed=d)
            ours = im.o_information(x, method="gaussian_copula", bias_correct=False).value
            record(
                f"one multiplet of {d}, N = 10^4, Gaussian copula",
                [
                    C("infometer", lambda x=x: im.o_information(x, method="gaussian_copula").value),
                    C("floor: argsort + ndtri + cov + slogdet", lambda x=x: single_floor(x)),
                ],
                "infometer",
                "floor: argsort + ndtri + cov + slogdet",
                abs(ours - single_floor(x)),
            )
    if "dispersion" in only:
        for n in (10**3, 10**4, 10**5, 10**6):
            x = signal(n)
            record(
                f"dispersion entropy, order 2, 6 classes, N = {n:.0e}",
                [
                    C("infometer", lambda x=x: im.complexity(x, "dispersion").value),
                    C("infometer kernel", lambda x=x: CM.dispersion(x)),
                    C("ndtr + bincount", lambda x=x: dispersion_reference(x)),
                ],
                "infometer",
                "ndtr + bincount",
                abs(CM.dispersion(x) - dispersion_reference(x)),
            )
    if "sample" in only:
        scan = _plain_scan()
        for n in (300, 1000, 3000, 10_000):
            x = signal(n, 1)
            tol = 0.2 * float(np.std(x))
            record(
                f"sample entropy, m = 2, r = 0.2 sd, N = {n}",
                [
                    C("infometer", lambda x=x: im.complexity(x, "sample").value),
                    C("infometer kernel", lambda x=x: CM.sample(x)),
                    # the task is r = 0.2 sd: the plain program computes the sd too
                    C("plain sorted scan (numba)", lambda x=x: scan(x, 2, 0.2 * float(np.std(x)))),
                ],
                "infometer",
                "plain sorted scan (numba)",
                abs(CM.sample(x) - scan(x, 2, tol)),
            )
    if "networks" in only:
        summary += network_tasks(run, repeats)
    if "broja" in only:
        from _floors import broja_slsqp

        from infometer.measures.multivariate import _exact as exact

        def ours(ps):
            out = []
            for p in ps:
                r = exact.pid(p, measure="broja")
                d = {lab: e.value for lab, e in zip(r.labels, r.atoms, strict=True)}
                out.append([d["{0}{1}"], d["{0}"], d["{1}"], d["{01}"]])
            return out

        rng = np.random.default_rng(5)
        for shape, count in (((2, 2, 2), 5), ((3, 3, 3), 5), ((4, 4, 4), 2), ((6, 6, 6), 1)):
            ps = [rng.dirichlet(np.ones(int(np.prod(shape)))).reshape(shape) for _ in range(count)]
            diff = float(np.max(np.abs(np.subtract(ours(ps), [broja_slsqp(p) for p in ps]))))
            record(
                f"BROJA PID of {count} pmf(s) {'x'.join(map(str, shape))} (Dirichlet(1))",
                [
                    C("infometer", lambda ps=ps: len(ours(ps))),
                    C("SLSQP on the primal", lambda ps=ps: len([broja_slsqp(p) for p in ps])),
                ],
                "infometer",
                "SLSQP on the primal",
                diff,
            )
    return summary


def network_systems() -> list[tuple[str, np.ndarray, dict, tuple[float, ...]]]:
    """(title, data, infer_network keywords, the tests' levels) of the networks Summary row:
    the systems of ``benchmarks/peers/networks.py``."""
    from infometer.measures.dynamics import simulate

    spec = importlib.util.spec_from_file_location(
        "bench_networks", Path(__file__).resolve().parents[1] / "peers" / "networks.py"
    )
    nets = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(nets)
    a5, _ = simulate.random_var(5, 6, lags=(1, 2, 3), seed=11)
    x5 = simulate.var(a5, 2000, seed=12)
    a10, _ = simulate.random_var(10, 12, lags=(1, 2, 3), seed=3)
    x10 = simulate.var(a10, 10_000, seed=4)
    g = {"cmi": "gaussian"}
    out = [
        ("mTE, 5-node VAR, N = 2000, max_lag 3", x5, {"method": "mte", "max_lag": 3, **g}),
        ("mTE, 10-node VAR, N = 10^4, max_lag 5", x10, {"method": "mte", "max_lag": 5, **g}),
        ("PCMCI, 5-node VAR, N = 2000, max_lag 3", x5, {"method": "pcmci", "max_lag": 3, **g}),
        ("PCMCI, 10-node VAR, N = 10^4, max_lag 5", x10, {"method": "pcmci", "max_lag": 5, **g}),
    ]
    out = [(t, x, kw, (0.05, 0.2)) for t, x, kw in out]  # alpha, PCMCI's pc_alpha
    for title, x, _, tau in nets.pcmciplus_systems():
        kw = {"method": "pcmciplus", "max_lag": tau, "alpha": 0.01, **g}
        out.append((f"PCMCI+, {title}", x, kw, (0.01,)))
    return out


def network_tasks(run: T.Run, repeats: int) -> list[dict]:
    """Each search against the plain replay of its recorded tests."""
    import _netrecord as R
    from _floors import network_floor

    import infometer as im

    summary = []
    for title, x, kw, levels in network_systems():
        unrecorded = im.infer_network(x, progress=False, **kw)
        with R.recording() as rec:
            net = im.infer_network(x, progress=False, **kw)
        if net.edge_set() != unrecorded.edge_set():
            raise AssertionError(f"{title}: the recorded run found other edges")
        check = R.compare(rec, network_floor(rec.data, rec.engines, rec.pools, rec.steps), levels)
        if any(st.pool is not None for st in rec.steps):
            replay = network_floor(rec.data, rec.engines, rec.pools, rec.steps, True)
            check["projection identity"] = R.compare(rec, replay, levels)
        print(f"\n### {title}\n\ntests: {rec.summary()}; replay vs library: {check}", flush=True)
        plain, ident = "floor: plain replay of the tests", "floor: replay, projection identity"
        cands = [
            T.Candidate(
                "infometer",
                lambda x=x, kw=kw: len(im.infer_network(x, progress=False, **kw).edges),
            ),
            T.Candidate(
                plain, lambda r=rec: len(network_floor(r.data, r.engines, r.pools, r.steps))
            ),
        ]
        if any(st.pool is not None for st in rec.steps):  # permutation tests: the variant
            cands.append(
                T.Candidate(
                    ident,
                    lambda r=rec: len(network_floor(r.data, r.engines, r.pools, r.steps, True)),
                )
            )
        res = T.interleave(cands, repeats)
        print(run.add(title, res, "infometer"), flush=True)
        run.sections[-1].update(tests=rec.summary(), check=check)
        a = res["infometer"]
        row = {"task": title, "diff": check["max |d value|"]}
        for name in (plain, ident):
            if name in res:
                b = res[name]
                row[f"infometer / {name[7:]}"] = (
                    a.stat("cpu", "min") / b.stat("cpu", "min"),
                    a.stat("wall", "min") / b.stat("wall", "min"),
                )
        summary.append(row)
    return summary


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--only", default=",".join(TASKS), help="comma-separated tasks")
    ap.add_argument("--out", help="write the runs as JSON here")
    a = ap.parse_args(argv)
    only = set(a.only.split(","))
    if only - set(TASKS):
        ap.error(f"unknown tasks {sorted(only - set(TASKS))}; choose from {', '.join(TASKS)}")
    warnings.simplefilter("ignore")
    import numba

    numba.set_num_threads(1)
    run = T.Run(["infometer", "scipy", "numba"])
    summary = run_tasks(run, only, a.repeats)
    run.finish()
    run.meta["summary"] = summary
    print("\n### Ratios to the floor (min CPU, min wall)\n")
    print("| task | contender | CPU / floor | wall / floor | max diff |")
    print("|---|---|---|---|---|")
    for row in summary:
        for name, val in row.items():
            if name in ("task", "diff"):
                continue
            print(f"| {row['task']} | {name} | {val[0]:.2f} | {val[1]:.2f} | {row['diff']:.1e} |")
    print("\n" + run.header())
    if a.out:
        run.dump(a.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
