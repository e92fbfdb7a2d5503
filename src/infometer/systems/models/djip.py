"""DJIP: differentiable JPEG input perturbation that raises a frozen teacher's CMI.

A soft-quantised JPEG layer ``J_w`` (8×8 block DCT of YCbCr, 64 luma + 64 chroma trainable
quantisation steps) is put in front of a frozen teacher ``f``.  ``J_w(x)`` is a deterministic
function of ``x``, so ``I(X;Ŷ|Y) = I(J_w(X);Ŷ|Y)`` and the steps ``w`` can be trained to make
the teacher's same-class predictions spread out (higher CMI, see
:mod:`infometer.systems.models.cmi`) while its cross-entropy stays low:

    min_w  E[CE(y, f(J_w(x)))] − λ · I(J_w(X); Ŷ | Y).

The CMI enters through its reverse-channel (dual) form: for any reverse channel
``Q(x|i,y)``, ``E[Σ_i f_i(x) log(Q(x|i,y) / P(x|y))] ≤ I(X;Ŷ|Y)``, with equality at
``Q*(x|i,y) = P(x|y) f_i(x) / Q_y[i]``.  :func:`fit_djip` alternates

1. (w fixed) one pass over the data: ``f_old(x)``, centroids ``Q_y`` and so ``Q*``;
2. (Q fixed) an epoch of Adam steps on w with batch loss
   ``CE − λ · mean_x Σ_i f_i(J_w(x)) (log f_old,i(x) − log Q_y[i])``
   (the constant ``−log n_y`` dropped).

Step 2 ascends a lower bound of the CMI that touches it at the current w (a
minorise–maximise scheme), so the CMI cannot be driven up by moving the centroids away from
stale ones, as the shortcut ``KL(f(J_w(x)) ‖ stopgrad(Q_y))`` allows (that surrogate is an
*upper* bound: ``E KL(f ‖ S) = CMI + KL(Q_y ‖ S)``).

The soft quantiser (JPEG-DL): for a DCT coefficient ``u`` with step ``q``, candidates
``c_k = (round(u/q) − ⌊n/2⌋ + k) q``, weights ``softmax_k(−h (c_k − u)² / q²)`` and output
``Σ_k w_k c_k``; the hardness ``h → ∞`` gives JPEG's ``round(u/q) q``.  Steps are clamped to
``[q_min, q_max]`` before every forward pass.

After training, :func:`distill` trains a student on clean images with the teacher's
``f(J_w(x))`` as soft labels (Hinton et al. 2015 knowledge distillation).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from infometer.core._torch import (
    as_tensor,
    batches,
    check_model_device,
    check_module,
    checked_logits,
    eval_mode,
    param_dtype,
    predict_proba,
    torch,
)
from infometer.core.data import check_choice, check_float, check_int
from infometer.core.estimate import Estimate
from infometer.core.results import Result
from infometer.core.seeding import Seed, resolve_seed
from infometer.core.training import optimizer, run_epochs

__all__ = [
    "LUMA_Q50",
    "CHROMA_Q50",
    "quality_table",
    "dct_matrix",
    "soft_quantize",
    "DiffJPEG",
    "DJIPResult",
    "fit_djip",
    "distill",
    "accuracy",
]

nn = torch.nn
F = torch.nn.functional

#: JPEG Annex K luminance and chrominance tables (quality 50).
LUMA_Q50 = np.array(
    [
        [16, 11, 10, 16, 24, 40, 51, 61],
        [12, 12, 14, 19, 26, 58, 60, 55],
        [14, 13, 16, 24, 40, 57, 69, 56],
        [14, 17, 22, 29, 51, 87, 80, 62],
        [18, 22, 37, 56, 68, 109, 103, 77],
        [24, 35, 55, 64, 81, 104, 113, 92],
        [49, 64, 78, 87, 103, 121, 120, 101],
        [72, 92, 95, 98, 112, 100, 103, 99],
    ],
    dtype=np.float64,
)
CHROMA_Q50 = np.full((8, 8), 99.0)
CHROMA_Q50[:4, :4] = [[17, 18, 24, 47], [18, 21, 26, 66], [24, 26, 56, 99], [47, 66, 99, 99]]

#: JFIF RGB -> YCbCr (level-shifted: applied to RGB - 128).
_RGB2YCC = np.array(
    [
        [0.299, 0.587, 0.114],
        [-0.168736, -0.331264, 0.5],
        [0.5, -0.418688, -0.081312],
    ]
)


def quality_table(table: np.ndarray, quality: int) -> np.ndarray:
    """IJG quality scaling of a quantisation table (quality 1–100; 50 leaves it unchanged)."""
    quality = check_int(quality, "quality", min_value=1, max_value=100)
    s = 5000 / quality if quality < 50 else 200 - 2 * quality
    return np.maximum(np.floor((np.asarray(table) * s + 50) / 100), 1.0)


def dct_matrix(n: int = 8) -> np.ndarray:
    """Orthonormal DCT-II matrix ``D`` (``D X Dᵀ`` is JPEG's 2-D block DCT for n = 8)."""
    k = np.arange(n)[:, None]
    i = np.arange(n)[None, :]
    d = np.sqrt(2.0 / n) * np.cos(np.pi * (2 * i + 1) * k / (2 * n))
    d[0] /= np.sqrt(2.0)
    return d


def soft_quantize(
    u: torch.Tensor, q: torch.Tensor, hardness: float | torch.Tensor, n_candidates: int = 5
) -> torch.Tensor:
    """Soft JPEG quantisation of coefficients ``u`` with steps ``q`` (broadcastable).

    ``Σ_k softmax_k(−h ((c_k − u)/q)²) c_k`` over ``c_k = (round(u/q) − ⌊n/2⌋ + k) q``;
    differentiable in ``u``, ``q`` and ``h``.
    """
    m0 = torch.round(u / q).detach()
    offs = torch.arange(n_candidates, device=u.device, dtype=u.dtype) - n_candidates // 2
    qe = q.unsqueeze(-1)
    c = (m0.unsqueeze(-1) + offs) * qe
    w = torch.softmax(-hardness * ((c - u.unsqueeze(-1)) / qe) ** 2, dim=-1)
    return (w * c).sum(-1)


class DiffJPEG(nn.Module):
    """Differentiable JPEG compression of RGB images in [0, 1] (shape (B, 3, H, W)).

    Parameters
    ----------
    quality
        IJG quality of the initial luma/chroma tables.
    hardness
        ``h`` of the soft quantiser (larger = closer to hard rounding).
    n_candidates
        Candidate levels around ``round(u/q)`` (odd).
    q_min, q_max
        Steps are clamped to this range before each forward pass.
    """

    def __init__(
        self,
        quality: int = 75,
        *,
        hardness: float = 4.0,
        n_candidates: int = 5,
        q_min: float = 1.0,
        q_max: float = 255.0,
    ) -> None:
        super().__init__()
        self.hardness = check_float(hardness, "hardness", low=0.0, inclusive=(False, True))
        self.n_candidates = check_int(n_candidates, "n_candidates", min_value=1)
        if self.n_candidates % 2 == 0:
            raise ValueError(f"n_candidates must be odd, got {n_candidates}")
        self.q_min = check_float(q_min, "q_min", low=0.0, inclusive=(False, True))
        self.q_max = check_float(q_max, "q_max", low=self.q_min)
        luma = np.clip(quality_table(LUMA_Q50, quality), self.q_min, self.q_max)
        chroma = np.clip(quality_table(CHROMA_Q50, quality), self.q_min, self.q_max)
        self.luma = nn.Parameter(torch.tensor(luma, dtype=torch.float32))
        self.chroma = nn.Parameter(torch.tensor(chroma, dtype=torch.float32))
        # fixed matrices kept in float64 and cast to the input's dtype in forward()
        self.register_buffer("dct", torch.tensor(dct_matrix(8)))
        self.register_buffer("rgb2ycc", torch.tensor(_RGB2YCC))
        self.register_buffer("ycc2rgb", torch.tensor(np.linalg.inv(_RGB2YCC)))

    def steps(self) -> torch.Tensor:
        """The (3, 8, 8) step tables (luma for Y, chroma for Cb and Cr)."""
        return torch.stack([self.luma, self.chroma, self.chroma])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.ndim != 4 or x.shape[1] != 3:
            raise ValueError(f"DiffJPEG takes RGB images (B, 3, H, W), got {tuple(x.shape)}")
        with torch.no_grad():
            self.luma.clamp_(self.q_min, self.q_max)
            self.chroma.clamp_(self.q_min, self.q_max)
        b, _, h, w = x.shape
        ph, pw = (-h) % 8, (-w) % 8
        xp = F.pad(x, (0, pw, 0, ph), mode="replicate") if ph or pw else x
        dt = xp.dtype
        ycc = torch.einsum("ij,bjhw->bihw", self.rgb2ycc.to(dt), xp * 255.0 - 128.0)
        hh, ww = ycc.shape[2] // 8, ycc.shape[3] // 8
        blk = ycc.reshape(b, 3, hh, 8, ww, 8).permute(0, 1, 2, 4, 3, 5)
        d = self.dct.to(dt)
        coef = d @ blk @ d.T
        q = self.steps().to(dt)[None, :, None, None]
        coef = soft_quantize(coef, q, self.hardness, self.n_candidates)
        blk = d.T @ coef @ d
        ycc = blk.permute(0, 1, 2, 4, 3, 5).reshape(b, 3, hh * 8, ww * 8)
        rgb = (torch.einsum("ij,bjhw->bihw", self.ycc2rgb.to(dt), ycc) + 128.0) / 255.0
        return rgb[:, :, :h, :w].clamp(0.0, 1.0)


# ------------------------------------------------------------------ training
@dataclass(eq=False, repr=False)
class DJIPResult(Result):
    """Outcome of :func:`fit_djip`.

    Attributes
    ----------
    jpeg
        The trained :class:`DiffJPEG` layer.
    cmi_before, cmi_after
        Teacher CMI ``I(X;Ŷ|Y)`` on the training inputs without / with the layer.
    accuracy_before, accuracy_after
        Teacher accuracy on the training inputs without / with the layer.
    history
        One dict per epoch: ``epoch, cmi, accuracy, ce, dual`` (CMI and accuracy measured
        at the start of the epoch, CE and dual term averaged over its batches).
    """

    jpeg: Any
    cmi_before: Estimate
    cmi_after: Estimate
    accuracy_before: float
    accuracy_after: float
    history: list[dict[str, float]] = field(default_factory=list)

    #: The trained layer is a torch module, not data: to_dict leaves it out.
    _dict_exclude = ("jpeg",)


def accuracy(model: Any, x: Any, y: Any, *, transform: Any = None, batch_size: int = 256) -> float:
    """Top-1 accuracy of a classifier (optionally behind ``transform``)."""
    p = predict_proba(model, x, batch_size=batch_size, transform=transform)
    return float(np.mean(p.argmax(1) == np.asarray(y)))


def _teacher_outputs(
    teacher: nn.Module, jpeg: nn.Module | None, xt: torch.Tensor, batch_size: int
) -> torch.Tensor:
    out = []
    with torch.no_grad():
        for sl in batches(xt.shape[0], batch_size):
            xb = xt[sl] if jpeg is None else jpeg(xt[sl])
            out.append(checked_logits(teacher(xb), sl.start).double().log_softmax(1))
    return torch.cat(out)


def _labels(y: Any, n: int, n_classes: int | None, device: torch.device) -> torch.Tensor:
    from infometer.core.data import as_variable, check_labels

    v = as_variable(y, "y")
    if v.n != n:
        raise ValueError(f"y has {v.n} rows but x has {n}")
    lab = check_labels(v, n_classes if n_classes is not None else int(np.max(v.columns[0])) + 1)
    return torch.as_tensor(lab, device=device)


def _cmi(logp: torch.Tensor, y: torch.Tensor) -> Estimate:
    from .cmi import classifier_cond_mutual_info

    return classifier_cond_mutual_info(logp.cpu().numpy(), y.cpu().numpy(), from_logits=True)


def fit_djip(
    teacher: Any,
    x: Any,
    y: Any,
    *,
    jpeg: Any = None,
    lam: float = 0.5,
    epochs: int = 5,
    lr: float = 1.0,
    batch_size: int = 128,
    device: Any = None,
    seed: Seed = 0,
    progress: bool | None = None,
) -> DJIPResult:
    """Train the quantisation steps of a JPEG layer to raise a frozen teacher's CMI.

    Parameters
    ----------
    teacher
        Classifier returning logits; frozen (its parameters are not changed and get no
        gradients; its ``requires_grad`` flags and train/eval mode are restored after).
    x, y
        Training images (n, 3, H, W) in [0, 1] and labels (n,) in ``0..C-1``.
    jpeg
        A :class:`DiffJPEG` to train (default: ``DiffJPEG()`` on the teacher's device).
    lam
        Weight λ of the CMI term.
    epochs
        Alternations (centroid refresh + one epoch of steps).
    lr
        Adam learning rate on the steps (in units of quantisation levels, 1–255).
    batch_size, device, progress
        Batch size; device (must be the teacher's); seed of the batch order; progress bar.
    seed
        Batch size; device (must be the teacher's); seed of the batch order; progress bar. An int >=
        0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as it is) or
        None (fresh entropy from the operating system).

    Returns
    -------
    DJIPResult
    """
    teacher = check_module(teacher, "teacher")
    lam = check_float(lam, "lam", low=0.0)
    epochs = check_int(epochs, "epochs", min_value=0)
    lr = check_float(lr, "lr", low=0.0, inclusive=(False, True))
    seed = resolve_seed(seed)
    dev = check_model_device(teacher, device, "teacher")
    xt = as_tensor(x, dev, param_dtype(teacher))
    if xt.ndim != 4 or xt.shape[1] != 3:
        raise ValueError(f"x must be RGB images (n, 3, H, W), got shape {tuple(xt.shape)}")
    jpeg = DiffJPEG().to(dev) if jpeg is None else check_module(jpeg, "jpeg")
    check_model_device(jpeg, dev, "jpeg")
    flags = [p.requires_grad for p in teacher.parameters()]
    opt, _ = optimizer(jpeg.parameters(), lr=lr)
    gen = torch.Generator().manual_seed(seed)
    try:
        for p in teacher.parameters():
            p.requires_grad_(False)
        with eval_mode(teacher):
            logp0 = _teacher_outputs(teacher, None, xt, batch_size)
            yt = _labels(y, xt.shape[0], logp0.shape[1], dev)
            cmi_before = _cmi(logp0, yt)
            acc_before = float((logp0.argmax(1) == yt).double().mean())
            log_rev = None

            def teacher_step(epoch: int) -> dict[str, float]:  # step 1
                nonlocal log_rev
                logp = _teacher_outputs(teacher, jpeg, xt, batch_size)
                counts = torch.bincount(yt, minlength=logp.shape[1]).double()
                sums = logp.new_zeros(logp.shape[1], logp.shape[1]).index_add_(0, yt, logp.exp())
                log_q = torch.log(sums / counts.clamp_min(1.0)[:, None])
                log_rev = (logp - log_q[yt]).to(xt.dtype)  # log Q*(x|i,y) + log n_y
                return {
                    "epoch": float(epoch),
                    "cmi": _cmi(logp, yt).value,
                    "accuracy": float((logp.argmax(1) == yt).double().mean()),
                }

            def epoch_batches(_epoch: int):
                perm = torch.randperm(xt.shape[0], generator=gen).to(dev)
                for sl in batches(xt.shape[0], batch_size):
                    yield perm[sl], sl.start

            def jpeg_step(item):  # step 2
                idx, start = item
                z = checked_logits(teacher(jpeg(xt[idx])), start)
                ce = F.cross_entropy(z, yt[idx])
                dual = (torch.softmax(z, 1) * log_rev[idx]).sum(1).mean()
                return ce - lam * dual, {"ce": ce.item(), "dual": dual.item()}

            history = run_epochs(
                opt,
                epochs,
                epoch_batches,
                jpeg_step,
                before_epoch=teacher_step,
                desc="DJIP",
                progress=progress,
            )
            logp1 = _teacher_outputs(teacher, jpeg, xt, batch_size)
            with torch.no_grad():
                jpeg.luma.clamp_(jpeg.q_min, jpeg.q_max)
                jpeg.chroma.clamp_(jpeg.q_min, jpeg.q_max)
    finally:
        for p, f in zip(teacher.parameters(), flags, strict=True):
            p.requires_grad_(f)
    return DJIPResult(
        jpeg=jpeg,
        cmi_before=cmi_before,
        cmi_after=_cmi(logp1, yt),
        accuracy_before=acc_before,
        accuracy_after=float((logp1.argmax(1) == yt).double().mean()),
        history=history,
    )


def distill(
    student: Any,
    x: Any,
    y: Any,
    *,
    teacher: Any = None,
    transform: Any = None,
    temperature: float = 4.0,
    alpha: float = 0.9,
    epochs: int = 10,
    lr: float = 1e-3,
    weight_decay: float = 5e-4,
    batch_size: int = 128,
    schedule: str = "cosine",
    device: Any = None,
    seed: Seed = 0,
    progress: bool | None = None,
) -> list[dict[str, float]]:
    """Train ``student`` (in place) by knowledge distillation, or on labels alone.

    Loss per batch: ``α T² KL(softmax(t/T) ‖ softmax(s/T)) + (1 − α) CE(s, y)`` with the
    teacher's logits ``t = teacher(transform(x))`` (computed once, teacher frozen) and the
    student seeing the clean ``x``.  ``teacher=None`` trains on the labels alone (α ignored).

    Parameters
    ----------
    student
        Classifier returning logits; trained with Adam.
    x, y
        Training inputs and labels.
    teacher, transform
        Teacher classifier and an optional module applied to its inputs (a trained
        :class:`DiffJPEG`).
    temperature, alpha
        KD temperature ``T`` and weight ``α`` of the soft-label term.
    epochs, lr, weight_decay, batch_size
        Adam settings.
    schedule
        ``"cosine"`` (default: the learning rate decays to 0 over the run along a half
        cosine, which makes the final model much less dependent on the last few batches) or
        ``"constant"``.
    device
        Must be the student's device (and the teacher's).
    seed
        Seeds the batch order. An int >= 0 (the same int gives the same numbers), a
        numpy.random.Generator (drawn from as it is) or None (fresh entropy from the operating
        system).
    progress
        Progress bar.

    Returns
    -------
    list of dict
        ``epoch, loss`` per epoch.
    """
    student = check_module(student, "student")
    temperature = check_float(temperature, "temperature", low=0.0, inclusive=(False, True))
    alpha = check_float(alpha, "alpha", low=0.0, high=1.0)
    epochs = check_int(epochs, "epochs", min_value=0)
    schedule = check_choice(schedule, "schedule", ("cosine", "constant"))
    batch_size = check_int(batch_size, "batch_size", min_value=1)
    lr = check_float(lr, "lr", low=0.0, inclusive=(False, True))
    seed = resolve_seed(seed)
    dev = check_model_device(student, device, "student")
    xt = as_tensor(x, dev, param_dtype(student))
    soft = None
    if teacher is not None:
        teacher = check_module(teacher, "teacher")
        check_model_device(teacher, dev, "teacher")
        with eval_mode(teacher):
            soft = _teacher_outputs(teacher, transform, xt, 256).float()
    yt = _labels(y, xt.shape[0], None if soft is None else soft.shape[1], dev)
    steps = max(1, epochs * -(-xt.shape[0] // batch_size))
    opt, sched = optimizer(
        student.parameters(),
        lr=lr,
        weight_decay=weight_decay,
        cosine_steps=steps if schedule == "cosine" else None,
    )
    gen = torch.Generator().manual_seed(seed)

    def epoch_batches(_epoch: int):
        perm = torch.randperm(xt.shape[0], generator=gen).to(dev)
        for sl in batches(xt.shape[0], batch_size):
            yield perm[sl], sl.start

    def student_step(item):
        idx, start = item
        s = checked_logits(student(xt[idx]), start)
        loss = F.cross_entropy(s, yt[idx])
        if soft is not None:
            # teacher log-probs at T = 1 -> tempered log-probs: log_softmax(log p / T)
            t_log = torch.log_softmax(soft[idx] / temperature, 1)
            kd = F.kl_div(
                torch.log_softmax(s / temperature, 1),
                t_log,
                log_target=True,
                reduction="batchmean",
            )
            loss = alpha * temperature**2 * kd + (1 - alpha) * loss
        return loss, {"loss": loss.item()}

    student.train()
    history = run_epochs(
        opt,
        epochs,
        epoch_batches,
        student_step,
        before_epoch=lambda epoch: {"epoch": float(epoch)},
        scheduler=sched,
        desc="train",
        progress=progress,
    )
    student.eval()
    return history
