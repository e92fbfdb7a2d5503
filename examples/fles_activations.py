"""FleS against GELU and SiLU in a small Transformer, and the information through its gates.

Two CPU-sized tasks, a 2-layer PatchTransformer (d_model 32, MLP 128, 2 heads):

* digits: scikit-learn's bundled 8×8 digits as 16 tokens of 2×2 patches, 10 classes;
* context: synthetic sequences whose label (does the query token's prototype recur among
  the other 15 tokens?) lies in the relation between tokens, 2 classes.

For every activation (GELU, SiLU, FleS-Proto, FleS, FleS-DG, FleS-P&N) and seed: train
through ``infometer.core.training.run_epochs`` (AdamW, cosine decay), then measure

* test accuracy in evaluation mode (running cue), and with class-sorted test batches in
  training mode (batch statistics: the paper's shuffled-batch sensitivity, in reverse);
* I(X;T_l) and I(T_l;Y) per layer (``im.layer_info``, matrix-based Rényi MI, bits) and the
  bits each gate adds over GELU, paired by seed;
* the entropy of the binned gate values among the top decile of pre-activations;
* (seed 0) the dependence of a sample's output on its batch-mates, I(Δ_s; C) in bits.

Writes ``fles_activations.png``, ``fles_runs.csv``, ``fles_layers.csv``,
``fles_results.json`` and ``fles_table.md`` (the table of benchmarks/results/activations.md).

Run:  python examples/fles_activations.py [OUT_DIR] [--quick] [--seeds 5]
"""

from __future__ import annotations

import warnings

import numpy as np
from _common import finish, start

KINDS = ("gelu", "silu", "fles_proto", "fles", "fles_dg", "fles_pn")
LABELS = {
    "gelu": "GELU",
    "silu": "SiLU",
    "fles_proto": "FleS-Proto",
    "fles": "FleS",
    "fles_dg": "FleS-DG",
    "fles_pn": "FleS-P&N",
}


def _args(ap) -> None:
    ap.add_argument("--seeds", type=int, default=5, help="seeds per activation (>= 2)")


def sorted_batch_accuracy(net, x, y, batch_size=64) -> float:
    """Accuracy in training mode (batch statistics) on class-sorted test batches."""
    import copy

    import torch

    work = copy.deepcopy(net).train()
    order = np.argsort(y, kind="stable")
    xt = torch.as_tensor(x[order])
    with torch.no_grad():
        pred = np.concatenate(
            [work(xt[i : i + batch_size]).argmax(1).numpy() for i in range(0, len(y), batch_size)]
        )
    return float((pred == y[order]).mean())


