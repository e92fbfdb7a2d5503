"""Network inference against IDTxl and Tigramite on the same simulated systems.

Recovery (precision, recall, lags right), false-positive rate on null networks (with its
binomial 95% interval) and wall / CPU time (interleaved runs, ``benchmarks/_timing.py``).
The peers run in their own virtual environments (``IDTXL_PY``, default
``/work/peers/idtxl/bin/python``; ``TIGRAMITE_PY``, default
``/work/peers/tigramite/bin/python``) through ``benchmarks/peers/_networks_peer.py``;
data go through .npy files.

**Steady state is the claim** (issue 42): each peer is one long-lived process
(``_networks_peer.py serve``) that gets one untimed warm-up job, so the timed runs exclude
its imports and, for IDTxl, the JVM start, as infometer's timed runs (same process, after a
warm-up) exclude infometer's.  The **cold start** a one-off user sees is measured
separately (``COLD=1``, the default): one fresh process per side running the same job
once, wall from spawn to exit and CPU of the whole child process (interpreter, imports,
JVM, numba loading).

Run from the repository root:
    OPENBLAS_NUM_THREADS=1 PYTHONPATH=src .venv/bin/python benchmarks/peers/networks.py
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
from scipy import stats

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from _timing import Candidate, Measured, Run, interleave  # noqa: E402

import infometer as im  # noqa: E402
from infometer.measures.dynamics import simulate  # noqa: E402

PEERS_PY = {
    "idtxl": os.environ.get("IDTXL_PY", "/work/peers/idtxl/bin/python"),
    "tigramite": os.environ.get("TIGRAMITE_PY", "/work/peers/tigramite/bin/python"),
}
PEER = os.path.join(os.path.dirname(__file__), "_networks_peer.py")
TMP = tempfile.mkdtemp(prefix="im-networks-")
OUT = os.path.join(os.path.dirname(__file__), "..", "results")
REPEATS = int(os.environ.get("REPEATS", "3"))
COLD = os.environ.get("COLD", "1") == "1"
#: Comma-separated subset of var5, boolean, logistic, null, speed, ksg, pcmciplus
#: (default: all).
SECTIONS = set(filter(None, os.environ.get("SECTIONS", "").split(","))) or {
    "var5",
    "boolean",
    "logistic",
    "null",
    "speed",
    "ksg",
    "pcmciplus",
}


_COUNT = [0]
NOTES: set[str] = set()
_SERVERS: dict[str, subprocess.Popen] = {}
_ENV = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
_ENV.pop("PYTHONPATH", None)


def _server(family: str) -> subprocess.Popen:
    """The long-lived peer process of ``family`` (idtxl or tigramite)."""
    proc = _SERVERS.get(family)
    if proc is None or proc.poll() is not None:
        proc = subprocess.Popen(
            [PEERS_PY[family], PEER, "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=_ENV,
        )
        _SERVERS[family] = proc
    return proc


def _ask(args: list[str]) -> dict:
    """One job on the peer's long-lived process: its in-process times and result."""
    proc = _server("idtxl" if args[0].startswith("idtxl") else "tigramite")
    proc.stdin.write(json.dumps(args) + "\n")
    proc.stdin.flush()
    while True:  # skip what the peer (or its JVM) printed itself
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"peer process for {args[0]} died")
        if line.startswith("@@result "):
            return json.loads(line[len("@@result ") :])


def cold(args: list[str]) -> tuple[float, float]:
    """Wall (spawn to exit) and CPU (the whole child) of the job in a fresh peer process."""
    family = "idtxl" if args[0].startswith("idtxl") else "tigramite"
    c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(
        [PEERS_PY[family], PEER, *args], capture_output=True, text=True, env=_ENV, check=True
    )
    wall = time.perf_counter() - t0
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime


_OURS_COLD = """
import sys, warnings, numpy as np
warnings.simplefilter("ignore")
import infometer as im
x = np.load(sys.argv[1])
im.infer_network(x, progress=False, **{kw})
"""


def cold_ours(x: np.ndarray, **kw) -> tuple[float, float]:
    """Wall and CPU of ``im.infer_network(x, **kw)`` in a fresh process (import included)."""
    _COUNT[0] += 1
    path = os.path.join(TMP, f"ours-{_COUNT[0]}.npy")
    np.save(path, x)
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", _OURS_COLD.replace("{kw}", repr(kw)), path], env=env, check=True
    )
    wall = time.perf_counter() - t0
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime


