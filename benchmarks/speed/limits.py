"""Speed at the limit: infometer against the simplest correct reference of each task.

Usage::

    python benchmarks/speed/limits.py [--repeats 3] [--only plugin_h,ksg_large,...] [--out F]

Each task times infometer and a reference written with numpy / scipy on the same data
through the shared harness ``benchmarks/_timing.py`` (interleaved, one untimed warm-up per
contender, min / median / spread of wall and CPU, load at every run, machine and command),
with the wall and CPU ratios of the minima to the reference (infometer / reference: below
1 means infometer is faster).  Tasks (issue 10):

* ``plugin_h``: plug-in entropy of 10^7 symbols of 1,000 types; reference
  ``scipy.stats.entropy(np.bincount(x))``.
* ``plugin_mi``: plug-in MI of two 100-symbol columns, 10^7 rows; reference: one joint
  ``np.bincount(x * 100 + y, minlength=10000)`` (the counts alone, no entropies).
* ``ksg_small``: KSG-1 3x3 at N = 300 ... 100,000 against a plain scipy ``cKDTree``
  implementation (standardised columns, joint max-norm query, ``query_ball_point``
  counts: ``benchmarks/_floors.py``).
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
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import _floors as F  # noqa: E402
import _timing as T  # noqa: E402

warnings.simplefilter("ignore")
RHO = 0.75


def gauss(n: int, d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, d))
    return x, RHO * x + math.sqrt(1 - RHO**2) * rng.standard_normal((n, d))


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


def copula_ours(x: np.ndarray, y: np.ndarray) -> float:
    """infometer's Gaussian-copula MI without the bias correction (as the reference)."""
    import infometer as im

    return im.mutual_info(x, y, method="gaussian_copula", bias_correct=False).value


def _cli_ci(path: Path) -> tuple[list[str], dict]:
    cmd = [sys.executable, "-c", "from infometer.cli.app import main; main()"]
    cmd += ["mi", str(path), "--x", "a", "--y", "b", "--ci", "0.95", "--json"]
    return cmd, {**os.environ, "COLUMNS": "100"}


def _run_cli(cmd: list[str], env: dict) -> tuple[str, str]:
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stderr[-2000:]}")
    est = json.loads(r.stdout.strip().splitlines()[-1])
    return f"{est['value']:.4f} [{est['ci'][0]:.4f}, {est['ci'][1]:.4f}]", r.stderr


