"""Per-stage timing of KSG-1 (joint tree build, joint kNN query, one marginal count), and
interleaved A/Bs of the grid's marginal count on the same radii.

    python benchmarks/dev/knn_stages.py --d 3 --n 1e5,1e6
    python benchmarks/dev/knn_stages.py --d 3 --n 1e6 --grid RUN_COST=20,RUN_COST=60 --rounds 3
    python benchmarks/dev/knn_stages.py --d 3 --dx 2 --n 1e4,1e5,1e6 --against main --rounds 3
    python benchmarks/dev/knn_stages.py --d 4,6,8 --n 2e4,1e5 --bitset --rounds 3

Data: x ~ N(0, I_d), y = 0.6 x + 0.8 noise, seed 0; the marginal counted is the first
``--dx`` columns of x (default all ``d``).  Each stage prints wall and CPU time (all
threads) and the 1-minute load.  ``--grid NAME=V[:NAME=V],...`` times the marginal count
(grid layout and count, from radii to counts) with each setting of
:mod:`infometer.estimators.knn._grid`'s
module constants, interleaved, min of ``--rounds``; ``--against REF`` times this checkout's
grid against ``src/infometer/estimators/knn/_grid.py`` of the git revision ``REF`` the same way
(both
grid APIs it has had are understood).  Every setting must give the same counts (only the
speed may change).
``--bitset`` times the joint max-norm kNN query (2d columns) and the marginal count of x
(d columns) on the kd-tree and on the bitset index of :mod:`infometer.estimators.knn._bitset`
(structure set-up included), interleaved, min of ``--rounds``, and checks that both give
the same distances and counts.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from infometer.estimators.knn import _grid as grid
from infometer.estimators.knn import engine


def timed(f):
    w, c = time.perf_counter(), time.process_time()
    out = f()
    return out, time.perf_counter() - w, time.process_time() - c


def data(n: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, d))
    return x, 0.6 * x + 0.8 * rng.standard_normal((n, d))


def _report(prefix: str, runs: dict, digits: int, extra: str = "") -> None:
    """One line per timed label: min wall and CPU of its runs, and each run's load."""
    for label, v in runs.items():
        loads = ", ".join(f"{q[2]:.1f}" for q in v)
        print(
            f"{prefix} {label}: wall min {min(q[0] for q in v):.{digits}f} s, CPU min "
            f"{min(q[1] for q in v):.{digits}f} s{extra}, load {loads}",
            flush=True,
        )


def stages(n: int, d: int, k: int) -> None:
    x, y = data(n, d)
    joint = np.hstack([x, y])
    tree, w1, c1 = timed(lambda: engine.KDTree(joint))
    (dist, _), w2, c2 = timed(lambda: tree.knn_self(k))
    counter, w3, c3 = timed(lambda: engine.RangeCounter(x))
    nx, w4, c4 = timed(lambda: counter.count(dist[:, k - 1], strict=True))
    print(
        f"d={d} N={n:.0e}: tree build {w1:.2f}/{c1:.2f} s, kNN query {w2:.2f}/{c2:.2f} s, "
        f"marginal set-up {w3:.2f}/{c3:.2f} s, marginal count {w4:.2f}/{c4:.2f} s "
        f"(wall/CPU), mean n_x {nx.mean():.0f}, load {os.getloadavg()[0]:.2f}",
        flush=True,
    )


def _count_with(module, points, ranks, cols, radii):
    """The grid count of ``module`` (this checkout's or an earlier grid.py), original order."""
    import inspect

    n = len(points)
    c = np.empty(n, np.int64)
    if len(inspect.signature(module.build).parameters) == 3:  # the quantile grid (before)
        g = module.build(points, ranks, radii)
        args = (g.data, g.slab, g.start, g.n_slabs, g.radix, g.lo, g.hi)
    else:
        g = module.build(points, ranks, cols, radii)
        args = g.args()
    engine._run(module.count, n, *args, np.ascontiguousarray(radii[g.order]), c)
    out = np.empty_like(c)
    out[g.order] = c
    return out


