"""DJIP: the soft JPEG layer against a hard numpy/scipy JPEG, gradients, training."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.fft import dctn, idctn

torch = pytest.importorskip("torch")

from infometer.systems.models import classifier_cond_mutual_info, predict_proba  # noqa: E402
from infometer.systems.models.djip import (  # noqa: E402
    CHROMA_Q50,
    LUMA_Q50,
    DiffJPEG,
    dct_matrix,
    distill,
    fit_djip,
    quality_table,
    soft_quantize,
)
from infometer.systems.models.synthetic import texture_images  # noqa: E402


def hard_jpeg(x: np.ndarray, luma: np.ndarray, chroma: np.ndarray) -> np.ndarray:
    """Reference JPEG round trip (no chroma subsampling, no entropy coding) with scipy's DCT."""
    m = np.array([[0.299, 0.587, 0.114], [-0.168736, -0.331264, 0.5], [0.5, -0.418688, -0.081312]])
    ycc = np.einsum("ij,bjhw->bihw", m, x * 255.0 - 128.0)
    out = np.empty_like(ycc)
    b, _, h, w = x.shape
    for c, q in enumerate((luma, chroma, chroma)):
        for i in range(0, h, 8):
            for j in range(0, w, 8):
                blk = dctn(ycc[:, c, i : i + 8, j : j + 8], axes=(1, 2), norm="ortho")
                blk = np.round(blk / q) * q
                out[:, c, i : i + 8, j : j + 8] = idctn(blk, axes=(1, 2), norm="ortho")
    rgb = (np.einsum("ij,bjhw->bihw", np.linalg.inv(m), out) + 128.0) / 255.0
    return np.clip(rgb, 0.0, 1.0)


def test_tables_and_dct():
    assert np.array_equal(quality_table(LUMA_Q50, 50), LUMA_Q50)
    assert np.all(quality_table(CHROMA_Q50, 100) == 1)
    d = dct_matrix(8)
    np.testing.assert_allclose(d @ d.T, np.eye(8), atol=1e-14)
    blk = np.random.default_rng(0).normal(size=(8, 8))
    np.testing.assert_allclose(d @ blk @ d.T, dctn(blk, norm="ortho"), atol=1e-12)


def test_soft_quantiser_tends_to_hard_rounding():
    g = torch.Generator().manual_seed(0)
    u = torch.randn(4000, dtype=torch.float64, generator=g) * 40
    q = torch.full_like(u, 7.0)
    hard = torch.round(u / q) * q
    # (h → 0 is also hard-like: 5 equal weights average to the centre candidate round(u/q)q;
    # from h ≈ 1 on, the error falls monotonically)
    errs = [float((soft_quantize(u, q, h) - hard).abs().mean()) for h in (2, 4, 8, 32, 1e6)]
    assert all(b < a for a, b in zip(errs, errs[1:], strict=False))
    assert errs[-1] < 1e-9  # weights e^{-h(1-2δ)} off the nearest level: 0 in double


def test_gradient_wrt_steps_is_finite_nonzero_and_matches_differences():
    g = torch.Generator().manual_seed(1)
    u = torch.randn(500, dtype=torch.float64, generator=g) * 30
    q = torch.tensor(6.0, dtype=torch.float64, requires_grad=True)

    def f(qq):
        return (soft_quantize(u, qq, 4.0) ** 2).sum()

    (grad,) = torch.autograd.grad(f(q), q)
    eps = 1e-6
    with torch.no_grad():  # round(u/q) is piecewise constant: a small step keeps it fixed
        fd = (f(q + eps) - f(q - eps)) / (2 * eps)
    assert torch.isfinite(grad) and abs(float(grad)) > 1e-3
    assert float(grad) == pytest.approx(float(fd), rel=1e-5)


def test_layer_equals_hard_jpeg_and_identity_for_tiny_steps():
    x, _ = texture_images(2, n_classes=2, size=16, seed=0)
    layer = DiffJPEG(quality=60, hardness=1e7).double()
    out = layer(torch.as_tensor(x, dtype=torch.float64)).detach().numpy()
    ref = hard_jpeg(
        x.astype(np.float64), quality_table(LUMA_Q50, 60), quality_table(CHROMA_Q50, 60)
    )
    np.testing.assert_allclose(out, ref, atol=1e-9)
    assert np.abs(out - x).mean() > 1e-3  # quantisation did something
    tiny = DiffJPEG(q_min=1e-3).double()
    with torch.no_grad():
        tiny.luma.fill_(1e-3)
        tiny.chroma.fill_(1e-3)
    same = tiny(torch.as_tensor(x, dtype=torch.float64)).detach().numpy()
    assert np.abs(same - x).max() < 1e-5  # q -> 0: J is the identity, CMI(J) = CMI(teacher)
    odd = layer(torch.as_tensor(x[:, :, :13, :11], dtype=torch.float64))
    assert odd.shape == (4, 3, 13, 11)  # padded to whole blocks and cropped back


