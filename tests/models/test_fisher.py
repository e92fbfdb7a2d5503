"""Fisher information of classifiers against the analytic FIM of softmax/logistic regression."""

from __future__ import annotations

import numpy as np
import pytest

from infometer.systems.models import core

torch = pytest.importorskip("torch")

from infometer.systems.models.fisher import core_factor_torch, fisher_information  # noqa: E402

C, D, N = 3, 4, 40


def softmax_np(z):
    e = np.exp(z - z.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def analytic_fim(x, w, core_kind=None):
    """Softmax regression z = W x: F = mean_x core(p_x) ⊗ x xᵀ (θ = W row-major)."""
    p = softmax_np(x @ w.T)
    return sum(
        np.kron(core.core_matrix(pp, core_kind), np.outer(xx, xx))
        for pp, xx in zip(p, x, strict=True)
    )


@pytest.fixture(scope="module")
def softreg():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(N, D))
    w = rng.normal(size=(C, D))
    model = torch.nn.Linear(D, C, bias=False).double()
    with torch.no_grad():
        model.weight.copy_(torch.as_tensor(w))
    return model, x, w


@pytest.mark.parametrize("engine", ["vmap", "loop"])
@pytest.mark.parametrize("bound", [None, "upper", "lower"])
def test_exact_matches_analytic(softreg, engine, bound):
    model, x, w = softreg
    fi = fisher_information(model, x, bound=bound, engine=engine)
    truth = analytic_fim(x, w, bound) / N
    np.testing.assert_allclose(fi.matrix, truth, atol=1e-12)
    np.testing.assert_allclose(fi.diag, np.diag(truth), atol=1e-12)
    assert fi.trace.value == pytest.approx(np.trace(truth), abs=1e-12)
    assert fi.trace.quantity == "fisher_information" and fi.trace.unit == "nats"
    fs = fisher_information(model, x, bound=bound, engine=engine, reduction="sum")
    assert fs.trace.value == pytest.approx(N * fi.trace.value, rel=1e-12)


def test_hutchinson_is_unbiased(softreg):
    # The Frobenius error of the probe average falls like 1/sqrt(probes): 16k probes with
    # batches of 10 gave 1.4 %, so 40k probes expect ~0.9 % and 2 % is > 2 standard errors.
    model, x, w = softreg
    truth = analytic_fim(x, w) / N
    fi = fisher_information(model, x, method="hutchinson", probes=40_000, batch_size=10, ci=0.95)
    rel = np.linalg.norm(fi.matrix - truth) / np.linalg.norm(truth)
    assert rel < 0.02
    tr = fi.trace
    assert tr.value == pytest.approx(np.trace(truth), rel=0.01)
    assert abs(tr.value - np.trace(truth)) < 4 * tr.stderr
    assert tr.ci[0] < tr.value < tr.ci[1]
    # each diagonal entry within 4.5 of its own standard errors (12 entries)
    z = np.abs(fi.diag - np.diag(truth)) / fi.diag_stderr
    assert z.max() < 4.5


def test_single_probe_coefficient_of_variation_at_most_sqrt2(softreg):
    # One probe: Var(F̂_ii) = 2[(Σw²)² − Σw⁴] ≤ 2 F_ii².  The sd over 20k probes is itself
    # estimated to ~1-2 % (heavy-tailed squares), hence the 5 % allowance.
    model, x, w = softreg
    truth = np.diag(analytic_fim(x, w) / N)
    r = 20_000
    fi = fisher_information(model, x, method="hutchinson", probes=r, batch_size=N, seed=3)
    cv = fi.diag_stderr * np.sqrt(r) / truth
    assert cv.max() <= np.sqrt(2) * 1.05
    assert cv.min() > 0.3  # genuinely random


