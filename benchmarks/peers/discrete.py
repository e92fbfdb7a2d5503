"""Discrete counting kernel vs peers, timed in the same run.

    python benchmarks/peers/discrete.py [--n 10000000] [--repeats 3] [--slow 30] [--write]

Task A: joint entropy H(X,Y,Z) of three integer columns, 10 symbols each (1,000 joint
symbols), N rows.  Task B: I(X;Y) of two of them.  Timing goes through
``benchmarks/_timing.py``: the tools of a task run interleaved on the same data, ``--repeats``
times each after one warm-up (once only for a tool whose first run exceeds ``--slow``
seconds), min / median wall, spread and CPU beside wall; the answer of every tool is
printed beside its time so a fast wrong answer is visible.  ``--write`` appends the
record to RESULTS.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _timing.py
import _timing as T  # noqa: E402
import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--slow", type=float, default=30.0)
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()

    import infometer as im

    rng = np.random.default_rng(0)
    x, y, z = (rng.integers(0, 10, a.n) for _ in range(3))
    xyz = np.column_stack([x, y, z])
    run = T.Run(["scikit-learn", "infomeasure"])

    def np_unique():
        _, c = np.unique(xyz, axis=0, return_counts=True)
        p = c / c.sum()
        return float(-(p * np.log(p)).sum())

    def h(method):
        return lambda: im.entropy(xyz, method=method).value

    task_a = [
        T.Candidate("infometer plugin (N x 3 array)", h("plugin")),
        T.Candidate("infometer nsb (N x 3 array)", h("nsb")),
        T.Candidate("numpy unique(axis=0) baseline", np_unique),
    ]
    task_b = [T.Candidate("infometer plugin", lambda: im.mutual_info(x, y, method="plugin").value)]
    try:
        from sklearn.metrics import mutual_info_score

        task_b.append(
            T.Candidate("scikit-learn mutual_info_score", lambda: float(mutual_info_score(x, y)))
        )
    except ImportError:
        pass
    try:
        import infomeasure

        task_a.append(
            T.Candidate(
                "infomeasure discrete",
                lambda: float(infomeasure.entropy((x, y, z), approach="discrete")),
            )
        )
        task_b.append(
            T.Candidate(
                "infomeasure discrete",
                lambda: float(infomeasure.mutual_information(x, y, approach="discrete")),
            )
        )
    except ImportError:
        pass

    blocks = []
    for title, cands in (("H(X,Y,Z)", task_a), ("I(X;Y)", task_b)):
        res = T.interleave(cands, a.repeats, slow_s=a.slow)
        blocks.append(f"**{title}**, N = {a.n:,}\n\n" + run.add(title, res, ref=cands[0].name))
    run.finish()
    text = run.header() + "\n\n" + "\n\n".join(blocks)
    print(text)
    if a.write:
        res_md = Path(__file__).resolve().parents[1] / "RESULTS.md"
        with res_md.open("a") as fh:
            fh.write(f"\n### Discrete counting, N = {a.n:,}\n\n{text}\n")


if __name__ == "__main__":
    main()
