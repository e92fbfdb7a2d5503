"""Speed at the limit: infometer against the simplest correct reference of each task.

Usage::

    python benchmarks/limits.py [--rounds 3] [--only plugin_h,ksg_large,...] [--out F]

Each task times infometer and a reference written with numpy / scipy on the same data,
interleaved (round 1: every contender once, round 2: again, ...), and reports the minimum
and median wall time, the spread, the minimum CPU time (all threads) and the load, with
the wall and CPU ratios of the minima (reference / infometer: above 1 means infometer is
faster).  Tasks (issue 10):

* ``plugin_h``: plug-in entropy of 10^7 symbols of 1,000 types; reference
  ``scipy.stats.entropy(np.bincount(x))``.
* ``plugin_mi``: plug-in MI of two 100-symbol columns, 10^7 rows; reference: one joint
  ``np.bincount(x * 100 + y, minlength=10000)`` (the counts alone, no entropies).
* ``ksg_small``: KSG-1 3x3 at N = 300 ... 100,000 against a plain scipy ``cKDTree``
  implementation (joint max-norm query, ``query_ball_point`` counts).
* ``ksg_large``: KSG-1 3x3 at N = 10^5 and 10^6 (and the scaling exponent between them).
* ``ksg_8x8``: KSG-1 8x8 at N = 10^5.
* ``copula``: Gaussian-copula MI 10x10 at N = 10^6 against argsort ranks + ``ndtri`` +
  ``slogdet``.
* ``cli_ci``: ``infometer mi FILE --x a --y b --ci 0.95`` on a 10^6-row CSV (a fresh
  process; its stderr is checked for a progress bar).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _limits_timing import (  # noqa: E402  (to be ported to _timing)
    Cell,
    dump,
    header,
    interleave,
    markdown,
    timed_call,
    timed_process,
)

warnings.simplefilter("ignore")
RHO = 0.75


def gauss(n: int, d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, d))
    return x, RHO * x + math.sqrt(1 - RHO**2) * rng.standard_normal((n, d))


def ksg_ckdtree(x: np.ndarray, y: np.ndarray, k: int = 3) -> float:
    """KSG-1 written plainly on scipy's cKDTree (the reference of the issue)."""
    from scipy.spatial import cKDTree
    from scipy.special import digamma

    n = len(x)
    xy = np.hstack([x, y])
    eps = cKDTree(xy).query(xy, k=k + 1, p=np.inf)[0][:, k]
    r = np.nextafter(eps, 0)
    nx = cKDTree(x).query_ball_point(x, r, p=np.inf, return_length=True) - 1
    ny = cKDTree(y).query_ball_point(y, r, p=np.inf, return_length=True) - 1
    return float(digamma(k) + digamma(n) - np.mean(digamma(nx + 1)) - np.mean(digamma(ny + 1)))


def copula_reference(x: np.ndarray, y: np.ndarray) -> float:
    """Gaussian-copula MI: argsort ranks, ndtri, log-dets (no bias correction)."""
    from scipy.special import ndtri

    a = np.hstack([x, y])
    n = a.shape[0]
    ranks = np.empty_like(a)
    for j in range(a.shape[1]):
        ranks[np.argsort(a[:, j]), j] = np.arange(1, n + 1)
    z = ndtri(ranks / (n + 1))
    c = np.cov(z, rowvar=False)
    dx = x.shape[1]
    ld = [np.linalg.slogdet(m)[1] for m in (c[:dx, :dx], c[dx:, dx:], c)]
    return 0.5 * (ld[0] + ld[1] - ld[2])


def ours(f: Callable[[], float]) -> Callable[[], tuple]:
    return lambda: timed_call(f)


def task_rows(name: str, cells: dict[str, Cell], ref: str | None) -> list[list]:
    rows = []
    base = cells[ref] if ref else None
    for who, c in cells.items():
        if base is not None and who != ref:
            wr, cr = f"{base.wall / c.wall:.2f}x", f"{base.cpu / c.cpu:.2f}x"
        else:
            wr = cr = ""
        v = c.value if isinstance(c.value, str) else f"{c.value:.6g}"
        rows.append(
            [name, who, f"{c.wall:.4g}", f"{c.median:.4g}", f"{c.spread:.0%}", f"{c.cpu:.4g}"]
            + [wr, cr, v, c.load]
        )
    return rows


