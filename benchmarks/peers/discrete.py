"""Discrete counting kernel vs peers and the floor, timed in the same run.

    python benchmarks/peers/discrete.py [--n 10000000] [--repeats 3] [--slow 30] [--cold]
        [--write]

Task A: joint entropy H(X,Y,Z) of three integer columns, 10 symbols each (1,000 joint
symbols), N rows.  Task B: I(X;Y) of two of them.  Timing goes through
``benchmarks/_timing.py``: the tools of a task run interleaved on the same data, ``--repeats``
times each after one warm-up (once only for a tool whose first run exceeds ``--slow``
seconds), min / median wall, spread and CPU beside wall; the answer of every tool is
printed beside its time so a fast wrong answer is visible.

Steady state (issue 42): BLAS / OpenMP / numba on one thread (set here unless already set);
a peer that this Python cannot import runs in a long-lived process of its own virtualenv
(``benchmarks/_peer.py``), warm after the untimed warm-up, timed inside that process.  The
floor of each task is the plain program of ``benchmarks/_floors.py`` (``np.bincount`` of
the joint code, then ``-sum p log p``).  ``--cold`` adds the cold start: a fresh process
per side (interpreter, imports, ``np.load`` of the data, one call), timed from outside.
``--write`` appends the record to RESULTS.md.
"""

from __future__ import annotations

import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _timing.py
import _floors as F  # noqa: E402
import _peer as P  # noqa: E402
import _timing as T  # noqa: E402
import numpy as np  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--slow", type=float, default=30.0)
    ap.add_argument("--cold", action="store_true", help="also time cold starts")
    ap.add_argument("--no-baseline", action="store_true", help="skip numpy unique and nsb")
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()

    import infometer as im

    rng = np.random.default_rng(0)
    x, y, z = (rng.integers(0, 10, a.n) for _ in range(3))
    xyz = np.column_stack([x, y, z])
    run = T.Run(["infometer", "scikit-learn", "infomeasure"])
    P.record_versions(run, {"sklearn": "scikit-learn", "infomeasure": "infomeasure"})
    data, peers = P.Data(), {}
    for name, arr in (("x", x), ("y", y), ("z", z), ("xyz", xyz)):
        data.add(name, arr)

    def np_unique():
        _, c = np.unique(xyz, axis=0, return_counts=True)
        p = c / c.sum()
        return float(-(p * np.log(p)).sum())

    def h(method):
        return lambda: im.entropy(xyz, method=method).value

    task_a = [
        T.Candidate("infometer plugin (N x 3 array)", h("plugin")),
        T.Candidate("floor: bincount of the joint code + entropy", lambda: F.plugin_h(xyz, 10)),
    ]
    if not a.no_baseline:
        task_a += [
            T.Candidate("infometer nsb (N x 3 array)", h("nsb")),
            T.Candidate("numpy unique(axis=0) baseline", np_unique),
        ]
    task_b = [
        T.Candidate("infometer plugin", lambda: im.mutual_info(x, y, method="plugin").value),
        T.Candidate("floor: joint bincount + entropies", lambda: F.plugin_mi(x, y, 10, 10)),
    ]
    peer_jobs = {  # task -> (name, module, job, arrays)
        "a": [("infomeasure discrete", "infomeasure", "infomeasure_h", ("x", "y", "z"))],
        "b": [
            ("scikit-learn mutual_info_score", "sklearn", "sklearn_mi_score", ("x", "y")),
            ("infomeasure discrete", "infomeasure", "infomeasure_mi_discrete", ("x", "y")),
        ],
    }
    for task, cands in (("a", task_a), ("b", task_b)):
        for name, module, job, names in peer_jobs[task]:
            fn = P.job_fn(module, data, peers, job, *names)
            if fn is not None:
                cands.append(T.Candidate(name, fn))

    blocks = []
    try:
        for title, cands in (("H(X,Y,Z)", task_a), ("I(X;Y)", task_b)):
            res = T.interleave(cands, a.repeats, slow_s=a.slow)
            blocks.append(f"**{title}**, N = {a.n:,}\n\n" + run.add(title, res, ref=cands[0].name))
        if a.cold:
            blocks.append(cold_starts(a, data, peer_jobs, run))
    finally:
        for p in peers.values():
            p.close()
        data.close()
    run.finish()
    text = run.header() + "\n\n" + "\n\n".join(blocks)
    print(text)
    if a.write:
        res_md = Path(__file__).resolve().parents[1] / "RESULTS.md"
        with res_md.open("a") as fh:
            fh.write(f"\n### Discrete counting, N = {a.n:,}\n\n{text}\n")


def cold_starts(a, data: P.Data, peer_jobs: dict, run: T.Run) -> str:
    """Fresh processes, both sides: what a one-off user pays (interpreter, imports, load)."""
    src = str(Path(__file__).resolve().parents[2] / "src")
    ours = {
        "a": ("infometer plugin", "im_entropy", ("xyz",), {"method": "plugin"}),
        "b": ("infometer plugin", "im_mi", ("x", "y"), {"method": "plugin"}),
    }
    out = []
    for task, title in (("a", "H(X,Y,Z)"), ("b", "I(X;Y)")):
        name, job, names, kw = ours[task]
        cands = [
            T.Candidate(
                f"{name}, fresh process",
                lambda job=job, names=names, kw=kw: P.cold(
                    sys.executable, data, job, *names, pythonpath=src, **kw
                ),
                warmup=False,
            )
        ]
        for pname, module, pjob, pnames in peer_jobs[task]:
            py = P.python_for(module)
            if py is not None:
                cands.append(
                    T.Candidate(
                        f"{pname}, fresh process",
                        lambda py=py, pjob=pjob, pnames=pnames: P.cold(py, data, pjob, *pnames),
                        warmup=False,
                    )
                )
        res = T.interleave(cands, a.repeats, slow_s=a.slow)
        out.append(
            f"**Cold start, {title}**, N = {a.n:,} (fresh process: interpreter, imports, "
            "np.load, one call)\n\n" + run.add(f"cold {title}", res, ref=cands[0].name)
        )
    return "\n\n".join(out)


if __name__ == "__main__":
    main()
