"""DJIP demo: raise a frozen teacher's CMI with a trainable JPEG layer, then distil.

Generated 32×32 images (10 classes differing in grating frequency and orientation, no
downloads).  Steps:

1. train a small CNN teacher on clean images;
2. measure its conditional mutual information I(X;Ŷ|Y) on the training images;
3. for each λ in ``--lams`` (default 1 and 10), train the 128 quantisation steps of a
   DiffJPEG layer in front of the frozen teacher (fit_djip) and measure the CMI again;
4. distil a smaller student, on a subset of the training images (``--n-student`` per class),
   from the plain teacher and from each DJIP teacher (students see clean images), plus a
   label-only student, over several seeds; report test accuracy.

Writes ``djip_cmi.png`` (CMI and teacher accuracy per DJIP alternation), ``djip_students.png``
(student test accuracy per arm and seed), ``djip_tables.png`` (initial and learned
quantisation tables, largest λ) and ``djip_results.json`` to the output folder.

Run:  python examples/djip_distillation.py [OUT_DIR] [--seeds 3] [--quick]
"""

from __future__ import annotations

import json

import numpy as np
from _common import finish, start


def cnn(width: int, n_classes: int = 10):
    import torch

    nn = torch.nn

    def block(c_in: int, c_out: int) -> list:
        return [nn.Conv2d(c_in, c_out, 3, padding=1), nn.BatchNorm2d(c_out), nn.ReLU()]

    return nn.Sequential(
        *block(3, width),
        nn.MaxPool2d(2),
        *block(width, 2 * width),
        nn.MaxPool2d(2),
        *block(2 * width, 2 * width),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(2 * width, n_classes),
    )


def _args(ap) -> None:
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--n-train", type=int, default=200, help="teacher/DJIP images per class")
    ap.add_argument("--student-width", type=int, default=16, help="student CNN width")
    ap.add_argument(
        "--n-student",
        type=int,
        default=10,
        help="student training images per class (a subset of the teacher's: KD matters when "
        "the student is short of labelled data)",
    )
    ap.add_argument(
        "--lams",
        type=lambda v: [float(t) for t in v.split(",")],
        default=[1.0, 10.0],
        help="weights λ of the CMI term, comma-separated",
    )


