"""Network inference against IDTxl and Tigramite on the same simulated systems.

Recovery (precision, recall, lags right), false-positive rate on null networks (with its
binomial 95% interval) and wall / CPU time (interleaved runs, ``benchmarks/_timing.py``).
The peers run in their own virtual environment (``PEERS_PY``, default
``/work/peers-25/bin/python``: ``pip install idtxl-uv tigramite joblib``, mpi4py removed)
through ``benchmarks/peers/_networks_peer.py``; data go through .npy files.

Run from the repository root:
    OPENBLAS_NUM_THREADS=1 PYTHONPATH=src .venv/bin/python benchmarks/peers/networks.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np
from scipy import stats

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from _timing import Candidate, Measured, Run, interleave  # noqa: E402

import infometer as im  # noqa: E402
from infometer.dynamics import simulate  # noqa: E402

PEERS_PY = os.environ.get("PEERS_PY", "/work/peers-25/bin/python")
PEER = os.path.join(os.path.dirname(__file__), "_networks_peer.py")
TMP = tempfile.mkdtemp(prefix="im-networks-")
OUT = os.path.join(os.path.dirname(__file__), "..", "results")
REPEATS = int(os.environ.get("REPEATS", "3"))
#: Comma-separated subset of var5, boolean, logistic, null, speed, ksg (default: all).
SECTIONS = set(filter(None, os.environ.get("SECTIONS", "").split(","))) or {
    "var5",
    "boolean",
    "logistic",
    "null",
    "speed",
    "ksg",
}


_COUNT = [0]
NOTES: set[str] = set()


def peer(lib: str, x: np.ndarray, max_lag: int, kind: str, n_perm: int = 200, fdr: bool = True):
    _COUNT[0] += 1
    path = os.path.join(TMP, f"{lib}-{_COUNT[0]}.npy")
    np.save(path, x)

    def fn() -> Measured:
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        env.pop("PYTHONPATH", None)
        out = subprocess.run(
            [PEERS_PY, PEER, lib, path, str(max_lag), kind, str(n_perm), "fdr" if fdr else "nofdr"],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        rec = json.loads(out.stdout.strip().splitlines()[-1])
        edges = {tuple(e) for e in rec["edges"]}
        if rec.get("notes"):
            NOTES.update(f"{lib}: {n}" for n in rec["notes"])
        return Measured(rec["wall"], rec["cpu"], value=edges)

    return fn


def ours(x, **kw):
    def fn():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return im.infer_network(x, progress=False, **kw).edge_set()

    return fn


def score(found: set, truth: set) -> str:
    tp = len(found & truth)
    prec = tp / len(found) if found else 1.0
    rec = tp / len(truth) if truth else 1.0
    pairs_f = {(s, t) for s, t, _ in found}
    pairs_t = {(s, t) for s, t, _ in truth}
    lag_ok = sum(1 for s, t, g in found if (s, t) in pairs_t and (s, t, g) in truth)
    pr = len(pairs_f & pairs_t)
    return f"{prec:.2f} | {rec:.2f} | {lag_ok}/{pr} | {len(found - truth)}"


def recovery(run: Run, title: str, x, truth, contenders, lines: list[str]) -> None:
    print(f"## {title}", file=sys.stderr, flush=True)
    # peers time themselves in a fresh process: no warm-up run needed
    cands = [
        Candidate(n, f, warmup=not n.startswith(("IDTxl", "Tigramite"))) for n, f in contenders
    ]
    res = interleave(cands, REPEATS, slow_s=90)
    lines.append(f"\n### {title}\n")
    lines.append(
        "| contender | precision | recall | lags right (of pairs found) | false edges "
        "| min wall s | min CPU s | runs |"
    )
    lines.append("|---|---|---|---|---|---|---|---|")
    for name, t in res.items():
        if t.n == 0:
            lines.append(f"| {name} | {t.error} | | | | | | 0 |")
            continue
        lines.append(
            f"| {name} | {score(t.value, set(truth))} | {t.stat('wall', 'min'):.2f} "
            f"| {t.stat('cpu', 'min'):.2f} | {t.n} |"
        )
    run.add(title, res, ref=contenders[0][0])


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
                    x0, max_lag=2, cmi="gaussian", fdr=False, seed=seed, progress=False
                )
            fp["infometer mte"][0] += int(net.targets.significant.sum())
            fp["infometer mte"][1] += 10
            e = peer("idtxl_mte", x0, 2, "gaussian", fdr=False)().value
            fp["IDTxl mTE"][0] += len({t for _, t, _ in e})
            fp["IDTxl mTE"][1] += 10
            netp = im.infer_network(
                x0, method="pcmci", max_lag=2, cmi="gaussian", fdr=False, progress=False
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
                        xk, method="mte", max_lag=1, cmi="ksg1", n_perm=50, n_perm_omnibus=50, k=4
                    ),
                ),
                ("IDTxl mTE (JidtKraskovCMI, k=4, 1 thread)", peer("idtxl_mte", xk, 1, "ksg", 50)),
            ],
            lines,
        )
    run.finish()
    if NOTES:
        lines.append("\nNotes: " + "; ".join(sorted(NOTES)) + ".")
    head = run.header()
    text = "## Network inference (issue 25)\n\n" + head + "\n" + "\n".join(lines) + "\n"
    print(text)
    tag = "" if len(SECTIONS) == 6 else "-" + "-".join(sorted(SECTIONS))
    with open(os.path.join(OUT, f"networks{tag}.json"), "w") as fh:
        json.dump({"meta": run.meta, "sections": run.sections}, fh, indent=1, default=str)
    with open(os.path.join(OUT, f"networks{tag}.raw.md"), "w") as fh:
        fh.write(text)


if __name__ == "__main__":
    main()
