"""Network-wide false-positive rate on null networks for each ``correction=`` (issue 38 §1),
beside IDTxl's and Tigramite's rules.

Null networks: 5 independent series, N = 500, (a) Gaussian white noise, (b) independent
AR(1) with φ = 0.7; max_lag 3, Gaussian CMI, at least 200 permutations and enough that the
smallest p-value, 1/(B+1), reaches the smallest threshold of the rule: α/5 (the per-target
level of ``"fwer"``, BH's first threshold), α/(5·c(5)) for BY (c(5) = Σ 1/i = 2.28); the
IDTxl runs get the same B as BY, their rule.  A network counts as a
false positive when any edge is declared (every edge is false).  For each contender and
level alpha the share of networks with a false edge and its Clopper–Pearson 95% interval.

Contenders: infometer ``mte`` and ``pcmci`` with ``correction`` in fdr_bh, fdr_by, fwer,
none; IDTxl's multivariate TE with its defaults (every test at alpha, FDR over every target
with the Benjamini–Yekutieli constant: ``fdr_constant=2``); Tigramite's ``run_pcmci``
(ParCorr, pc_alpha 0.2) with ``get_corrected_pvalues(fdr_method="fdr_bh")`` and without.
The peers run in their own interpreters (``IDTXL_PY``, ``TIGRAMITE_PY``; default the venvs
``/work/peers/idtxl`` = ``pip install idtxl-uv jpype1`` with mpi4py removed, and
``/work/peers/tigramite`` = ``pip install tigramite joblib``) through
``_calibration_peer.py``; a peer that is missing or fails is recorded, not fatal.

Results go to ``benchmarks/results/networks_calibration-{ours,peers}.json`` (resumed: a finished
contender x process x alpha is not re-run), the table to stdout (pasted into
benchmarks/results/networks.md) and the figure to docs/img/network_fpr.png.

Run from the repository root (``ours`` / ``peers`` run one half):
    OPENBLAS_NUM_THREADS=1 PYTHONPATH=src .venv/bin/python \
        benchmarks/accuracy/networks_calibration.py
(``NETS=200 PEER_NETS=100`` by default, IDTxl at alpha 0.05 and 0.1 only; ``PLOT_ONLY=1``
redraws from the JSON; the two halves ``ours`` and ``peers`` may run at once, each writes
its own JSON.)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
from scipy import stats

import infometer as im
from infometer.measures.dynamics import simulate

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "benchmarks", "results", "networks_calibration-{half}.json")
PNG = os.path.join(ROOT, "docs", "img", "network_fpr.png")
NETS = int(os.environ.get("NETS", "200"))
PEER_NETS = int(os.environ.get("PEER_NETS", "100"))
ALPHAS = (0.01, 0.05, 0.1)
IDTXL_ALPHAS = (0.05, 0.1)
TOP = 0.5  # the figure's y range; rates above it are written at the top edge
N, D, MAX_LAG, B = 500, 5, 3, 200
PEERS = {
    "IDTxl mTE (FDR, BY constant)": (
        "idtxl_mte",
        os.environ.get("IDTXL_PY", "/work/peers/idtxl/bin/python"),
    ),
    "Tigramite PCMCI + fdr_bh": (
        "tigramite_pcmci_bh",
        os.environ.get("TIGRAMITE_PY", "/work/peers/tigramite/bin/python"),
    ),
    "Tigramite PCMCI (none)": (
        "tigramite_pcmci_none",
        os.environ.get("TIGRAMITE_PY", "/work/peers/tigramite/bin/python"),
    ),
}
CORRECTIONS = ("fdr_bh", "fdr_by", "fwer", "none")


def networks(kind: str, count: int) -> np.ndarray:
    """(count, N, D) null networks, fixed seeds."""
    out = np.empty((count, N, D))
    for k in range(count):
        if kind == "white":
            out[k] = np.random.default_rng(1000 + k).normal(size=(N, D))
        else:
            a = np.zeros((1, D, D))
            a[0][np.diag_indices(D)] = 0.7
            out[k] = simulate.var(a, N, seed=5000 + k)
    return out


def load(half: str) -> dict:
    path = OUT.format(half=half)
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    return {"runs": {}, "failures": {}, "half": half}


def save(doc: dict) -> None:
    with open(OUT.format(half=doc["half"]), "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)


def run_ours(doc: dict) -> None:
    warnings.simplefilter("ignore")
    for kind in ("white", "ar1"):
        stack = networks(kind, NETS)
        for method in ("mte", "pcmci"):
            for corr in CORRECTIONS:
                for a in ALPHAS:
                    key = f"infometer {method} {corr}|{kind}|{a}"
                    if key in doc["runs"]:
                        continue
                    t0 = time.process_time()
                    c = np.sum(1.0 / np.arange(1, D + 1)) if corr == "fdr_by" else 1.0
                    perms = max(B, int(np.ceil(D * c / a)))
                    hits = []
                    for k, x in enumerate(stack):
                        net = im.infer_network(
                            x,
                            method=method,
                            max_lag=MAX_LAG,
                            cmi="gaussian",
                            alpha=a,
                            correction=corr,
                            n_permutations=perms,
                            n_permutations_omnibus=perms,
                            seed=k,
                            progress=False,
                        )
                        hits.append(len(net.edges))
                    doc["runs"][key] = {"edges": hits, "cpu_s": time.process_time() - t0}
                    save(doc)
                    print(key, sum(h > 0 for h in hits), "/", len(hits), flush=True)


def run_peers(doc: dict) -> None:
    tmp = tempfile.mkdtemp(prefix="im-calib-")
    for kind in ("white", "ar1"):
        path = os.path.join(tmp, f"{kind}.npy")
        np.save(path, networks(kind, PEER_NETS))
        for name, (lib, py) in PEERS.items():
            # IDTxl (JIDT, B up to 1142 at alpha = 0.01) is too slow for the smallest level
            levels = ALPHAS if "IDTxl" not in name else IDTXL_ALPHAS
            todo = [a for a in levels if f"{name}|{kind}|{a}" not in doc["runs"]]
            if not todo:
                continue
            if not os.path.exists(py):
                doc["failures"][name] = f"interpreter {py} not found"
                continue
            env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
            env.pop("PYTHONPATH", None)
            t0 = time.time()
            proc = subprocess.run(
                [py, os.path.join(HERE, "_calibration_peer.py"), lib, path, str(MAX_LAG), str(B)]
                + [",".join(map(str, todo))],
                capture_output=True,
                text=True,
                env=env,
            )
            recs = [json.loads(s) for s in proc.stdout.splitlines() if s.startswith("{")]
            if proc.returncode != 0 or not recs:
                doc["failures"][f"{name}|{kind}"] = proc.stderr[-2000:]
                save(doc)
                continue
            for a in todo:
                hits = [r["edges"] for r in sorted(recs, key=lambda r: r["net"]) if r["alpha"] == a]
                doc["runs"][f"{name}|{kind}|{a}"] = {"edges": hits, "wall_s": time.time() - t0}
            save(doc)
            print(name, kind, "done", flush=True)


def summary(doc: dict) -> list[tuple]:
    rows = []
    for key, rec in sorted(doc["runs"].items()):
        name, kind, a = key.split("|")
        hits = np.asarray(rec["edges"])
        k, n = int((hits > 0).sum()), hits.size
        lo = stats.beta.ppf(0.025, k, n - k + 1) if k else 0.0
        hi = stats.beta.ppf(0.975, k + 1, n - k) if k < n else 1.0
        rows.append((name, kind, float(a), k, n, k / n, lo, hi))
    return rows


def table(rows: list[tuple]) -> str:
    lines = [
        "| contender | process | alpha | networks with a false edge | rate | 95% interval |",
        "|---|---|---|---|---|---|",
    ]
    for name, kind, a, k, n, r, lo, hi in sorted(rows, key=lambda t: (t[1], t[0], t[2])):
        proc = "white noise" if kind == "white" else "AR(1) φ=0.7"
        lines.append(f"| {name} | {proc} | {a:g} | {k} / {n} | {r:.3f} | {lo:.3f}–{hi:.3f} |")
    return "\n".join(lines)


def plot(rows: list[tuple]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = sorted({r[0] for r in rows})
    fig, axes = plt.subplots(1, 2, figsize=(11, 5.2), sharey=True)
    style = {
        "fdr_bh": ("tab:blue", "o"),
        "fdr_by": ("tab:cyan", "s"),
        "fwer": ("tab:green", "D"),
        "none": ("tab:red", "v"),
    }
    handles: dict = {}
    for ax, kind, title in zip(
        axes, ("white", "ar1"), ("white noise", "independent AR(1), φ = 0.7"), strict=True
    ):
        (h,) = ax.plot(ALPHAS, ALPHAS, "k:", lw=1.2)
        handles["rate = α"] = h
        for j, name in enumerate(names):
            pts = sorted((r for r in rows if r[0] == name and r[1] == kind), key=lambda r: r[2])
            if not pts:
                continue
            a = np.array([p[2] for p in pts]) + 0.0012 * (j - len(names) / 2)
            y = np.array([p[5] for p in pts])
            err = np.array([[p[5] - p[6] for p in pts], [p[7] - p[5] for p in pts]])
            if name.startswith("infometer"):
                meth, corr = name.split()[1:3]
                color, marker = style[corr]
                ls = "-" if meth == "mte" else "--"
                label = f"infometer {meth}, correction={corr!r}"
            else:
                color = "0.2" if "IDTxl" in name else ("0.45" if "bh" in name else "0.7")
                marker = "X" if "IDTxl" in name else ("P" if "bh" in name else "*")
                ls = ":"
                label = name
            h = ax.errorbar(
                a, y, yerr=err, color=color, marker=marker, ls=ls, lw=1.3, ms=6, capsize=2
            )
            handles[label] = h
            for ai, yi in zip(a, y, strict=True):  # off the clipped scale: say where
                if yi > TOP:
                    ax.annotate(
                        f"{yi:.2f}",
                        (ai, TOP),
                        xytext=(0, -12),
                        textcoords="offset points",
                        ha="center",
                        fontsize=7,
                        color=color,
                        arrowprops={"arrowstyle": "->", "color": color, "lw": 0.8},
                    )
        ax.set_xticks(ALPHAS, [str(a) for a in ALPHAS])
        ax.set_xlim(0, 0.11)
        ax.set_ylim(0, TOP)
        ax.set_xlabel("α (level of the network's correction)")
        ax.set_title(f"{title}: 5 series, N = {N}, max_lag {MAX_LAG}", fontsize=10)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("share of null networks with ≥ 1 false edge (95% CI)")
    fig.legend(
        list(handles.values()),
        list(handles),
        loc="lower center",
        ncol=3,
        fontsize=8,
        frameon=False,
    )
    fig.suptitle(
        "Network-wide false-positive rate on null networks (mTE solid, PCMCI dashed, peers dotted)",
        fontsize=11,
    )
    fig.tight_layout(rect=(0, 0.17, 1, 1))
    fig.savefig(PNG, dpi=130)
    print("wrote", PNG)


def main() -> None:
    ours, peers = load("ours"), load("peers")
    if not os.environ.get("PLOT_ONLY"):
        if len(sys.argv) < 2 or sys.argv[1] in ("all", "ours"):
            run_ours(ours)
        if len(sys.argv) < 2 or sys.argv[1] in ("all", "peers"):
            run_peers(peers)
    doc = {
        "runs": {**ours["runs"], **peers["runs"]},
        "failures": {**ours["failures"], **peers["failures"]},
    }
    rows = summary(doc)
    print(table(rows))
    for k, v in doc["failures"].items():
        print(f"failure: {k}: {v[-300:]}")
    plot(rows)


if __name__ == "__main__":
    main()