def main() -> None:
    args, plt, out, t0 = start(__doc__, _args)

    import torch

    from infometer.systems.models import classifier_cmi, predict_proba
    from infometer.systems.models.djip import DiffJPEG, accuracy, distill, fit_djip
    from infometer.systems.models.synthetic import texture_images

    n_train = 20 if args.quick else args.n_train
    epochs_t, epochs_s, epochs_d = (2, 2, 1) if args.quick else (8, 100, 5)
    n_student = 10 * (5 if args.quick else args.n_student)  # rows are shuffled: ~balanced
    x, y = texture_images(n_train, seed=0)
    xt, yt = texture_images(50 if args.quick else 200, seed=1)

    torch.manual_seed(0)
    teacher = cnn(32)
    distill(teacher, x, y, epochs=epochs_t, lr=3e-3, seed=0)
    acc_t = accuracy(teacher, xt, yt)
    print(f"teacher: {sum(p.numel() for p in teacher.parameters())} params, test acc {acc_t:.3f}")

    cmi_test = classifier_cmi(predict_proba(teacher, xt), yt)
    djip: dict[float, dict] = {}
    for lam in args.lams:
        res = fit_djip(
            teacher, x, y, jpeg=DiffJPEG(quality=75), lam=lam, epochs=epochs_d, lr=4.0, seed=0
        )
        acc_tj = accuracy(teacher, xt, yt, transform=res.jpeg)
        cmi_tj = classifier_cmi(predict_proba(teacher, xt, transform=res.jpeg), yt)
        djip[lam] = {"res": res, "test_acc": acc_tj, "test_cmi": cmi_tj.value}
        print(
            f"DJIP λ = {lam:g}: teacher CMI (train) {res.cmi_before.value:.4f} -> "
            f"{res.cmi_after.value:.4f} nats; train acc {res.accuracy_before:.3f} -> "
            f"{res.accuracy_after:.3f}; test acc {acc_t:.3f} -> {acc_tj:.3f}; test CMI "
            f"{cmi_test.value:.4f} -> {cmi_tj.value:.4f}"
        )

    arms = {"labels only": None, "KD": None}
    arms.update({f"KD + DJIP λ={lam:g}": d["res"].jpeg for lam, d in djip.items()})
    accs: dict[str, list[float]] = {a: [] for a in arms}
    for seed in range(args.seeds):
        for arm, transform in arms.items():
            torch.manual_seed(100 + seed)
            student = cnn(args.student_width)
            distill(
                student,
                x[:n_student],
                y[:n_student],
                teacher=None if arm == "labels only" else teacher,
                transform=transform,
                epochs=epochs_s,
                lr=3e-3,
                batch_size=32,
                seed=seed,
            )
            accs[arm].append(accuracy(student, xt, yt))
        print(f"seed {seed}: " + ", ".join(f"{a} {v[-1]:.3f}" for a, v in accs.items()))
    n_student_params = sum(p.numel() for p in cnn(args.student_width).parameters())

    # ---- figures
    fig, ax = plt.subplots(1, 2, figsize=(9, 3.4))
    for k, (lam, d) in enumerate(djip.items()):
        res = d["res"]
        ep = [r["epoch"] for r in res.history] + [len(res.history)]
        ax[0].plot(
            ep,
            [r["cmi"] for r in res.history] + [res.cmi_after.value],
            "o-",
            color=f"C{k}",
            label=f"λ = {lam:g}",
        )
        ax[1].plot(
            ep,
            [r["accuracy"] for r in res.history] + [res.accuracy_after],
            "o-",
            color=f"C{k}",
            label=f"λ = {lam:g}",
        )
    first = next(iter(djip.values()))["res"]
    ax[0].axhline(first.cmi_before.value, color="gray", ls="--", label="no JPEG layer")
    ax[1].axhline(first.accuracy_before, color="gray", ls="--", label="no JPEG layer")
    ax[0].set(
        xlabel="DJIP alternation", ylabel="teacher I(X;Ŷ|Y) [nats]", title="teacher CMI (train)"
    )
    ax[1].set(xlabel="DJIP alternation", ylabel="accuracy", title="teacher accuracy (train)")
    ax[0].legend(fontsize=8)
    ax[1].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "djip_cmi.png", dpi=110)

    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    for i, v in enumerate(accs.values()):
        ax.scatter(np.full(len(v), i), v, color=f"C{i}", zorder=3)
        ax.errorbar(
            i + 0.15,
            np.mean(v),
            yerr=np.std(v, ddof=1) if len(v) > 1 else 0,
            fmt="s",
            color="k",
            capsize=4,
        )
    ax.set_xticks(range(len(accs)), list(accs), fontsize=8)
    ax.set(
        ylabel="student test accuracy",
        title=f"student ({n_student_params} params, {n_student} images), {args.seeds} seeds",
    )
    fig.tight_layout()
    fig.savefig(out / "djip_students.png", dpi=110)

    init = DiffJPEG(quality=75)
    lam_last, jpeg = max(djip), djip[max(djip)]["res"].jpeg
    fig, ax = plt.subplots(1, 4, figsize=(11, 2.9))
    tabs = [
        ("luma, quality 75", init.luma),
        (f"luma, learned λ={lam_last:g}", jpeg.luma),
        ("chroma, quality 75", init.chroma),
        (f"chroma, learned λ={lam_last:g}", jpeg.chroma),
    ]
    vmax = max(float(t.detach().max()) for _, t in tabs)
    for a, (title, t) in zip(ax, tabs, strict=True):
        im = a.imshow(t.detach().cpu().numpy(), vmin=0, vmax=vmax, cmap="viridis")
        a.set_title(title, fontsize=9)
        a.axis("off")
    fig.colorbar(im, ax=ax, shrink=0.8, label="quantisation step")
    fig.savefig(out / "djip_tables.png", dpi=110)

    summary = {
        "teacher_test_accuracy": acc_t,
        "teacher_test_cmi": cmi_test.value,
        "djip": {
            str(lam): {
                "teacher_cmi_train": [d["res"].cmi_before.value, d["res"].cmi_after.value],
                "teacher_train_accuracy": [d["res"].accuracy_before, d["res"].accuracy_after],
                "teacher_test_accuracy": d["test_acc"],
                "teacher_test_cmi": d["test_cmi"],
                "history": d["res"].history,
            }
            for lam, d in djip.items()
        },
        "n_student_params": n_student_params,
        "student_test_accuracy": accs,
        "student_mean": {a: float(np.mean(v)) for a, v in accs.items()},
        "student_sd": {a: float(np.std(v, ddof=1)) if len(v) > 1 else 0.0 for a, v in accs.items()},
        "settings": vars(args),
    }
    finish(out, "djip_results.json", summary, t0)
    print(json.dumps({k: summary[k] for k in ("student_mean", "student_sd")}))


if __name__ == "__main__":
    main()