def test_hutchinson_bounds_are_unbiased(softreg):
    model, x, w = softreg
    for bound in ("upper", "lower"):
        truth = np.trace(analytic_fim(x, w, bound)) / N
        tr = fisher_information(
            model, x, method="hutchinson", bound=bound, probes=4000, batch_size=8, seed=1
        ).trace
        assert abs(tr.value - truth) < 4 * tr.stderr
        assert tr.stderr < 0.05 * truth


def test_sqrt_weighting_is_the_core_factor():
    # h = Σ √p̃ ξ log p has ∂h/∂z = (diag √p − p √pᵀ) ξ = A ξ, and A Aᵀ = diag p − p pᵀ;
    # weighting by p̃ instead is biased (E = Σ_y p_y² (e_y − p)(e_y − p)ᵀ).
    g = torch.Generator().manual_seed(0)
    z = torch.randn(5, 4, dtype=torch.float64, generator=g, requires_grad=True)
    xi = torch.randint(0, 2, (5, 4), generator=g).double() * 2 - 1
    p = torch.softmax(z, 1).detach()
    h = (p.sqrt() * xi * torch.log_softmax(z, 1)).sum()
    (grad,) = torch.autograd.grad(h, z)
    a = core_factor_torch(z, None, "softmax")
    np.testing.assert_allclose(grad.numpy(), torch.einsum("bcr,br->bc", a, xi).numpy(), atol=1e-14)
    for i in range(5):
        pi = p[i].numpy()
        np.testing.assert_allclose(
            (a[i] @ a[i].T).numpy(), np.diag(pi) - np.outer(pi, pi), atol=1e-14
        )
        biased = sum(pi[y] ** 2 * np.outer(np.eye(4)[y] - pi, np.eye(4)[y] - pi) for y in range(4))
        assert np.trace(biased) < 0.9 * np.trace(np.diag(pi) - np.outer(pi, pi))


def test_two_classes_lower_bound_is_exact():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(30, 3))
    model = torch.nn.Linear(3, 2).double()
    f = fisher_information(model, x)
    f_lr = fisher_information(model, x, bound="lower")
    np.testing.assert_allclose(f_lr.matrix, f.matrix, atol=1e-13)


def test_loewner_sandwich_for_an_mlp():
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 4)
    ).double()
    x = np.random.default_rng(2).normal(size=(25, 3))
    mats = {b: fisher_information(model, x, bound=b).matrix for b in (None, "lower", "upper")}
    scale = np.abs(mats["upper"]).max()
    assert np.linalg.eigvalsh(mats[None] - mats["lower"]).min() > -1e-10 * scale
    assert np.linalg.eigvalsh(mats["upper"] - mats[None]).min() > -1e-10 * scale
    loop = fisher_information(model, x, engine="loop")
    np.testing.assert_allclose(loop.matrix, mats[None], atol=1e-12)
    hut = fisher_information(model, x, method="hutchinson", probes=2000, batch_size=5).trace
    assert abs(hut.value - np.trace(mats[None])) < 4 * hut.stderr


def test_sigmoid_output_matches_logistic_fim():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(20, 3))
    model = torch.nn.Linear(3, 2, bias=False).double()
    w = model.weight.detach().numpy()
    s = 1 / (1 + np.exp(-(x @ w.T)))
    truth = (
        sum(np.kron(np.diag(ss * (1 - ss)), np.outer(xx, xx)) for ss, xx in zip(s, x, strict=True))
        / 20
    )
    f = fisher_information(model, x, output="sigmoid")
    np.testing.assert_allclose(f.matrix, truth, atol=1e-13)
    h = fisher_information(model, x, output="sigmoid", method="hutchinson", probes=3000).trace
    assert abs(h.value - np.trace(truth)) < 4 * h.stderr