def run_tasks(only: set[str], rounds: int) -> tuple[list[list], dict]:
    import infometer as im

    rows: list[list] = []
    raw: dict = {}

    def record(task: str, cells: dict[str, Cell], ref: str | None) -> None:
        rows.extend(task_rows(task, cells, ref))
        raw[task] = [c.row() for c in cells.values()]
        print(markdown(task_rows(task, cells, ref), HEAD), flush=True)

    if "plugin_h" in only:
        from scipy.stats import entropy

        x = np.random.default_rng(0).integers(0, 1000, 10**7)
        im.entropy(x[: 10**6], method="plugin")  # warm-up (imports, compiled kernel)
        cells = interleave(
            {
                "infometer plugin": ours(lambda: im.entropy(x, method="plugin").value),
                "np.bincount + scipy.stats.entropy": ours(lambda: entropy(np.bincount(x))),
            },
            rounds,
        )
        record("H, 10^7 symbols, 1000 types", cells, "np.bincount + scipy.stats.entropy")
    if "plugin_mi" in only:
        rng = np.random.default_rng(1)
        a, b = rng.integers(0, 100, 10**7), rng.integers(0, 100, 10**7)
        im.mutual_info(a[: 10**6], b[: 10**6], method="plugin")
        joint = "np.bincount(x * 100 + y) (counts only)"
        cells = interleave(
            {
                "infometer plugin": ours(lambda: im.mutual_info(a, b, method="plugin").value),
                joint: ours(lambda: float(np.bincount(a * 100 + b, minlength=10**4)[0])),
            },
            rounds,
        )
        record("MI, 100x100 symbols, 10^7 rows", cells, joint)
    if "ksg_small" in only:
        for n in (300, 1000, 10_000, 100_000):
            x, y = gauss(n, 3)
            im.mutual_info(x, y, method="ksg1")
            ksg_ckdtree(x, y)
            cells = interleave(
                {
                    "infometer ksg1": ours(
                        lambda x=x, y=y: im.mutual_info(x, y, method="ksg1").value
                    ),
                    "plain cKDTree KSG-1": ours(lambda x=x, y=y: ksg_ckdtree(x, y)),
                },
                rounds,
                stop_after=60,
            )
            record(f"KSG-1 3x3, N={n:,}", cells, "plain cKDTree KSG-1")
    if "ksg_large" in only:
        im.mutual_info(*gauss(30_000, 3), method="ksg1")
        data = {n: gauss(n, 3) for n in (10**5, 10**6)}
        cells = interleave(
            {
                f"infometer ksg1, N={n:.0e}": ours(
                    lambda n=n: im.mutual_info(*data[n], method="ksg1").value
                )
                for n in data
            },
            rounds,
        )
        record("KSG-1 3x3, N=1e5 and 1e6", cells, None)
        lo, hi = cells["infometer ksg1, N=1e+05"], cells["infometer ksg1, N=1e+06"]
        exp_wall, exp_cpu = math.log10(hi.wall / lo.wall), math.log10(hi.cpu / lo.cpu)
        rows.append(
            [
                "KSG-1 3x3 scaling exponent 1e5 -> 1e6",
                "",
                f"{exp_wall:.2f}",
                "",
                "",
                f"{exp_cpu:.2f}",
                "",
                "",
                "",
                "",
            ]
        )
        raw["ksg_exponent"] = {"wall": exp_wall, "cpu": exp_cpu}
        print(f"exponent: wall {exp_wall:.2f}, CPU {exp_cpu:.2f}", flush=True)
    if "ksg_8x8" in only:
        x, y = gauss(10**5, 8)
        im.mutual_info(*gauss(30_000, 8), method="ksg1")
        cells = interleave(
            {"infometer ksg1": ours(lambda: im.mutual_info(x, y, method="ksg1").value)}, rounds
        )
        record("KSG-1 8x8, N=1e5", cells, None)
    if "copula" in only:
        x, y = gauss(10**6, 10)
        im.mutual_info(x[: 10**4], y[: 10**4], method="gaussian_copula")
        ref = "argsort + ndtri + slogdet"
        cells = interleave(
            {
                "infometer gaussian_copula": ours(
                    lambda: im.mutual_info(x, y, method="gaussian_copula", bias_correct=False).value
                ),
                ref: ours(lambda: copula_reference(x, y)),
            },
            rounds,
        )
        record("Gaussian copula MI 10x10, N=1e6", cells, ref)
    if "cli_ci" in only:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "xy.csv"
            x, y = gauss(10**6, 1)
            np.savetxt(
                path, np.hstack([x, y]), delimiter=",", header="a,b", comments="", fmt="%.9g"
            )
            cmd = [sys.executable, "-c", "from infometer.cli.app import main; main()"]
            cmd += ["mi", str(path), "--x", "a", "--y", "b", "--ci", "0.95", "--json"]
            env = {**os.environ, "COLUMNS": "100"}

            def cli():
                r = subprocess.run(cmd, capture_output=True, text=True, env=env)
                est = json.loads(r.stdout.strip().splitlines()[-1]) if r.returncode == 0 else {}
                return est, r.stderr

            def timed():
                w, c, out = timed_process(cmd, env)
                est = json.loads(out.strip().splitlines()[-1])
                return w, c, f"{est['value']:.4f} [{est['ci'][0]:.4f}, {est['ci'][1]:.4f}]"

            timed_process(cmd, env)  # warm-up: bytecode, compiled kernels
            cells = interleave({"infometer mi --ci 0.95 (fresh process)": timed}, rounds)
            _, stderr = cli()
            bar = (
                "progress bar on stderr"
                if ("%" in stderr or "resampl" in stderr)
                else "NO progress output"
            )
            record(f"CLI mi --ci 0.95, 10^6 rows ({bar})", cells, None)
    return rows, raw


HEAD = [
    "task",
    "contender",
    "wall min s",
    "wall median s",
    "spread",
    "CPU min s",
    "wall ratio (ref / infometer)",
    "CPU ratio",
    "value",
    "load",
]
TASKS = ("plugin_h", "plugin_mi", "ksg_small", "ksg_large", "ksg_8x8", "copula", "cli_ci")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", default=",".join(TASKS), help="comma-separated tasks")
    ap.add_argument("--out", help="write the runs as JSON here")
    a = ap.parse_args(argv)
    only = set(a.only.split(","))
    unknown = only - set(TASKS)
    if unknown:
        ap.error(f"unknown tasks {sorted(unknown)}; choose from {', '.join(TASKS)}")
    import infometer

    meta = header("python benchmarks/limits.py " + " ".join(argv or sys.argv[1:]))
    meta["infometer"] = str(Path(infometer.__file__).parent)
    print(json.dumps(meta, indent=1), flush=True)
    rows, raw = run_tasks(only, a.rounds)
    print("\n" + markdown(rows, HEAD))
    dump(a.out, {"meta": meta, "tasks": raw})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