def peer(
    lib: str, x: np.ndarray, max_lag: int, kind: str, n_permutations: int = 200, fdr: bool = True
):
    _COUNT[0] += 1
    path = os.path.join(TMP, f"{lib}-{_COUNT[0]}.npy")
    np.save(path, x)
    args = [lib, path, str(max_lag), kind, str(n_permutations), "fdr" if fdr else "nofdr"]

    def fn() -> Measured:
        rec = _ask(args)
        edges = {tuple(e) for e in rec["edges"]}
        if rec.get("notes"):
            NOTES.update(f"{lib}: {n}" for n in rec["notes"])
        return Measured(rec["wall"], rec["cpu"], value=edges)

    fn.args = args  # type: ignore[attr-defined]
    return fn


def ours(x, **kw):
    def fn():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return im.infer_network(x, progress=False, **kw).edge_set()

    fn.cold = lambda: cold_ours(x, **kw)  # type: ignore[attr-defined]
    return fn


class GraphValue(tuple):
    """(graph, p_matrix), shown in the timing log as its link count."""

    def __str__(self) -> str:
        return f"{int((self[0] != '').sum())} graph entries"


def peer_graph(x: np.ndarray, max_lag: int, alpha: float):
    """Tigramite's run_pcmciplus (ParCorr, tau_min 0): its graph and p_matrix."""
    _COUNT[0] += 1
    path = os.path.join(TMP, f"plus-{_COUNT[0]}.npy")
    np.save(path, x)
    args = ["tigramite_pcmciplus", path, str(max_lag), "gaussian", str(round(alpha * 1000))]

    def fn() -> Measured:
        rec = _ask(args)
        value = GraphValue((np.array(rec["graph"]), np.array(rec["p_matrix"])))
        return Measured(rec["wall"], rec["cpu"], value=value)

    fn.args = args  # type: ignore[attr-defined]
    return fn


def ours_graph(x, **kw):
    def fn():
        net = im.infer_network(x, method="pcmciplus", progress=False, **kw)
        return GraphValue((net.graph, net.diagnostics["p_matrix"]))

    fn.cold = lambda: cold_ours(x, method="pcmciplus", **kw)  # type: ignore[attr-defined]
    return fn


def contemporaneous_scm(n: int, n_lagged: int, n_contemp: int, t: int, seed: int):
    """x_t = A0 x_t + A1 x_{t-1} + ... + e: autocorrelation 0.5-0.7 on every node, random
    cross links (coefficients ±0.3-0.5) at lags 1-2 and a random contemporaneous DAG."""
    rng = np.random.default_rng(seed)
    a = np.zeros((3, n, n))  # a[lag][target, source]
    a[1][np.diag_indices(n)] = rng.uniform(0.5, 0.7, n)
    truth = {(i, i, 1) for i in range(n)}
    pairs = [(i, j) for i in range(n) for j in range(n) if i != j]
    for k in rng.choice(len(pairs), n_lagged, replace=False):
        i, j = pairs[k]
        lag = int(rng.integers(1, 3))
        a[lag][j, i] = rng.choice([-1, 1]) * rng.uniform(0.3, 0.5)
        truth.add((i, j, lag))
    order = rng.permutation(n)  # contemporaneous DAG along a random causal order
    up = [(order[p], order[q]) for p in range(n) for q in range(p + 1, n)]
    for k in rng.choice(len(up), n_contemp, replace=False):
        i, j = up[k]
        a[0][j, i] = rng.choice([-1, 1]) * rng.uniform(0.3, 0.5)
        truth.add((int(i), int(j), 0))
    inv = np.linalg.inv(np.eye(n) - a[0])
    comp = np.zeros((2 * n, 2 * n))
    comp[:n, :n], comp[:n, n:], comp[n:, :n] = inv @ a[1], inv @ a[2], np.eye(n)
    radius = float(np.abs(np.linalg.eigvals(comp)).max())
    if radius >= 0.95:
        raise ValueError(f"seed={seed} draws a non-stationary system (radius {radius:.2f})")
    e = rng.normal(size=(t + 200, n))
    x = np.zeros((t + 200, n))
    for s in range(2, t + 200):
        x[s] = inv @ (a[1] @ x[s - 1] + a[2] @ x[s - 2] + e[s])
    return x[200:], truth