def test_core_space_facts():
    rng = np.random.default_rng(4)
    for _ in range(20):
        p = rng.dirichlet(np.full(6, 0.5))
        lam = core.core_spectrum(p)
        assert abs(lam[0]) < 1e-12
        assert lam.sum() == pytest.approx(1 - p @ p, abs=1e-12)
        lo, hi = core.top_eigen_bounds(p)
        assert lo - 1e-12 <= lam[-1] <= hi + 1e-12
        full = core.core_matrix(p)
        for b in (None, "upper", "lower"):
            a = core.core_factor(p, b)
            np.testing.assert_allclose(a @ a.T, core.core_matrix(p, b), atol=1e-12)
        assert np.linalg.eigvalsh(full - core.core_matrix(p, "lower")).min() > -1e-12
        assert np.linalg.eigvalsh(core.core_matrix(p, "upper") - full).min() > -1e-12
    with pytest.raises(ValueError, match="p sums to 1.1, not 1"):
        core.core_matrix([0.5, 0.6])


def test_per_tensor_table_and_selection():
    torch.manual_seed(1)
    model = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.ReLU(), torch.nn.Linear(5, 3))
    x = np.random.default_rng(5).normal(size=(16, 3)).astype(np.float32)
    fi = fisher_information(model, x, method="hutchinson", probes=50, batch_size=4)
    df = fi.per_tensor()
    assert list(df.tensor) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert sum(e.value for e in df.trace) == pytest.approx(fi.trace.value, rel=1e-9)
    assert all(e.stderr is not None for e in df.trace)
    assert {k: v.shape for k, v in fi.diag_dict().items()}["0.weight"] == (5, 3)
    part = fisher_information(model, x, params=["2.weight"])
    assert part.names == ("2.weight",) and part.n_params == 15
    again = fisher_information(model, x, method="hutchinson", probes=50, batch_size=4)
    np.testing.assert_array_equal(again.diag, fi.diag)  # seeded: bit-identical rerun
    assert model.training  # mode restored


def test_bad_input():
    model = torch.nn.Linear(3, 2)
    x = np.zeros((4, 3), dtype=np.float32)
    with pytest.raises(ValueError, match="x contains NaN"):
        fisher_information(model, np.array([[0.0, np.nan, 1.0]]))
    with pytest.raises(TypeError, match="torch.nn.Module"):
        fisher_information(lambda t: t, x)
    with pytest.raises(ValueError, match="method"):
        fisher_information(model, x, method="kfac")
    with pytest.raises(ValueError, match="bound"):
        fisher_information(model, x, bound="middle")
    with pytest.raises(ValueError, match="bound must be None"):
        fisher_information(model, x, output="sigmoid", bound="upper")
    with pytest.raises(ValueError, match="not parameters.*valid names"):
        fisher_information(model, x, params=["nope"])
    with pytest.raises(ValueError, match="probes must be >= 1"):
        fisher_information(model, x, method="hutchinson", probes=0)
    with pytest.raises(ValueError, match="logits of shape"):
        fisher_information(torch.nn.Linear(3, 1), x)
    bad = torch.nn.Linear(3, 2)
    with torch.no_grad():
        bad.weight.fill_(float("inf"))
    with pytest.raises(ValueError, match="non-finite logits for sample 0"):
        fisher_information(bad, np.ones((2, 3), dtype=np.float32))


def test_device_mismatch_is_an_error():
    model = torch.nn.Linear(3, 2)
    with pytest.raises(ValueError, match="model is on cpu but device='meta'"):
        fisher_information(model, np.zeros((2, 3)), device=torch.device("meta"))
    # a device name goes through infometer.core.validation.resolve_device (issue 29)
    with pytest.raises(ValueError, match="device 'meta': only cpu, cuda and mps"):
        fisher_information(model, np.zeros((2, 3)), device="meta")
    meta = torch.nn.Linear(3, 2, device="meta")
    with pytest.raises(ValueError, match="x is on cpu but the model is on meta"):
        fisher_information(meta, torch.zeros(2, 3))
    with pytest.raises(ValueError, match="not a torch device"):
        fisher_information(model, np.zeros((2, 3)), device="gpu0")
