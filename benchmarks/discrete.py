"""Discrete counting kernel vs peers, timed in the same run.

    python benchmarks/discrete.py [--n 10000000] [--repeats 5] [--write]

Task A: joint entropy H(X,Y,Z) of three integer columns, 10 symbols each (1,000 joint
symbols), N rows.  Task B: I(X;Y) of two of them.  Each timing is the median of
``--repeats`` runs after one warm-up; the answer of every tool is printed beside its time
so a fast wrong answer is visible.  ``--write`` appends the table to RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import platform
import statistics
import subprocess
import time
from pathlib import Path

import numpy as np


def timed(f, repeats):
    f()  # warm-up (imports, JIT)
    ts, val = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        val = f()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts), float(val)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()

    import infometer as im

    rng = np.random.default_rng(0)
    x, y, z = (rng.integers(0, 10, a.n) for _ in range(3))
    xyz = np.column_stack([x, y, z])
    rows: list[tuple[str, str, float, float]] = []

    # ---------------- Task A: H(X,Y,Z)
    rows.append(
        (
            "H(X,Y,Z)",
            "infometer plugin (N x 3 array)",
            *timed(lambda: im.entropy(xyz, method="plugin").value, a.repeats),
        )
    )
    rows.append(
        (
            "H(X,Y,Z)",
            "infometer nsb (N x 3 array)",
            *timed(lambda: im.entropy(xyz, method="nsb").value, a.repeats),
        )
    )

    def np_unique():
        _, c = np.unique(xyz, axis=0, return_counts=True)
        p = c / c.sum()
        return -(p * np.log(p)).sum()

    rows.append(("H(X,Y,Z)", "numpy unique(axis=0) baseline", *timed(np_unique, a.repeats)))
    try:
        import infomeasure

        rows.append(
            (
                "H(X,Y,Z)",
                f"infomeasure {infomeasure.__version__} discrete",
                *timed(lambda: infomeasure.entropy((x, y, z), approach="discrete"), a.repeats),
            )
        )
    except ImportError:
        pass

    # ---------------- Task B: I(X;Y)
    from sklearn import __version__ as skv
    from sklearn.metrics import mutual_info_score

    rows.append(
        (
            "I(X;Y)",
            "infometer plugin",
            *timed(lambda: im.mutual_info(x, y, method="plugin").value, a.repeats),
        )
    )
    rows.append(
        (
            "I(X;Y)",
            f"scikit-learn {skv} mutual_info_score",
            *timed(lambda: mutual_info_score(x, y), a.repeats),
        )
    )
    try:
        import infomeasure

        rows.append(
            (
                "I(X;Y)",
                f"infomeasure {infomeasure.__version__} discrete",
                *timed(
                    lambda: infomeasure.mutual_information(x, y, approach="discrete"), a.repeats
                ),
            )
        )
    except ImportError:
        pass

    head = "| task | tool | median time (s) | value (nats) | ratio to infometer plugin |"
    lines = [head, "|---|---|---|---|---|"]
    base = {t: s for t, tool, s, _ in rows if tool.startswith("infometer plugin")}
    for task, tool, sec, val in rows:
        lines.append(f"| {task} | {tool} | {sec:.3f} | {val:.6f} | {sec / base[task]:.1f}x |")
    cpu = "unknown"
    try:
        cpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        cpu = next(ln.split(":", 1)[1].strip() for ln in cpu.splitlines() if "Model name" in ln)
    except Exception:
        pass
    meta = (
        f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, N = {a.n:,}, median of {a.repeats} "
        f"after a warm-up; {platform.python_version()}, numpy {np.__version__}, "
        f"{cpu}, 2 cores"
    )
    table = "\n".join(lines)
    print(meta)
    print(table)
    if a.write:
        res = Path(__file__).with_name("RESULTS.md")
        block = (
            f"\n### Discrete counting (`python benchmarks/discrete.py --n {a.n} --write`)\n\n"
            f"{meta}\n\n{table}\n"
        )
        with res.open("a") as fh:
            fh.write(block)


if __name__ == "__main__":
    main()