class TinyNet(torch.nn.Module):
    def __init__(self, c=3, width=8):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, width, 3, padding=1)
        self.head = torch.nn.Linear(width, c)

    def forward(self, x):
        return self.head(torch.relu(self.conv(x)).mean((2, 3)))


class HighPass(torch.nn.Module):
    """A fixed teacher whose logits are the log high-frequency energy of each colour channel:
    JPEG quantisation changes them, so the DJIP steps have something to act on."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 3, 3, groups=3, bias=False)
        self.lin = torch.nn.Linear(3, 3)
        with torch.no_grad():
            self.conv.weight[:] = torch.tensor([[0.0, -1, 0], [-1, 4, -1], [0, -1, 0]])
            self.lin.weight.copy_(3 * (3 * torch.eye(3) - torch.ones(3, 3)))
            self.lin.bias.zero_()

    def forward(self, x):
        return self.lin(torch.log((self.conv(x) ** 2).mean((2, 3)) + 1e-4))


@pytest.fixture(scope="module")
def tiny_task():
    x, _ = texture_images(8, n_classes=3, size=16, seed=2)
    teacher = HighPass()
    y = predict_proba(teacher, x).argmax(1)  # labels: the teacher's clean predictions
    return x, y, teacher


def test_fit_djip_raises_cmi_and_leaves_the_teacher_alone(tiny_task):
    x, y, teacher = tiny_task
    before = [p.detach().clone() for p in teacher.parameters()]
    kw = {"epochs": 4, "lr": 20.0, "batch_size": 12}
    res = fit_djip(teacher, x, y, jpeg=DiffJPEG(quality=50), lam=20.0, **kw)
    ctrl = fit_djip(teacher, x, y, jpeg=DiffJPEG(quality=50), lam=0.0, **kw)
    for p, b in zip(teacher.parameters(), before, strict=True):
        assert torch.equal(p, b) and p.requires_grad
    plain = classifier_cond_mutual_info(predict_proba(teacher, x), y)
    assert res.cmi_before.value == pytest.approx(plain.value, abs=1e-6)
    assert len(res.history) == 4
    assert res.history[0]["cmi"] == pytest.approx(
        classifier_cond_mutual_info(
            predict_proba(teacher, x, transform=DiffJPEG(quality=50)), y
        ).value,
        abs=1e-6,
    )
    # measured: λ = 20 took the CMI from 0.149 to 0.529 nats (accuracy 0.875 -> 0.58), while
    # λ = 0 (cross-entropy only) took it down to 0.049 (accuracy 1.0)
    start = res.history[0]["cmi"]
    assert res.cmi_after.value > start + 0.2
    assert ctrl.cmi_after.value < start
    assert ctrl.accuracy_after >= res.accuracy_after
    assert not torch.equal(res.jpeg.luma, DiffJPEG(quality=50).luma)


def test_distill_trains_a_student(tiny_task):
    x, y, teacher = tiny_task
    torch.manual_seed(1)
    student = TinyNet(width=4)
    hist = distill(student, x, y, teacher=teacher, epochs=5, lr=3e-2, batch_size=12, seed=0)
    plain = TinyNet(width=4)
    distill(plain, x, y, epochs=2, lr=3e-2, batch_size=12, seed=0)  # teacher=None: labels
    assert hist[-1]["loss"] < hist[0]["loss"]
    assert not student.training


def test_bad_input(tiny_task):
    x, y, teacher = tiny_task
    with pytest.raises(ValueError, match="n_candidates must be odd"):
        DiffJPEG(n_candidates=4)
    with pytest.raises(ValueError, match=r"RGB images \(B, 3, H, W\)"):
        DiffJPEG()(torch.zeros(2, 1, 8, 8))
    with pytest.raises(ValueError, match="x must be RGB images"):
        fit_djip(teacher, x[:, 0], y, epochs=1)
    with pytest.raises(ValueError, match="y has 3 rows but x has"):
        fit_djip(teacher, x, y[:3], epochs=1)
    with pytest.raises(ValueError, match="y has label 7"):
        fit_djip(teacher, x, np.where(y == 0, 7, y), epochs=1)
    with pytest.raises(ValueError, match="quality must be <= 100"):
        DiffJPEG(quality=101)