def _reference_grid(ref: str):
    """``src/infometer/estimators/knn/_grid.py`` at git revision ``ref``, imported as a module."""
    import importlib.util
    import subprocess
    import tempfile

    src = subprocess.run(
        ["git", "show", f"{ref}:src/infometer/estimators/knn/_grid.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.replace("from ..jit import nb", "from infometer.core.jit import nb")
    path = os.path.join(tempfile.mkdtemp(prefix="grid-ref-"), "grid_ref.py")
    with open(path, "w") as f:
        f.write(src)
    spec = importlib.util.spec_from_file_location("grid_ref", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def ab(n: int, d: int, dx: int, k: int, settings: list, rounds: int) -> None:
    """Interleaved A/B of the marginal count; ``settings`` are (label, module, constants)."""
    x, y = data(n, d)
    eps = engine.KDTree(np.hstack([x, y])).knn_self(k)[0][:, k - 1]
    r = np.where(eps > 0, np.nextafter(eps, 0), -1.0)  # KSG-1's strict count
    x = np.ascontiguousarray(x[:, :dx])
    ranks = [np.argsort(x[:, j]) for j in range(dx)]
    cols = [x[rk, j] for j, rk in enumerate(ranks)]
    runs: dict[str, list] = {s[0]: [] for s in settings}
    small = x[:2000]
    small_ranks = [np.argsort(small[:, j]) for j in range(dx)]
    small_cols = [small[rk, j] for j, rk in enumerate(small_ranks)]
    for _, module, _ in settings:  # compile (or load) each grid's kernels outside the timings
        _count_with(module, small, small_ranks, small_cols, r[:2000])
    ref = None
    for _ in range(rounds):
        for label, module, consts in settings:
            saved = {key: getattr(module, key) for key in consts}
            try:
                for key, v in consts.items():
                    setattr(module, key, v)
                c, w, cpu = timed(lambda m=module: _count_with(m, x, ranks, cols, r))
            finally:
                for key, v in saved.items():
                    setattr(module, key, v)
            ref = c if ref is None else ref
            assert np.array_equal(c, ref), "the counts depend on the grid: a bug"
            runs[label].append((w, cpu, os.getloadavg()[0]))
    _report(f"d={dx} N={n:.0e}", runs, 3, f", mean count {ref.mean():.0f}")


def _settings(text: str) -> list:
    out = []
    for item in text.split(","):
        consts = {}
        for pair in item.split(":"):
            key, v = pair.split("=")
            consts[key] = float(v) if key != "MAX_CELLS_PER_POINT" else int(v)
        out.append((item, grid, consts))
    return out


def bitset_ab(n: int, d: int, k: int, rounds: int) -> None:
    x, y = data(n, d)
    joint = np.hstack([x, y])
    saved = (engine.BITSET_MIN_POINTS, engine.BITSET_MAX_POINTS, engine.BITSET_MIN_DIM,
             engine.BITSET_KNN_MIN_DIM, engine.BITSET_COLD_MIN_POINTS)  # fmt: skip
    runs: dict[str, list] = {}
    ref: dict[str, np.ndarray] = {}
    tries = []
    try:
        engine.BITSET_MIN_DIM = engine.BITSET_KNN_MIN_DIM = 2
        engine.BITSET_COLD_MIN_POINTS = 0
        for _ in range(rounds):
            for how in ("tree", "bitset"):
                on = how == "bitset"
                engine.BITSET_MIN_POINTS = 0 if on else 10**12
                engine.BITSET_MAX_POINTS = 10**12
                tree = engine.KDTree(joint)  # the kd-tree is built on both paths
                dist, w1, c1 = timed(lambda t=tree: _knn(t, joint, k))
                if on:
                    tries.append(float(np.mean(tree.tries)))
                eps = dist[:, k - 1]
                cnt, w2, c2 = timed(lambda e=eps: engine.RangeCounter(x).count(e, strict=True))
                for name, v in (("kNN", dist), ("count", cnt)):
                    ref.setdefault(name, v)
                    assert np.array_equal(v, ref[name]), f"{how} {name} differs: a bug"
                load = os.getloadavg()[0]
                runs.setdefault(f"kNN {2 * d}-D {how}", []).append((w1, c1, load))
                runs.setdefault(f"count {d}-D {how}", []).append((w2, c2, load))
    finally:
        (engine.BITSET_MIN_POINTS, engine.BITSET_MAX_POINTS, engine.BITSET_MIN_DIM,
         engine.BITSET_KNN_MIN_DIM, engine.BITSET_COLD_MIN_POINTS) = saved  # fmt: skip
    _report(f"d={d} N={n:.0e}", runs, 2)
    print(f"d={d} N={n:.0e} bitset kNN: {np.mean(tries):.2f} cubes per query", flush=True)


def _knn(tree, joint: np.ndarray, k: int) -> np.ndarray:
    """The joint kNN distances, the bitset index's set-up (where used) included."""
    tree._index_ready = False
    tree._bitset()
    return tree.knn_self(k)[0]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--d", default="3", help="columns of x and of y (comma-separated)")
    ap.add_argument("--n", default="1e5,1e6", help="comma-separated sample sizes")
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--dx", type=int, help="columns of the marginal counted (default d)")
    ap.add_argument("--grid", help="NAME=V[:NAME=V],... grid constants to compare (see above)")
    ap.add_argument("--against", help="git revision whose grid.py to compare with (see above)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--bitset", action="store_true", help="kd-tree against bitset index")
    a = ap.parse_args(argv)
    engine.BACKEND = "compiled"
    dims = [int(v) for v in a.d.split(",")]
    for d in dims:
        for n in (int(float(v)) for v in a.n.split(",")):
            if a.bitset:
                bitset_ab(2000, d, a.k, 1)  # load (or compile) the kernels outside the timings
                bitset_ab(n, d, a.k, a.rounds)
                continue
            stages(20_000, d, a.k)  # load (or compile) the kernels outside the timings
            if a.grid or a.against:
                settings = _settings(a.grid) if a.grid else [("this checkout", grid, {})]
                if a.against:
                    settings.append((a.against, _reference_grid(a.against), {}))
                ab(n, d, a.dx or d, a.k, settings, a.rounds)
            else:
                stages(n, d, a.k)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