def pcmciplus_systems() -> list[tuple[str, np.ndarray, set, int]]:
    """The three PCMCI+ systems: (title, data, true links (i, j, lag), tau_max)."""
    rng = np.random.default_rng(0)
    e = rng.normal(size=(2100, 3))
    xr = np.zeros_like(e)
    for t in range(1, 2100):
        xr[t, 0] = 0.8 * xr[t - 1, 0] + e[t, 0]
        xr[t, 1] = 0.8 * xr[t - 1, 1] + 0.5 * xr[t, 0] + e[t, 1]
        xr[t, 2] = 0.8 * xr[t - 1, 2] - 0.5 * xr[t - 1, 1] + 0.4 * xr[t, 0] + e[t, 2]
    runge = {(0, 0, 1), (1, 1, 1), (2, 2, 1), (0, 1, 0), (0, 2, 0), (1, 2, 1)}
    return [
        ("Runge (2020) example, N = 2000, tau_max 2", xr[100:], runge, 2),
        (
            "8 nodes, 8 lagged + 6 contemporaneous links, N = 5000, tau_max 3",
            *contemporaneous_scm(8, 8, 6, 5000, seed=0),
            3,
        ),
        (
            "10 nodes, 12 lagged + 10 contemporaneous links, N = 1000, tau_max 2",
            *contemporaneous_scm(10, 12, 10, 1000, seed=9),
            2,
        ),
    ]


def plus_rows(name: str, timing, ref, truth: set, base) -> str:
    """One table row: links vs the true graph, agreement with Tigramite, time."""
    if timing.n == 0:
        return f"| {name} | {timing.error} | | | | | | |"
    g, p = timing.value
    found = {(int(i), int(j), int(k)) for i, j, k in zip(*np.nonzero(g != ""), strict=True)}
    pairs = lambda es: {(i, j, k) if k else (min(i, j), max(i, j), 0) for i, j, k in es}  # noqa: E731
    tp = len(pairs(found) & pairs(truth))
    contemp = [(i, j) for i, j, k in truth if k == 0]
    right = sum(g[i, j, 0] == "-->" for i, j in contemp)
    unor = sum(g[i, j, 0] == "o-o" for i, j in contemp)
    tg, tp_m = base.value
    links = {(i, j, k) for i, j, k in zip(*np.nonzero((g != "") | (tg != "")), strict=True)}
    agree = sum(g[i, j, k] == tg[i, j, k] for i, j, k in links)
    dp = float(np.max(np.abs(p - tp_m)))  # every (i, j, tau) entry of the p_matrix
    ratio = timing.stat("cpu", "min") / ref.stat("cpu", "min")
    wratio = timing.stat("wall", "min") / ref.stat("wall", "min")
    return (
        f"| {name} | {tp}/{len(pairs(truth))} | {len(pairs(found) - pairs(truth))} "
        f"| {right}/{len(contemp)} right, {unor} o-o | {agree}/{len(links)} | {dp:.1e} "
        f"| {timing.stat('wall', 'min'):.2f} | {timing.stat('cpu', 'min'):.2f} | {wratio:.1f}× "
        f"| {ratio:.1f}× |"
    )


def score(found: set, truth: set) -> str:
    tp = len(found & truth)
    prec = tp / len(found) if found else 1.0
    rec = tp / len(truth) if truth else 1.0
    pairs_f = {(s, t) for s, t, _ in found}
    pairs_t = {(s, t) for s, t, _ in truth}
    lag_ok = sum(1 for s, t, g in found if (s, t) in pairs_t and (s, t, g) in truth)
    pr = len(pairs_f & pairs_t)
    return f"{prec:.2f} | {rec:.2f} | {lag_ok}/{pr} | {len(found - truth)}"


def cold_start(fn) -> tuple[float, float] | None:
    """The cold-start (wall, CPU) of a contender: a fresh process running the job once."""
    if not COLD:
        return None
    if hasattr(fn, "args"):
        return cold(fn.args)
    if hasattr(fn, "cold"):
        return fn.cold()
    return None