def run_tasks(run: T.Run, only: set[str], repeats: int) -> dict:
    """Time the chosen tasks; print each section's table as it finishes."""
    import infometer as im

    exponents: dict = {}

    def record(title: str, cands: list[T.Candidate], ref: str | None, **kw) -> dict:
        print(f"\n### {title}\n", flush=True)
        res = T.interleave(cands, repeats, **kw)
        print(run.add(title, res, ref), flush=True)
        return res

    C = T.Candidate
    if "plugin_h" in only:
        from scipy.stats import entropy

        x = np.random.default_rng(0).integers(0, 1000, 10**7)
        ref = "np.bincount + scipy.stats.entropy"
        record(
            "H, 10^7 symbols, 1000 types",
            [
                C("infometer plugin", lambda: im.entropy(x, method="plugin").value),
                C(ref, lambda: float(entropy(np.bincount(x)))),
            ],
            ref,
        )
    if "plugin_mi" in only:
        rng = np.random.default_rng(1)
        a, b = rng.integers(0, 100, 10**7), rng.integers(0, 100, 10**7)
        ref = "np.bincount(x * 100 + y) (counts only)"
        record(
            "MI, 100x100 symbols, 10^7 rows",
            [
                C("infometer plugin", lambda: im.mutual_info(a, b, method="plugin").value),
                C(ref, lambda: float(np.bincount(a * 100 + b, minlength=10**4)[0])),
            ],
            ref,
        )
    if "ksg_small" in only:
        ref = "plain cKDTree KSG-1"
        for n in (300, 1000, 10_000, 100_000):
            x, y = gauss(n, 3)
            record(
                f"KSG-1 3x3, N={n:,}",
                [
                    C("infometer ksg1", lambda x=x, y=y: im.mutual_info(x, y, method="ksg1").value),
                    C(ref, lambda x=x, y=y: F.ksg1_mi(x, y)),
                ],
                ref,
                slow_s=60,
            )
    if "ksg_large" in only:
        from infometer.estimators.knn import _engine as engine

        engine.BACKEND = "compiled"  # compile (or load) outside the timed runs, whatever the
        im.mutual_info(*gauss(30_000, 3), method="ksg1")  # install's cold-cache rule says
        engine.BACKEND = "auto"
        data = {n: gauss(n, 3) for n in (10**5, 10**6)}
        names = {n: f"infometer ksg1, N={n:.0e}" for n in data}
        res = record(
            "KSG-1 3x3, N=1e5 and 1e6",
            # compiled above; an untimed warm-up of the 1e6 run would double the task's time
            [
                C(names[n], lambda n=n: im.mutual_info(*data[n], method="ksg1").value, False)
                for n in data
            ],
            None,
        )
        lo, hi = res[names[10**5]], res[names[10**6]]
        if lo.n and hi.n:
            exponents = {
                what: math.log10(hi.stat(what, "min") / lo.stat(what, "min"))
                for what in ("wall", "cpu")
            }
            print(
                f"scaling exponent 1e5 -> 1e6 (of minima): wall {exponents['wall']:.2f}, "
                f"CPU {exponents['cpu']:.2f}",
                flush=True,
            )
    if "ksg_8x8" in only:
        x, y = gauss(10**5, 8)
        record(
            "KSG-1 8x8, N=1e5",
            [C("infometer ksg1", lambda: im.mutual_info(x, y, method="ksg1").value)],
            None,
        )
    if "copula" in only:
        x, y = gauss(10**6, 10)
        ref = "argsort + ndtri + slogdet"
        record(
            "Gaussian copula MI 10x10, N=1e6",
            [
                C("infometer gaussian_copula", lambda: copula_ours(x, y)),
                C(ref, lambda: copula_reference(x, y)),
            ],
            ref,
        )
        a, b = copula_ours(x, y), copula_reference(x, y)
        print(f"relative difference to the reference: {abs(a - b) / abs(b):.1e}", flush=True)
    if "cli_ci" in only:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "xy.csv"
            x, y = gauss(10**6, 1)
            np.savetxt(
                path, np.hstack([x, y]), delimiter=",", header="a,b", comments="", fmt="%.9g"
            )
            cmd, env = _cli_ci(path)
            # a fresh process per run; its CPU is charged through RUSAGE_CHILDREN
            record(
                "CLI mi --ci 0.95, 10^6 rows (fresh process)",
                [C("infometer mi --ci 0.95", lambda: _run_cli(cmd, env)[0])],
                None,
            )
            stderr = _run_cli(cmd, env)[1]
            bar = "%" in stderr or "resampl" in stderr
            print(f"progress bar on stderr: {'yes' if bar else 'NO'}", flush=True)
    return exponents


TASKS = ("plugin_h", "plugin_mi", "ksg_small", "ksg_large", "ksg_8x8", "copula", "cli_ci")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", "--rounds", type=int, default=3, dest="repeats")
    ap.add_argument("--only", default=",".join(TASKS), help="comma-separated tasks")
    ap.add_argument("--out", help="write the runs as JSON here")
    a = ap.parse_args(argv)
    only = set(a.only.split(","))
    unknown = only - set(TASKS)
    if unknown:
        ap.error(f"unknown tasks {sorted(unknown)}; choose from {', '.join(TASKS)}")
    warnings.simplefilter("ignore")
    run = T.Run(["infometer", "scipy", "numba"])
    exponents = run_tasks(run, only, a.repeats)
    run.finish()
    if exponents:
        run.meta["ksg_exponent_1e5_1e6"] = exponents
    print("\n" + run.header())
    if a.out:
        run.dump(a.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