def main() -> None:
    args, plt, out, t0 = start(__doc__, _args)
    import pandas as pd

    from infometer.core.progress import progress_bar
    from infometer.systems.models.activations import swap_activations
    from infometer.systems.models.activations.information import (
        batch_dependence,
        gate_bits,
        gate_entropy,
        layer_curves,
    )
    from infometer.systems.models.activations.nets import PatchTransformer
    from infometer.systems.models.activations.tasks import (
        accuracy,
        context_task,
        digits_patches,
        split,
        train_classifier,
    )

    seeds = 2 if args.quick else max(2, args.seeds)
    tasks = {
        # (data, classes, epochs, batch size, learning rate)
        "digits": (digits_patches(), 10, 3 if args.quick else 15, 64, 3e-3),
        "context": (
            context_task(600 if args.quick else 3000, seed=0),
            2,
            3 if args.quick else 20,
            128,
            5e-3,
        ),
    }
    runs, layer_frames, entropies, deps = [], [], [], []
    bar = progress_bar(total=len(tasks) * len(KINDS) * seeds, desc="train + measure", unit="run")
    for task, ((x, y), n_classes, epochs, batch, lr) in tasks.items():
        xtr, ytr, xte, yte = split(x, y, test_fraction=0.3, seed=0)
        for kind in KINDS:
            for seed in range(seeds):
                net = PatchTransformer(4, 16, n_classes, d_model=32, n_layers=2, seed=seed)
                swap_activations(net, kind, seed=seed)
                log = train_classifier(
                    net, xtr, ytr, epochs=epochs, batch_size=batch, lr=lr, seed=seed
                )
                alphas = [
                    float(p.detach().abs().max())
                    for n_, p in net.named_parameters()
                    if n_.endswith(("alpha_ve", "alpha_ho"))
                ]
                row = {
                    "task": task,
                    "kind": kind,
                    "seed": seed,
                    "train_accuracy": log[-1]["accuracy"],
                    "accuracy": accuracy(net, xte, yte),
                    "sorted_batch_accuracy": sorted_batch_accuracy(net, xte, yte),
                    "proto_alpha_abs_max": max(alphas) if alphas else float("nan"),
                }
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # digits pixels take 17 values: noted once
                    lc = layer_curves(
                        net, xte, yte, max_rows=400 if args.quick else 500, seed=0, unit="bits"
                    )
                layer_frames.append(lc.assign(task=task, model=kind, seed=seed))
                ge = gate_entropy(net, xte, unit="bits")
                entropies.append(ge.assign(task=task, model=kind, seed=seed))
                if seed == 0:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")  # kNN tie jitter on exact zeros
                        bd = batch_dependence(
                            net, xte, yte, n_probe=8 if args.quick else 16, unit="bits"
                        )
                    deps.append(
                        {
                            "task": task,
                            "kind": kind,
                            "bits": bd.value,
                            "ceiling": bd.diagnostics["ceiling"],
                            "mean_abs_change": bd.diagnostics["mean_abs_change"],
                            "flip_rate": bd.diagnostics["flip_rate"],
                        }
                    )
                runs.append(row)
                bar.update(1)
    bar.close()

    runs_df = pd.DataFrame(runs)
    layers_df = pd.concat(layer_frames, ignore_index=True).drop(columns=["ci"])
    ent_df = pd.concat(entropies, ignore_index=True)
    dep_df = pd.DataFrame(deps)
    runs_df.to_csv(out / "fles_runs.csv", index=False)
    layers_df.to_csv(out / "fles_layers.csv", index=False)
    ent_df.to_csv(out / "fles_gate_entropy.csv", index=False)

    # ---- the table
    lines = [
        "| task | activation | test acc. (mean ± se) | Δ acc. vs GELU | sorted-batch acc. "
        "| ΔI(T;Y) last block vs GELU [bits] | gate entropy top-decile [bits] "
        "| κ_ho at eval | batch dependence [bits] (flip rate) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    summary: dict = {"seeds": seeds, "tasks": {}}
    for task in tasks:
        r = runs_df[runs_df.task == task]
        base = r[r.kind == "gelu"].set_index("seed")["accuracy"]
        frames = {k: layers_df[(layers_df.task == task) & (layers_df.model == k)] for k in KINDS}
        gb = gate_bits(frames, baseline="gelu")
        last = layers_df[layers_df.task == task]["layer"].iloc[-1]
        summary["tasks"][task] = {}
        for kind in KINDS:
            a = r[r.kind == kind].set_index("seed")
            acc, se = a["accuracy"].mean(), a["accuracy"].std(ddof=1) / np.sqrt(len(a))
            d = a["accuracy"] - base
            dm, dse = d.mean(), d.std(ddof=1) / np.sqrt(len(d))
            srt = a["sorted_batch_accuracy"].mean()
            gi = gb[(gb.model == kind) & (gb.layer == last)]
            gtxt = "—" if gi.empty else f"{gi.delta.iloc[0]:+.3f} ± {gi.stderr.iloc[0]:.3f}"
            ek = ent_df[(ent_df.task == task) & (ent_df.model == kind)]
            e, kho = ek["entropy"].mean(), ek["kappa_ho"].mean()
            ktxt = "—" if np.isnan(kho) else f"{kho:.3f}"
            dep = dep_df[(dep_df.task == task) & (dep_df.kind == kind)].iloc[0]
            dtxt = "—" if kind == "gelu" else f"{dm * 100:+.1f} ± {dse * 100:.1f}"
            lines.append(
                f"| {task} | {LABELS[kind]} | {acc * 100:.1f} ± {se * 100:.1f} | {dtxt} | "
                f"{srt * 100:.1f} | {gtxt} | {e:.2f} | {ktxt} | "
                f"{dep.bits:.2f} ({dep.flip_rate:.3f}) |"
            )
            summary["tasks"][task][kind] = {
                "accuracy": acc,
                "accuracy_se": se,
                "delta_vs_gelu": dm,
                "delta_se": dse,
                "sorted_batch_accuracy": srt,
                "proto_alpha_abs_max": float(a["proto_alpha_abs_max"].max()),
                "gate_entropy_bits": e,
                "kappa_ho_eval": None if np.isnan(kho) else float(kho),
                "batch_dependence_bits": dep.bits,
                "flip_rate": dep.flip_rate,
                "delta_I_last_block_bits": None if gi.empty else float(gi.delta.iloc[0]),
            }
    table = "\n".join(lines)
    (out / "fles_table.md").write_text(table + "\n")
    print(table)

    # ---- the figure: accuracy, I(T;Y) per layer, gate entropy per layer, per task
    fig, axes = plt.subplots(2, 3, figsize=(15, 8.2))
    colors = {k: f"C{i}" for i, k in enumerate(KINDS)}
    for row_i, task in enumerate(tasks):
        ax = axes[row_i, 0]
        r = runs_df[runs_df.task == task]
        for i, kind in enumerate(KINDS):
            v = r[r.kind == kind]["accuracy"].to_numpy() * 100
            ax.plot(np.full(v.size, i), v, "o", color=colors[kind], alpha=0.5, ms=4)
            ax.errorbar(
                i + 0.15,
                v.mean(),
                yerr=v.std(ddof=1) / np.sqrt(v.size),
                fmt="s",
                color="k",
                ms=4,
                capsize=3,
                lw=1,
            )
        ax.set_xticks(range(len(KINDS)))
        ax.set_xticklabels([LABELS[k] for k in KINDS], rotation=25, fontsize=8)
        ax.set_ylabel("test accuracy [%]")
        ax.set_title(f"{task}: accuracy over {seeds} seeds (dots), mean ± se")
        for col, (q, title) in enumerate(
            [("I(T;Y)", "I(T_l;Y) per layer"), ("entropy", "gate entropy, top-decile x̃")], 1
        ):
            ax = axes[row_i, col]
            if q == "I(T;Y)":
                d = layers_df[(layers_df.task == task) & (layers_df.quantity == q)]
                key = "value"
            else:
                d = ent_df[ent_df.task == task].copy()
                d["position"] = d.groupby(["model", "seed"]).cumcount()
                key = "entropy"
            names = d.sort_values("position").drop_duplicates("layer")["layer"].tolist()
            for kind in KINDS:
                g = d[d.model == kind].groupby("position")[key]
                m, s = g.mean(), g.std(ddof=1) / np.sqrt(g.count())
                ax.errorbar(
                    m.index,
                    m.to_numpy(),
                    yerr=s.to_numpy(),
                    marker="o",
                    ms=4,
                    capsize=2,
                    color=colors[kind],
                    label=LABELS[kind],
                )
            ax.set_xticks(range(len(names)))
            ax.set_xticklabels(names, rotation=20, fontsize=7)
            ax.set_ylabel("bits")
            ax.set_title(f"{task}: {title} (matrix Rényi)" if q == "I(T;Y)" else f"{task}: {title}")
            if row_i == 0 and col == 1:
                ax.legend(fontsize=7)
    fig.suptitle("FleS vs GELU/SiLU in a 2-layer PatchTransformer (CPU scale)", fontsize=11)
    fig.tight_layout()
    fig.savefig(out / "fles_activations.png", dpi=100)
    summary["batch_dependence"] = deps
    finish(out, "fles_results.json", summary, t0)


if __name__ == "__main__":
    main()