def _cold_cells(c: tuple[float, float] | None) -> str:
    return f"{c[0]:.2f} | {c[1]:.2f}" if c else "– | –"


def recovery(run: Run, title: str, x, truth, contenders, lines: list[str]) -> None:
    print(f"## {title}", file=sys.stderr, flush=True)
    # every contender, peers included, gets an untimed warm-up in its own long-lived
    # process: the timed runs are the steady state
    cands = [Candidate(n, f) for n, f in contenders]
    res = interleave(cands, REPEATS, slow_s=90)
    colds = {n: cold_start(f) for n, f in contenders}
    lines.append(f"\n### {title}\n")
    lines.append(
        "| contender | precision | recall | lags right (of pairs found) | false edges "
        "| min wall s | min CPU s | runs | cold start wall s | cold start CPU s |"
    )
    lines.append("|---|---|---|---|---|---|---|---|---|---|")
    for name, t in res.items():
        if t.n == 0:
            lines.append(f"| {name} | {t.error} | | | | | | 0 | | |")
            continue
        lines.append(
            f"| {name} | {score(t.value, set(truth))} | {t.stat('wall', 'min'):.2f} "
            f"| {t.stat('cpu', 'min'):.2f} | {t.n} | {_cold_cells(colds[name])} |"
        )
    run.add(title, res, ref=contenders[0][0])
    run.sections[-1]["cold_start"] = colds


