"""kd-tree build and exact kNN self-query (KSG's joint search), A/B between source trees.

    python benchmarks/dev/knn_query.py --dims 1,3,8 --n 1e4,1e5 --metric max,euclidean
    python benchmarks/dev/knn_query.py --src /tmp/base/src,src --repeats 3
    python benchmarks/dev/knn_query.py --dims 3 --n 1e6 --ckdtree --repeats 3

Each point set is KSG's joint space of d x d columns: x ~ N(0, I_d), y = 0.6 x + 0.8 noise
(seed 0), so "3" means 6 columns.  For every ``--src`` (a directory put first on
``PYTHONPATH``; default: the infometer this Python imports) a fresh process builds each
tree (``engine.KDTree``, the compiled backend) and queries the k nearest other points of
every point (``knn_self``), timing each stage (wall, and CPU of all threads).  The sources
are run in turn, ``--repeats`` rounds (interleaved: A B A B ...), and the minimum of each
figure is printed with the 1-minute load of each round.  ``--threads 1`` sets
``NUMBA_NUM_THREADS=1`` (the kernels then run on one thread: CPU time without the
second thread's contention).  Every run checks that the sources give the same distances.
``--ckdtree`` adds scipy's ``cKDTree`` as one more contender, interleaved with the others
(leaf size 16, ``query(k + 1, p=inf, workers=-1)`` with the point itself dropped; max-norm
only, where its distances must equal infometer's bit for bit).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

_CHILD = r"""
import json, sys, time, hashlib
import numpy as np
from infometer.estimators.knn import _engine as engine
engine.BACKEND = "compiled"
configs = json.loads(sys.argv[1])
def data(n, d):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, d))
    return np.hstack([x, 0.6 * x + 0.8 * rng.standard_normal((n, d))])
engine.KDTree(data(30_000, 2)).knn_self(3)  # load the kernels outside the timings
out = []
for d, n, k, metric in configs:
    p = data(n, d)
    w, c = time.perf_counter(), time.process_time()
    tree = engine.KDTree(p)
    w1, c1 = time.perf_counter(), time.process_time()
    dist, _ = tree.knn_self(k, metric)
    w2, c2 = time.perf_counter(), time.process_time()
    digest = hashlib.sha1(np.ascontiguousarray(dist).tobytes()).hexdigest()[:12]
    out.append([w1 - w, c1 - c, w2 - w1, c2 - c1, digest])
print(json.dumps(out))
"""

_CHILD_CKDTREE = r"""
import json, sys, time, hashlib
import numpy as np
from scipy.spatial import cKDTree
configs = json.loads(sys.argv[1])
def data(n, d):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, d))
    return np.hstack([x, 0.6 * x + 0.8 * rng.standard_normal((n, d))])
cKDTree(data(30_000, 2)).query(data(30_000, 2), k=4, p=np.inf, workers=-1)  # warm
out = []
for d, n, k, metric in configs:
    p = data(n, d)
    w, c = time.perf_counter(), time.process_time()
    tree = cKDTree(p, leafsize=16)
    w1, c1 = time.perf_counter(), time.process_time()
    dist, _ = tree.query(p, k=k + 1, p=np.inf if metric == "max" else 2, workers=-1)
    dist = np.ascontiguousarray(dist[:, 1:])  # the point itself first (distance 0)
    w2, c2 = time.perf_counter(), time.process_time()
    digest = hashlib.sha1(dist.tobytes()).hexdigest()[:12]
    out.append([w1 - w, c1 - c, w2 - w1, c2 - c1, digest])
print(json.dumps(out))
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dims", default="1,2,3,4,6,8", help="d of the d x d joint spaces")
    ap.add_argument("--n", default="1e4,1e5", help="comma-separated sample sizes")
    ap.add_argument("--metric", default="max", help="max, euclidean or both (comma)")
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--src", default="", help="comma-separated source dirs to compare")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=0, help="NUMBA_NUM_THREADS (0: all)")
    ap.add_argument("--ckdtree", action="store_true", help="add scipy's cKDTree (max-norm)")
    a = ap.parse_args(argv)
    if a.ckdtree and a.metric != "max":
        ap.error("--ckdtree compares max-norm distances only (use --metric max)")
    configs = [
        (int(d), int(float(n)), a.k, m)
        for n in a.n.split(",")
        for d in a.dims.split(",")
        for m in a.metric.split(",")
    ]
    srcs = a.src.split(",") if a.src else [""]
    if a.ckdtree:
        srcs.append("cKDTree")
    runs: dict[str, list] = {s: [] for s in srcs}
    loads = []
    for _ in range(a.repeats):
        for s in srcs:
            env = dict(os.environ)
            if s and s != "cKDTree":
                env["PYTHONPATH"] = os.pathsep.join([s, env.get("PYTHONPATH", "")])
            if a.threads:
                env["NUMBA_NUM_THREADS"] = str(a.threads)
            child = _CHILD_CKDTREE if s == "cKDTree" else _CHILD
            if s == "cKDTree":
                env.pop("NUMBA_NUM_THREADS", None)
            cmd = [sys.executable, "-c", child, json.dumps(configs)]
            res = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
            runs[s].append(json.loads(res.stdout.strip().splitlines()[-1]))
            loads.append(os.getloadavg()[0])
    print(
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, min of {a.repeats}, "
        f"load {min(loads):.1f}-{max(loads):.1f}, threads {a.threads or 'all'}; "
        "build wall/CPU, query wall/CPU (s)"
    )
    for i, (d, n, k, m) in enumerate(configs):
        cells = []
        digests = set()
        for s in srcs:
            fig = [min(r[i][j] for r in runs[s]) for j in range(4)]
            digests.update(r[i][4] for r in runs[s])
            cells.append(f"{s or 'this'}: {fig[0]:.3f}/{fig[1]:.3f} {fig[2]:.3f}/{fig[3]:.3f}")
        same = "same distances" if len(digests) == 1 else "DISTANCES DIFFER"
        ratio = ""
        if len(srcs) == 2:
            r = [min(r_[i][3] for r_ in runs[s]) for s in srcs]
            rw = [min(r_[i][2] for r_ in runs[s]) for s in srcs]
            a_, b_ = srcs[0] or "this", srcs[1] or "this"
            ratio = f" | query {b_}/{a_}: CPU {r[1] / r[0]:.2f}x wall {rw[1] / rw[0]:.2f}x"
        print(f"{d}x{d} N={n:.0e} k={k} {m}: " + "; ".join(cells) + ratio + f" ({same})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
