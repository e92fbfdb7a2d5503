"""Time the all-pairs MI matrix (``infometer.pairwise``) against its peers in one run.

Usage::

    PYTHONPATH=src .venv/bin/python benchmarks/peers/pairwise.py                # P = N = 1000
    PYTHONPATH=src .venv/bin/python benchmarks/peers/pairwise.py --quick        # small smoke run
    PYTHONPATH=src .venv/bin/python benchmarks/peers/pairwise.py --memory   # memory, P = 125..500

Data: P Gaussian variables, N samples, from a factor model with a known covariance: the
variables fall in groups of 10 that share one factor (loading 0.7, so rho = 0.49 and
MI = 0.1367 nats within a group, 0 between groups).  k = 3, nats, ``--threads`` threads
everywhere (1 by default: BLAS, OpenMP, numba, joblib and ennemi pinned, issue 42).

Contenders (every one on the same matrix, interleaved, each run in a fresh process so
that its peak memory is its own; inside it the contender first runs once untimed, on the
timed data itself for the subset contenders and on a 200 x 4 slice for the full matrix,
so imports, numba compilation and thread pools are warm: the timed call is steady state):

* ``infometer copula``: ``pairwise(X, method="copula")``, all P columns;
* ``infometer ksg``: ``pairwise(X, method="ksg")`` (KSG-1), all P columns;
* ``infometer ksg (subset)``: the same on the first ``--peer-p`` columns, the peers' data;
* ``scikit-learn``: a loop over columns j of ``mutual_info_regression(X[:, j+1:], X[:, j],
  n_neighbors=3)`` on the first ``--peer-p`` columns, on 2 joblib threads (a thread
  backend, so that its CPU time is counted; it clips negative estimates to 0);
* ``ennemi``: ``pairwise_mi(X, k=3, max_threads=threads)`` on the first ``--peer-p`` columns;
* ``floor``: the sum of the single-pair floors, a loop of the plain cKDTree KSG-1 of
  ``benchmarks/_floors.py`` over the pairs of the first ``--peer-p`` columns.

A peer that this Python cannot import runs under its own virtualenv's interpreter
(``benchmarks/_peer.py``: ``/work/peers/<venv>/bin/python``).

The peers would take many minutes on all P columns, so they run on a subset and their
time for the full matrix is **extrapolated** linearly in the number of pairs (each pair is
an independent estimate of the same cost); the table says which rows are extrapolated.
The ``--cold`` flag adds a cold-start line per subset contender (a fresh process running
the job once, no warm-up: interpreter, imports, numba cache), timed from outside.
The subset row of infometer gives the directly measured ratio on the same data.

Wall is the median of ``--repeats`` runs, CPU the minimum, and the ratios are ratios of
the minima (``benchmarks/_timing.py``'s rule); CPU time is the process CPU time of the
timed call (all threads); peak memory is the growth of the process's maximum resident set
during the call.  The load average is recorded with every run: this machine is shared, so
read the ratios.
"""

from __future__ import annotations

import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_v, "1")  # this process; the children get --threads

import argparse  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _timing.py
import _peer  # noqa: E402
import _timing as T  # noqa: E402
import numpy as np  # noqa: E402

GROUP = 10
LOADING = 0.7
FLOOR = "floor (loop of plain cKDTree KSG-1)"
SUBSET = ("infometer ksg (subset)", FLOOR, "scikit-learn", "ennemi")
TOOLS = ("infometer copula", "infometer ksg", *SUBSET)
#: the module each peer imports (its virtualenv is found by benchmarks/_peer.py)
PEER_MODULE = {"scikit-learn": "sklearn", "ennemi": "ennemi"}


