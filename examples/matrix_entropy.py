"""Matrix-based Rényi entropy of representations, an information plane, and IE-CL's ΔH.

1. S_α of a 2-D Gaussian sample (RBF kernel, σ = 1.5) against α, with the closed form at
   α = 2, (d/2) log(1 + 4/σ²); and of a label vector (delta kernel), where it is the
   plug-in Rényi entropy of the label frequencies.
2. An information plane (Yu et al. 2019): an MLP trained on a 4-class Gaussian mixture;
   for every hidden layer T and a few epochs, I_α(X;T) and I_α(T;Y) with
   method="matrix_renyi" (α = 1.01, RBF for X and T, delta kernel for Y).
3. IE-CL's entropy increment ΔH = H(AX) − H(X) of common augmentations of 6-D data:
   exact log|det A|, the Gaussian plug-in and the Kozachenko–Leonenko kNN estimate.

Writes ``matrix_alpha.png``, ``matrix_plane.png``, ``iecl_increment.png`` and
``matrix_results.json``.

Run:  python examples/matrix_entropy.py [OUT_DIR] [--quick]
"""

from __future__ import annotations

import numpy as np
from _common import finish, start


def main() -> None:
    args, plt, out, t0 = start(__doc__, None)

    import torch

    import infometer as im
    from infometer.systems.models import entropy_increment, linear_entropy_increment
    from infometer.systems.models.djip import distill

    rng = np.random.default_rng(0)
    res: dict = {}

    # ---- 1. S_alpha against alpha
    sig = 1.5
    xg = rng.normal(size=(300 if args.quick else 1000, 2))
    labels = rng.choice(4, size=1000, p=[0.4, 0.3, 0.2, 0.1])
    alphas = [0.5, 0.8, 1.0, 1.01, 1.5, 2.0, 3.0, 5.0]
    s_g = [im.entropy(xg, method="matrix_renyi", alpha=a, sigma=sig).value for a in alphas]
    s_l = [im.entropy(labels, method="matrix_renyi", alpha=a).value for a in alphas]
    p = np.bincount(labels) / labels.size
    plug = [-np.sum(p * np.log(p)) if a == 1 else np.log(np.sum(p**a)) / (1 - a) for a in alphas]
    res["alpha"] = {"alphas": alphas, "gaussian_rbf": s_g, "labels_delta": s_l, "plugin": plug}
    fig, ax = plt.subplots(figsize=(5, 3.4))
    ax.plot(alphas, s_g, "o-", label="2-D Gaussian, RBF σ = 1.5")
    ax.plot([2], [np.log(1 + 4 / sig**2)], "k*", ms=12, label="closed form at α = 2")
    ax.plot(alphas, s_l, "s-", label="labels, delta kernel")
    ax.plot(alphas, plug, "x", color="k", label="plug-in Rényi of label frequencies")
    ax.set(xlabel="α", ylabel="S_α [nats]", title="matrix-based Rényi entropy")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "matrix_alpha.png", dpi=110)

    # ---- 2. information plane of an MLP
    c, d, n = 4, 10, 1200
    means = rng.normal(size=(c, d)) * 0.8
    y = rng.integers(0, c, n)
    x = (means[y] + rng.normal(size=(n, d))).astype(np.float32)
    ev = np.arange(400)  # evaluation rows
    torch.manual_seed(0)
    net = torch.nn.Sequential(
        torch.nn.Linear(d, 16),
        torch.nn.Tanh(),
        torch.nn.Linear(16, 8),
        torch.nn.Tanh(),
        torch.nn.Linear(8, c),
    )
    hidden = [1, 3]  # outputs of the two tanh layers
    checkpoints = [0, 1, 3, 10, 30] if not args.quick else [0, 1]
    plane = {f"layer {i + 1}": [] for i in range(len(hidden))}
    done = 0
    for ep in checkpoints:
        if ep > done:
            distill(net, x, y, epochs=ep - done, lr=3e-3, seed=ep)
            done = ep
        with torch.no_grad():
            h = torch.as_tensor(x[ev])
            acts = []
            for j, layer in enumerate(net):
                h = layer(h)
                if j in hidden:
                    acts.append(h.numpy().astype(np.float64))
        for name, t in zip(plane, acts, strict=True):
            ixt = im.mutual_info(x[ev], t, method="matrix_renyi", alpha=1.01).value
            ity = im.mutual_info(t, y[ev], method="matrix_renyi", alpha=1.01).value
            plane[name].append({"epoch": ep, "I_XT": ixt, "I_TY": ity})
            print(f"epoch {ep:3d} {name}: I(X;T) {ixt:.3f}, I(T;Y) {ity:.3f} nats")
    res["plane"] = plane
    fig, ax = plt.subplots(figsize=(5, 3.6))
    for k, (name, pts) in enumerate(plane.items()):
        ax.plot([q["I_XT"] for q in pts], [q["I_TY"] for q in pts], "-", color=f"C{k}")
        sc = ax.scatter(
            [q["I_XT"] for q in pts],
            [q["I_TY"] for q in pts],
            c=[q["epoch"] for q in pts],
            cmap="viridis",
            zorder=3,
        )
        ax.annotate(name, (pts[-1]["I_XT"], pts[-1]["I_TY"]), fontsize=8)
    fig.colorbar(sc, label="epoch")
    h_y = im.entropy(y[ev], method="plugin").value
    ax.axhline(h_y, color="gray", ls="--", lw=0.8, label="H(Y)")
    ax.set(xlabel="I_α(X;T) [nats]", ylabel="I_α(T;Y) [nats]", title="information plane (α = 1.01)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "matrix_plane.png", dpi=110)

    # ---- 3. IE-CL entropy increment
    dim = 6
    z = rng.normal(size=(4000 if not args.quick else 800, dim)) @ np.diag(np.linspace(0.5, 2, dim))
    q, _ = np.linalg.qr(rng.normal(size=(dim, dim)))
    maps = {
        "rotation": q,
        "flip": np.diag([-1.0] + [1.0] * (dim - 1)),
        "scale ×1.5": 1.5 * np.eye(dim),
        "random linear": q
        @ np.diag(rng.uniform(0.6, 1.6, dim))
        @ np.linalg.qr(rng.normal(size=(dim, dim)))[0],
    }
    rows = []
    for name, a in maps.items():
        zn = z @ a.T
        rows.append(
            {
                "map": name,
                "exact": linear_entropy_increment(a).value,
                "gaussian": entropy_increment(z, zn).value,
                "knn": entropy_increment(z, zn, method="kozachenko_leonenko").value,
            }
        )
    zt = np.tanh(z)
    rows.append(
        {
            "map": "tanh (nonlinear)",
            "exact": float(np.mean(np.sum(np.log(1 - zt**2), axis=1))),  # E log|det J|
            "gaussian": entropy_increment(z, zt).value,
            "knn": entropy_increment(z, zt, method="kozachenko_leonenko").value,
        }
    )
    for r in rows:
        print(r)
    res["iecl"] = rows
    fig, ax = plt.subplots(figsize=(7, 3.4))
    pos = np.arange(len(rows))
    for k, key in enumerate(("exact", "gaussian", "knn")):
        ax.bar(pos + (k - 1) * 0.27, [r[key] for r in rows], 0.27, label=key)
    ax.axhline(0, color="k", lw=0.6)
    ax.set_xticks(pos, [r["map"] for r in rows], fontsize=8)
    ax.set(ylabel="ΔH [nats]", title="entropy increment of augmentations (6-D)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "iecl_increment.png", dpi=110)

    finish(out, "matrix_results.json", res, t0)


if __name__ == "__main__":
    main()
