"""CLIB on generated multi-view Gaussian mixtures with one corrupted view: the ablation
ladder as ACC / NMI / ECE on held-out samples over 3 seeds.

Three views of a 5-cluster mixture (20 dims each); the third view is pure noise.  Each
seed draws a new mixture, fits on 600 samples and evaluates on 600 others.  Rungs:

* ``ib_head``: the IB objective (per-view compression, cross-view InfoNCE, fusion) and a
  clustering head trained on warm-started k-means labels of the fused code;
* ``re``: + L_re, the anti-collapse term on the head's mean prediction;
* ``calibration``: + per-view calibration heads on stop-gradient codes (L_caliH, L_con)
  whose pseudo-labels (all samples) also train the head;
* ``full``: + information-redundancy selection of those pseudo-labels (K_m = ⌊Σ S⌋).

Context rows: k-means on the concatenated standardised views (no learning) and the full
model fitted without the corrupted view.  Writes
``clib_ladder.csv`` (every seed) and ``clib_ladder.png`` (ACC / NMI / ECE per rung, mean
and every seed) and prints mean ± sd per rung, the selection counts K_m
per view on held-out and (clean views averaged) on training rows, and the noise view's
fusion weight.

    python examples/probes_clib.py [OUT_DIR]
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch
from sklearn.cluster import KMeans

from infometer.systems.probes import clib


def main(out: Path, seeds: tuple[int, ...] = (0, 1, 2)) -> pd.DataFrame:
    torch.set_num_threads(1)  # small MLPs: a second thread only spins
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    t0 = time.process_time()
    for seed in seeds:
        views, y = clib.make_multiview(
            1200, 5, (20, 20, 20), noise=(3.0, 3.5, 1.0), corrupted=[2], seed=seed
        )
        tr, te = [v[:600] for v in views], [v[600:] for v in views]
        ytr, yte = y[:600], y[600:]
        cat = np.hstack(views)
        cat = (cat - cat[:600].mean(0)) / cat[:600].std(0)
        km = KMeans(5, n_init=10, random_state=seed).fit(cat[:600])
        pred = km.predict(cat[600:])
        rows.append(
            {
                "rung": "k-means (raw views)",
                "seed": seed,
                "acc": clib.cluster_accuracy(yte, pred),
                "nmi": clib.nmi(yte, pred),
            }
        )
        for rung in clib.ABLATIONS:
            m = clib.CLIB(5, ablation=rung, warmup_epochs=60, epochs=60, seed=seed).fit(tr)
            ev = m.evaluate(te, yte)
            k = m.selection_counts(te)
            k_tr = m.selection_counts(tr)
            rows.append(
                {
                    "rung": rung,
                    "seed": seed,
                    **ev,
                    "K_view1": k[0],
                    "K_view2": k[1],
                    "K_noise": k[2],
                    "K_clean_train": (k_tr[0] + k_tr[1]) / 2,
                    "K_noise_train": k_tr[2],
                    "w_noise": float(m.fusion_weights[2]),
                    "train_acc": m.evaluate(tr, ytr)["acc"],
                }
            )
            print(f"seed {seed} {rung:12s} {ev} K={k}", flush=True)
        # context: the full model without the corrupted view
        m = clib.CLIB(5, ablation="full", warmup_epochs=60, epochs=60, seed=seed).fit(tr[:2])
        rows.append(
            {
                "rung": "full, clean views only",
                "seed": seed,
                **m.evaluate(te[:2], yte),
                "train_acc": m.evaluate(tr[:2], ytr)["acc"],
            }
        )
    table = pd.DataFrame(rows)
    table.to_csv(out / "clib_ladder.csv", index=False)
    plot_ladder(table, out / "clib_ladder.png")
    summary = table.groupby("rung", sort=False).agg(["mean", "std"])
    pd.set_option("display.width", 200)
    cols = [
        "acc",
        "nmi",
        "ece",
        "K_view1",
        "K_view2",
        "K_noise",
        "K_clean_train",
        "K_noise_train",
        "w_noise",
        "train_acc",
    ]
    print(summary[cols].round(3).to_string())
    print(f"CPU {time.process_time() - t0:.0f} s, load {os.getloadavg()[0]:.1f}")
    return table


def plot_ladder(table: pd.DataFrame, path: Path) -> Path:
    """ACC, NMI and ECE per rung: bars at the mean over seeds, one dot per seed."""
    from infometer.core.plot import _pyplot, _save

    plt = _pyplot()
    rungs = list(dict.fromkeys(table["rung"]))
    fig, axes = plt.subplots(1, 3, figsize=(11, 3.6), dpi=110, sharey=False)
    for ax, metric in zip(axes, ("acc", "nmi", "ece"), strict=True):
        for i, r in enumerate(rungs):
            v = table.loc[table["rung"] == r, metric].dropna().to_numpy()
            if v.size == 0:  # k-means has no probabilities, so no ECE
                continue
            ax.bar(i, v.mean(), color="C1" if r.startswith("full") else "C0", alpha=0.6)
            ax.plot(np.full(v.size, i), v, "k.", ms=5)
        ax.set_xticks(range(len(rungs)), rungs, rotation=35, ha="right", fontsize=8)
        ax.set_title(metric.upper() + (" (lower is better)" if metric == "ece" else ""))
    fig.suptitle("CLIB ablation ladder, held-out samples (bars: mean of seeds; dots: seeds)")
    return _save(fig, path)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("examples-out"))