def make(n: int, p: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    factors = rng.standard_normal((n, (p + GROUP - 1) // GROUP))
    x = LOADING * factors[:, np.arange(p) // GROUP]
    return x + np.sqrt(1 - LOADING**2) * rng.standard_normal((n, p))


def truth(p: int) -> np.ndarray:
    g = np.arange(p) // GROUP
    rho = np.where(g[:, None] == g[None, :], LOADING**2, 0.0)
    np.fill_diagonal(rho, np.nan)
    return -0.5 * np.log1p(-(rho**2))


# ------------------------------------------------------------------ the contenders
def run_infometer(x: np.ndarray, method: str, threads: int) -> np.ndarray:
    from infometer.workflows.allpairs import pairwise

    return pairwise(x, method=method, n_jobs=threads, progress=False).matrix.to_numpy()


def run_sklearn(x: np.ndarray, threads: int) -> np.ndarray:
    from joblib import parallel_backend
    from sklearn.feature_selection import mutual_info_regression

    p = x.shape[1]
    out = np.full((p, p), np.nan)
    # joblib threads: their CPU time stays in this process
    with parallel_backend("threading", n_jobs=threads):
        for j in range(p - 1):
            mi = mutual_info_regression(x[:, j + 1 :], x[:, j], n_neighbors=3, random_state=0)
            out[j, j + 1 :] = out[j + 1 :, j] = mi
    return out


def run_ennemi(x: np.ndarray, threads: int) -> np.ndarray:
    import ennemi

    return np.asarray(ennemi.pairwise_mi(x, k=3, max_threads=threads))


def run_floor(x: np.ndarray, threads: int) -> np.ndarray:
    import _floors  # one thread: a plain loop

    return _floors.pairwise_ksg1(x, 3)


def one(tool: str, n: int, p: int, peer_p: int, threads: int = 1, warm_up: bool = True) -> dict:
    """Run one contender once in this (fresh) process and report its numbers."""
    warnings.simplefilter("ignore")
    x = make(n, p)
    cols = p if tool in ("infometer copula", "infometer ksg") else peer_p
    x = np.ascontiguousarray(x[:, :cols])
    func = {
        "infometer copula": lambda a: run_infometer(a, "copula", threads),
        "infometer ksg": lambda a: run_infometer(a, "ksg", threads),
        "infometer ksg (subset)": lambda a: run_infometer(a, "ksg", threads),
        FLOOR: lambda a: run_floor(a, threads),
        "scikit-learn": lambda a: run_sklearn(a, threads),
        "ennemi": lambda a: run_ennemi(a, threads),
    }[tool]
    if warm_up:  # imports, numba compilation, thread pools, caches
        func(x if cols == peer_p else x[:200, :4])
    load = T.load1()
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    timed = T.measure(lambda: func(x))
    m, wall, cpu = timed.value, timed.wall, timed.cpu
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t = truth(cols)
    iu = np.triu_indices(cols, 1)
    err = m[iu] - t[iu]
    within = t[iu] > 0
    return {
        "tool": tool,
        "columns": cols,
        "pairs": int(iu[0].size),
        "wall": wall,
        "cpu": cpu,
        "peak_mb": (rss1 - rss0) / 1024,
        "load": load,
        "bias_dependent": float(np.mean(err[within])),
        "bias_independent": float(np.mean(err[~within])),
        "sd_independent": float(np.std(err[~within])),
        "matrix_head": m[:peer_p, :peer_p].tolist() if cols >= peer_p else None,
    }


def spawn(tool: str, n: int, p: int, peer_p: int, threads: int = 1, warm_up: bool = True) -> dict:
    python, env = sys.executable, {**os.environ}
    if tool in PEER_MODULE:  # under the peer's own virtualenv unless it imports here
        python = _peer.python_for(PEER_MODULE[tool]) or sys.executable
        if python != sys.executable:
            env.pop("PYTHONPATH", None)
    cmd = [python, __file__, "--one", tool, "--n", str(n), "--p", str(p)]
    cmd += ["--peer-p", str(peer_p), "--threads", str(threads)]
    cmd += [] if warm_up else ["--no-warm-up"]
    for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
        env[v] = str(threads)
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if res.returncode != 0:
        raise RuntimeError(f"{tool} failed:\n{res.stderr[-2000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def table(rows: list[dict], n: int, p: int, repeats: int) -> str:
    full_pairs = p * (p - 1) // 2
    by: dict[str, list[dict]] = {}
    for r in rows:
        by.setdefault(r["tool"], []).append(r)
    med = {
        t: {k: statistics.median(r[k] for r in rs) for k in ("wall", "cpu", "peak_mb")}
        for t, rs in by.items()
    }
    low = {t: {k: min(r[k] for r in rs) for k in ("wall", "cpu")} for t, rs in by.items()}
    # ratios (of the minima) are to infometer's KSG on the peers' subset; without that run
    # there are none
    sub = "infometer ksg (subset)"
    ref = by[sub][0]["pairs"] if sub in by else None
    base = low.get(sub)
    lines = [
        "| tool | columns run | median wall (s) | wall spread (s) | min CPU (s) | "
        f"wall for all {p} columns (s) | "
        "wall / infometer ksg (same subset, minima) | CPU / infometer ksg | "
        "peak memory (MiB) | "
        "bias, dependent pairs | bias ± sd, independent pairs |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for t in TOOLS:
        if t not in by:
            continue
        r0, m = by[t][0], med[t]
        scale = full_pairs / r0["pairs"]
        full = m["wall"] * scale
        extra = "" if r0["pairs"] == full_pairs else " (extrapolated)"
        lo = low[t]
        ratio = f"{lo['wall'] / base['wall']:.1f}x" if r0["pairs"] == ref else "–"
        cratio = f"{lo['cpu'] / base['cpu']:.1f}x" if r0["pairs"] == ref else "–"
        walls = [r["wall"] for r in by[t]]
        spread = f"{min(walls):.2f}–{max(walls):.2f}"
        bi = statistics.median(r["bias_independent"] for r in by[t])
        sd = statistics.median(r["sd_independent"] for r in by[t])
        bd = statistics.median(r["bias_dependent"] for r in by[t])
        lines.append(
            f"| {t} | {r0['columns']} | {m['wall']:.2f} | {spread} | {lo['cpu']:.2f} | "
            f"{full:.1f}{extra} | "
            f"{ratio} | {cratio} | {m['peak_mb']:.0f} | {bd:+.4f} | {bi:+.4f} ± {sd:.4f} |"
        )
    loads = [r["load"] for r in rows]
    head = (
        f"N = {n}, P = {p} ({full_pairs} pairs); {repeats} interleaved runs, each in a fresh "
        "process after an untimed warm-up there (wall: median; CPU and ratios: minima); "
        f"1-min load average at the runs {min(loads):.1f}–{max(loads):.1f} "
        f"(median {statistics.median(loads):.1f})."
    )
    return head + "\n\n" + "\n".join(lines)


def memory(n: int, ps: list[int]) -> str:
    lines = ["| P | pairs | infometer ksg peak (MiB) | copula peak (MiB) | P²·N·8 bytes (MiB) |"]
    lines.append("|---|---|---|---|---|")
    for p in ps:
        k = spawn("infometer ksg", n, p, min(p, 10))
        c = spawn("infometer copula", n, p, min(p, 10))
        lines.append(
            f"| {p} | {p * (p - 1) // 2} | {k['peak_mb']:.0f} | {c['peak_mb']:.0f} | "
            f"{p * p * n * 8 / 2**20:.0f} |"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--p", type=int, default=1000)
    ap.add_argument("--peer-p", type=int, default=60, help="columns the peers run on")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="N = 300, P = 60, 1 repeat")
    ap.add_argument("--memory", action="store_true", help="peak memory for P = 125..500")
    ap.add_argument("--tools", default=",".join(TOOLS))
    ap.add_argument("--threads", type=int, default=1, help="threads for every contender")
    ap.add_argument("--cold", action="store_true", help="also time cold starts")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--no-warm-up", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.one:
        print(json.dumps(one(a.one, a.n, a.p, a.peer_p, a.threads, not a.no_warm_up)))
        return
    if a.quick:
        a.n, a.p, a.peer_p, a.repeats = 300, 60, 30, 1
    if a.memory:
        print(memory(a.n, [125, 250, 500]))
        return
    tools = [t for t in a.tools.split(",") if t]
    run = T.Run(["infometer", "numba"])
    _peer.record_versions(run, {"sklearn": "scikit-learn", "ennemi": "ennemi"})
    run.meta["threads"] = a.threads

    def contender(t: str) -> T.Candidate:
        def go() -> T.Measured:  # the child times the call itself (imports excluded)
            r = spawn(t, a.n, a.p, a.peer_p, a.threads)
            return T.Measured(r["wall"], r["cpu"], f"{r['peak_mb']:.0f} MiB", extra=r)

        return T.Candidate(t, go, warmup=False)  # every run is a fresh process with a warm-up

    def cold(t: str) -> T.Candidate:
        def go() -> T.Measured:  # the whole fresh process, from outside, no warm-up
            c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            w0 = time.perf_counter()
            r = spawn(t, a.n, a.p, a.peer_p, a.threads, warm_up=False)
            c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime
            return T.Measured(time.perf_counter() - w0, cpu, f"call {r['cpu']:.2f} CPU s")

        return T.Candidate(f"{t}, fresh process", go, warmup=False)

    res = T.interleave([contender(t) for t in tools], a.repeats)
    cold_tools = [t for t in tools if t in SUBSET and t != FLOOR]
    cres = T.interleave([cold(t) for t in cold_tools], a.repeats) if a.cold else None
    run.finish()
    rows = [r for t in res.values() for r in t.extras]
    sub = [r for r in rows if r["tool"] in SUBSET]
    mats = {r["tool"]: np.array(r["matrix_head"], dtype=float) for r in sub}
    if "infometer ksg (subset)" in mats:
        ours = mats["infometer ksg (subset)"]
        iu = np.triu_indices(ours.shape[0], 1)
        for t, m in mats.items():
            if t != "infometer ksg (subset)":
                d = np.abs(m[iu] - ours[iu])
                print(f"|{t} - infometer ksg| on the subset: median {np.median(d):.4f}, "
                      f"max {d.max():.4f} nats", file=sys.stderr)  # fmt: skip
    print(run.header() + "\n\n" + table(rows, a.n, a.p, a.repeats))
    if cres is not None:
        print(
            "\n**Cold start** (a fresh process per run, no warm-up: interpreter, imports, "
            "numba cache loading, making the data, one call; timed from outside)\n"
        )
        print(run.add("cold", cres, ref="infometer ksg (subset), fresh process"))


if __name__ == "__main__":
    main()
