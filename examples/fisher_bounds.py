"""Fisher information of classifiers: unbiased Hutchinson estimates and the bounds F_LR ⪯ F ⪯ F_DG.

1. Softmax regression (C = 4 classes, 6 inputs) on a Gaussian mixture, where the exact FIM
   is known: relative Frobenius error and trace ratio of the Hutchinson estimate against the
   number of probes, for the √p̃ weighting (unbiased) and, as the defect to avoid, the p̃
   weighting printed in secondary notes of the paper (biased).
2. A small MLP trained on the same task: per-tensor traces of F_LR, F and F_DG (exact),
   the Hutchinson estimates with standard errors, and the fraction of tiny diagonal entries.

Writes ``fisher_probes.png``, ``fisher_layers.png`` and ``fisher_results.json``.

Run:  python examples/fisher_bounds.py [OUT_DIR]
"""

from __future__ import annotations

import numpy as np
from _common import finish, start


def main() -> None:
    args, plt, out, t0 = start(__doc__, None)

    import torch

    from infometer.systems.models import fisher_information
    from infometer.systems.models.djip import distill

    rng = np.random.default_rng(0)
    c, d, n = 4, 6, 200
    means = rng.normal(size=(c, d)) * 1.5
    y = rng.integers(0, c, n)
    x = (means[y] + rng.normal(size=(n, d))).astype(np.float64)

    # ---- 1. softmax regression: exact vs Hutchinson, sqrt(p) vs p weighting
    torch.manual_seed(0)
    lin = torch.nn.Linear(d, c).double()
    distill(lin, x, y, epochs=30, lr=0.05, seed=0)
    exact = fisher_information(lin, x)
    f = exact.matrix
    probes = [10, 30, 100, 300, 1000, 3000] if not args.quick else [10, 100]
    xt = torch.as_tensor(x)
    params = list(lin.parameters())

    def p_weighted(r: int, seed: int) -> np.ndarray:
        """The biased variant: h = Σ p̃ ξ log p (no square root), batches of 20."""
        g = torch.Generator().manual_seed(seed)
        acc = np.zeros_like(f)
        for _ in range(r):
            for i in range(0, n, 20):
                logp = torch.log_softmax(lin(xt[i : i + 20]), 1)
                xi = torch.randint(0, 2, logp.shape, generator=g).double() * 2 - 1
                h = (logp.detach().exp() * xi * logp).sum()
                gr = torch.cat([t.reshape(-1) for t in torch.autograd.grad(h, params)]).numpy()
                acc += np.outer(gr, gr)
        return acc / r / n

    rows = []
    for r in probes:
        hut = fisher_information(lin, x, method="hutchinson", probes=r, batch_size=20, seed=r)
        biased = p_weighted(r, r) if r <= 1000 else None
        rows.append(
            {
                "probes": r,
                "frob_sqrt": float(np.linalg.norm(hut.matrix - f) / np.linalg.norm(f)),
                "trace_ratio_sqrt": float(np.trace(hut.matrix) / np.trace(f)),
                "frob_p": None
                if biased is None
                else float(np.linalg.norm(biased - f) / np.linalg.norm(f)),
                "trace_ratio_p": None if biased is None else float(np.trace(biased) / np.trace(f)),
            }
        )
        print(rows[-1])

    fig, ax = plt.subplots(1, 2, figsize=(9, 3.4))
    pr = [r["probes"] for r in rows]
    ax[0].loglog(pr, [r["frob_sqrt"] for r in rows], "o-", label="√p̃ weighting (unbiased)")
    pb = [(r["probes"], r["frob_p"]) for r in rows if r["frob_p"] is not None]
    ax[0].loglog(*zip(*pb, strict=True), "s--", label="p̃ weighting (biased)")
    ax[0].loglog(
        pr,
        [rows[0]["frob_sqrt"] * np.sqrt(pr[0] / p) for p in pr],
        ":",
        color="gray",
        label="∝ 1/√probes",
    )
    ax[0].set(xlabel="probes", ylabel="‖F̂ − F‖_F / ‖F‖_F", title="softmax regression")
    ax[0].legend(fontsize=8)
    ax[1].semilogx(pr, [r["trace_ratio_sqrt"] for r in rows], "o-", label="√p̃")
    tb = [(r["probes"], r["trace_ratio_p"]) for r in rows if r["trace_ratio_p"] is not None]
    ax[1].semilogx(*zip(*tb, strict=True), "s--", label="p̃")
    ax[1].axhline(1.0, color="gray", lw=0.8)
    ax[1].set(xlabel="probes", ylabel="tr F̂ / tr F", ylim=(0, 1.3), title="trace ratio")
    ax[1].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "fisher_probes.png", dpi=110)

    # ---- 2. MLP: per-tensor bounds
    torch.manual_seed(1)
    mlp = torch.nn.Sequential(
        torch.nn.Linear(d, 32),
        torch.nn.Tanh(),
        torch.nn.Linear(32, 32),
        torch.nn.Tanh(),
        torch.nn.Linear(32, c),
    ).double()
    distill(mlp, x, y, epochs=40, lr=1e-2, seed=0)
    tabs = {b: fisher_information(mlp, x, bound=b).per_tensor() for b in ("lower", None, "upper")}
    hut = fisher_information(
        mlp, x, method="hutchinson", probes=200 if not args.quick else 10, batch_size=20, ci=0.95
    ).per_tensor()
    names = list(tabs[None].tensor)
    layer_rows = []
    for i, nm in enumerate(names):
        layer_rows.append(
            {
                "tensor": nm,
                "F_LR": tabs["lower"].trace[i].value,
                "F": tabs[None].trace[i].value,
                "F_DG": tabs["upper"].trace[i].value,
                "hutchinson": hut.trace[i].value,
                "hutchinson_se": hut.trace[i].stderr,
                "frac_diag_below_1e-5": float(tabs[None].frac_below[i]),
            }
        )
        print(layer_rows[-1])
    fig, ax = plt.subplots(figsize=(8, 3.6))
    pos = np.arange(len(names))
    for k, (key, lab) in enumerate(
        [("F_LR", "F_LR (exact)"), ("F", "F (exact)"), ("F_DG", "F_DG (exact)")]
    ):
        ax.bar(pos + (k - 1.5) * 0.2, [r[key] for r in layer_rows], 0.2, label=lab)
    ax.bar(
        pos + 1.5 * 0.2,
        [r["hutchinson"] for r in layer_rows],
        0.2,
        yerr=[2 * r["hutchinson_se"] for r in layer_rows],
        label="F (Hutchinson ±2 se)",
        capsize=2,
    )
    ax.set_xticks(pos, names, rotation=20)
    ax.set(yscale="log", ylabel="trace per input [nats]", title="MLP: per-tensor Fisher traces")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "fisher_layers.png", dpi=110)

    summary = {
        "probes": rows,
        "layers": layer_rows,
    }
    finish(out, "fisher_results.json", summary, t0)


if __name__ == "__main__":
    main()