def main() -> None:
    run = Run(packages=("infometer",))
    lines: list[str] = []
    # 1. 5-node linear Gaussian VAR, lags 1-3, N = 2000
    if "var5" in SECTIONS:
        a, truth = simulate.random_var(5, 6, lags=(1, 2, 3), seed=11)
        x = simulate.var(a, 2000, seed=12)
        recovery(
            run,
            "5-node Gaussian VAR, lags 1-3, N = 2000, max_lag 3",
            x,
            truth,
            [
                ("infometer mte (gaussian)", ours(x, method="mte", max_lag=3, cmi="gaussian")),
                ("IDTxl mTE (JidtGaussianCMI)", peer("idtxl_mte", x, 3, "gaussian")),
                (
                    "infometer bivariate_te",
                    ours(x, method="bivariate_te", max_lag=3, cmi="gaussian"),
                ),
                ("IDTxl bivariate TE", peer("idtxl_bte", x, 3, "gaussian")),
                ("infometer pcmci (gaussian)", ours(x, method="pcmci", max_lag=3, cmi="gaussian")),
                ("Tigramite PCMCI (ParCorr, fdr_bh)", peer("tigramite_pcmci", x, 3, "gaussian")),
            ],
            lines,
        )
    # 2. random Boolean network, 5 nodes x 2 inputs, N = 2000
    if "boolean" in SECTIONS:
        xb, truth = simulate.boolean_network(5, 2, 2000, flip=0.05, seed=1)
        recovery(
            run,
            "Boolean network, 5 nodes x 2 inputs, 5% noise, N = 2000, max_lag 2",
            xb,
            truth,
            [
                ("infometer mte (plugin)", ours(xb, method="mte", max_lag=2)),
                ("IDTxl mTE (JidtDiscreteCMI)", peer("idtxl_mte", xb, 2, "discrete")),
            ],
            lines,
        )
    # 3. coupled logistic maps, binned to 4 symbols, N = 2000
    if "logistic" in SECTIONS:
        le = [(0, 1, 1), (1, 2, 1), (2, 3, 2), (3, 4, 1), (0, 4, 2)]
        xl = np.floor(simulate.logistic_network(5, le, 2000, seed=2) * 4).astype(np.int64)
        recovery(
            run,
            "coupled logistic maps (5 nodes, 4 symbols), N = 2000, max_lag 2",
            xl,
            le,
            [
                ("infometer mte (plugin)", ours(xl, method="mte", max_lag=2)),
                ("IDTxl mTE (JidtDiscreteCMI)", peer("idtxl_mte", xl, 2, "discrete")),
            ],
            lines,
        )
    # 4. calibration on null networks: 10 independent AR(1) nodes, N = 500, 5 seeds
    if "null" in SECTIONS:
        print("## null networks", file=sys.stderr, flush=True)
        fp = {
            "infometer mte": [0, 0],
            "IDTxl mTE": [0, 0],
            "infometer pcmci": [0, 0],
            "Tigramite PCMCI": [0, 0],
        }
        for seed in range(5):
            a0 = np.zeros((1, 10, 10))
            a0[0][np.diag_indices(10)] = 0.5
            x0 = simulate.var(a0, 500, seed=200 + seed)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                net = im.infer_network(
                    x0, max_lag=2, cmi="gaussian", correction="none", seed=seed, progress=False
                )
            fp["infometer mte"][0] += int(net.targets.significant.sum())
            fp["infometer mte"][1] += 10
            e = peer("idtxl_mte", x0, 2, "gaussian", fdr=False)().value
            fp["IDTxl mTE"][0] += len({t for _, t, _ in e})
            fp["IDTxl mTE"][1] += 10
            netp = im.infer_network(
                x0, method="pcmci", max_lag=2, cmi="gaussian", correction="none", progress=False
            )
            fp["infometer pcmci"][0] += len(netp.edges)
            fp["infometer pcmci"][1] += 10 * 9 * 2
            e = peer("tigramite_pcmci", x0, 2, "gaussian", fdr=False)().value
            fp["Tigramite PCMCI"][0] += len(e)
            fp["Tigramite PCMCI"][1] += 10 * 9 * 2
        lines.append(
            "\n### Null networks (10 independent AR(1), N = 500, 5 seeds, alpha 0.05, no FDR)\n"
        )
        lines.append(
            "| contender | unit | false positives / tests | rate | binomial 95% interval "
            "of the count at 0.05 |"
        )
        lines.append("|---|---|---|---|---|")
        for name, (k, n) in fp.items():
            lo, hi = stats.binom.ppf([0.025, 0.975], n, 0.05)
            unit = "targets with a parent" if "mte" in name.lower() else "cross links"
            lines.append(f"| {name} | {unit} | {k} / {n} | {k / n:.3f} | {int(lo)}–{int(hi)} |")
    # 5. speed: 10 nodes, N = 10^4, max_lag 5, Gaussian
    if "speed" in SECTIONS:
        a, truth = simulate.random_var(10, 12, lags=(1, 2, 3), seed=3)
        x = simulate.var(a, 10_000, seed=4)
        recovery(
            run,
            "10-node Gaussian VAR, N = 10^4, max_lag 5 (speed)",
            x,
            truth,
            [
                (
                    "infometer mte (gaussian, 1 process)",
                    ours(x, method="mte", max_lag=5, cmi="gaussian"),
                ),
                (
                    "infometer mte (gaussian, n_jobs=2)",
                    ours(x, method="mte", max_lag=5, cmi="gaussian", n_jobs=2),
                ),
                ("IDTxl mTE (JidtGaussianCMI)", peer("idtxl_mte", x, 5, "gaussian")),
                ("infometer pcmci (gaussian)", ours(x, method="pcmci", max_lag=5, cmi="gaussian")),
                ("Tigramite PCMCI (ParCorr)", peer("tigramite_pcmci", x, 5, "gaussian")),
            ],
            lines,
        )
    # 6. KSG: 3 coupled logistic maps, N = 1000, max_lag 1, 50 permutations
    if "ksg" in SECTIONS:
        ke = [(0, 1, 1), (1, 2, 1)]
        xk = simulate.logistic_network(3, ke, 1000, seed=2)
        recovery(
            run,
            "KSG CMI: 3 logistic maps, N = 1000, max_lag 1, 50 permutations",
            xk,
            ke,
            [
                (
                    "infometer mte (ksg1, k=4)",
                    ours(
                        xk,
                        method="mte",
                        max_lag=1,
                        cmi="ksg1",
                        n_permutations=50,
                        n_permutations_omnibus=50,
                        k=4,
                    ),
                ),
                ("IDTxl mTE (JidtKraskovCMI, k=4, 1 thread)", peer("idtxl_mte", xk, 1, "ksg", 50)),
            ],
            lines,
        )
    # 7. PCMCI+ with contemporaneous links, against Tigramite's run_pcmciplus (ParCorr)
    if "pcmciplus" in SECTIONS:
        systems = pcmciplus_systems()
        lines.append(
            "\n### PCMCI+ (tau_min 0, alpha = pc_alpha 0.01, ParCorr / gaussian)\n\n"
            "| system / contender | true links found | false links | contemporaneous "
            "orientation | same mark as Tigramite | max abs p difference (all entries) "
            "| min wall s "
            "| min CPU s | wall ratio | CPU ratio |\n|---|---|---|---|---|---|---|---|---|---|"
        )
        plus_cold: list = []
        for title, xs, truth, tau in systems:
            print(f"## {title}", file=sys.stderr, flush=True)
            cands = [
                Candidate(
                    "infometer pcmciplus (gaussian)", ours_graph(xs, max_lag=tau, alpha=0.01)
                ),
                Candidate("Tigramite run_pcmciplus (ParCorr)", peer_graph(xs, tau, 0.01)),
            ]
            res = interleave(cands, REPEATS, slow_s=300)
            colds = {c.name: cold_start(c.fn) for c in cands}
            plus_cold.append((title, colds[cands[0].name], colds[cands[1].name]))
            lines.append(f"| **{title}** | | | | | | | | | |")
            ref = res["infometer pcmciplus (gaussian)"]
            base = res["Tigramite run_pcmciplus (ParCorr)"]
            for name, t in res.items():
                lines.append(plus_rows(name, t, ref, truth, base))
            run.add(title, res, ref="infometer pcmciplus (gaussian)")
        if COLD:
            lines.append(
                "\n**Cold start** (a fresh process running the job once: interpreter, imports, "
                "numba / caches; wall s, CPU s):\n\n| system | infometer wall | infometer CPU "
                "| Tigramite wall | Tigramite CPU |\n|---|---|---|---|---|"
            )
            for title, a, b in plus_cold:
                lines.append(f"| {title} | {_cold_cells(a)} | {_cold_cells(b)} |")
        # null networks: 10 independent AR(1), N = 500, 5 seeds, alpha 0.05
        print("## PCMCI+ null networks", file=sys.stderr, flush=True)
        fp = {"infometer pcmciplus": [0, 0, 0], "Tigramite run_pcmciplus": [0, 0, 0]}
        for seed in range(5):
            a0 = np.zeros((1, 10, 10))
            a0[0][np.diag_indices(10)] = 0.5
            x0 = simulate.var(a0, 500, seed=300 + seed)
            for name, fn in (
                ("infometer pcmciplus", ours_graph(x0, max_lag=2, alpha=0.05)),
                ("Tigramite run_pcmciplus", peer_graph(x0, 2, 0.05)),
            ):
                out = fn()
                g = (out.value if isinstance(out, Measured) else out)[0]
                off = ~np.eye(10, dtype=bool)
                fp[name][0] += int((g[:, :, 1:] != "")[off].sum())
                fp[name][1] += int(np.triu(g[:, :, 0] != "", 1).sum())
                fp[name][2] += 1
        lines.append(
            "\n**PCMCI+ on null networks** (10 independent AR(1), phi 0.5, N = 500, tau_max 2, "
            "alpha 0.05, 5 seeds):\n\n| contender | false lagged links / 900 | false "
            "contemporaneous pairs / 225 | binomial 95% interval at 0.05 (lagged; contemp.) |"
            "\n|---|---|---|---|"
        )
        lo1, hi1 = stats.binom.ppf([0.025, 0.975], 900, 0.05)
        lo0, hi0 = stats.binom.ppf([0.025, 0.975], 225, 0.05)
        for name, (k1, k0, _) in fp.items():
            lines.append(f"| {name} | {k1} | {k0} | {int(lo1)}–{int(hi1)}; {int(lo0)}–{int(hi0)} |")
    run.finish()
    if NOTES:
        lines.append("\nNotes: " + "; ".join(sorted(NOTES)) + ".")
    head = run.header()
    text = "## Network inference (issue 25)\n\n" + head + "\n" + "\n".join(lines) + "\n"
    print(text)
    tag = "" if len(SECTIONS) == 7 else "-" + "-".join(sorted(SECTIONS))
    with open(os.path.join(OUT, f"networks{tag}.json"), "w") as fh:
        json.dump({"meta": run.meta, "sections": run.sections}, fh, indent=1, default=str)
    with open(os.path.join(OUT, f"networks{tag}.raw.md"), "w") as fh:
        fh.write(text)


if __name__ == "__main__":
    main()
