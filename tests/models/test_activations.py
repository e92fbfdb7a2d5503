"""FleS modules, the factory and the swap helper: known answers and bad input.

Ground truths: SiLU (κ = 1), κ_ve·ReLU (κ_ho → ∞, with the exact worst-case gap
sup_t t·σ(−κt) = W/κ, W = 0.278464542761074 the root of u − 1 = e^{−u}... see below),
softplus(0.6 + 1e-3·μ) recomputed in numpy from the batch, and exact equality of
element-wise outputs where the computation does not depend on batch-mates.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from infometer.systems.models.activations import (  # noqa: E402
    FLES_KINDS,
    KINDS,
    FleS,
    FleSProto,
    find_activations,
    gate_values,
    kind_of,
    make_activation,
    swap_activations,
)
from infometer.systems.models.activations.nets import PatchTransformer, SmallResNet  # noqa: E402
from infometer.systems.probes.flow import TinyTransformer  # noqa: E402

# max_u u·σ(−u) = u/(1 + e^u): the maximiser solves 1 + e^u = u e^u, i.e. u = 1 + e^{−u},
# and the maximum is then u − 1 (W below, computed by fixed-point iteration of u = 1 + e^{-u}).
_u = 1.0
for _ in range(200):
    _u = 1.0 + math.exp(-_u)
W = _u - 1.0


def _softplus(v):
    return np.log1p(np.exp(v))


# ------------------------------------------------------------------ known answers
def test_kappa_one_is_silu_exactly():
    x = torch.randn(5, 7, 16, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    act = FleSProto(16).double()
    with torch.no_grad():  # α = 0, γ = log(e − 1): κ = softplus(γ) = 1 (to float64 rounding)
        act.alpha_ve.zero_()
        act.alpha_ho.zero_()
        act.gamma_ve.fill_(math.log(math.e - 1))
        act.gamma_ho.fill_(math.log(math.e - 1))
    k_ve, k_ho = act.kappas(x)
    assert torch.allclose(k_ve, torch.ones_like(k_ve), rtol=0, atol=1e-15)
    # the module's φ against x·σ(x); the only difference is κ's last-bit rounding
    assert torch.allclose(act(x), x * torch.sigmoid(x), rtol=1e-14, atol=1e-15)
    assert torch.allclose(act(x), torch.nn.functional.silu(x), rtol=1e-14, atol=1e-15)
    # with κ exactly 1.0 the kernel is bit for bit x·σ(x)
    from infometer.systems.models.activations._functional import fles_phi

    assert torch.equal(fles_phi(x, 1.0, 1.0), torch.sigmoid(x) * x)


@pytest.mark.parametrize("kve", [0.5, 1.0, 2.5])
def test_kappa_ho_to_infinity_is_scaled_relu(kve):
    from infometer.systems.models.activations._functional import fles_phi

    x = torch.linspace(-20, 20, 40001, dtype=torch.float64)
    gaps = []
    for kho in [1.0, 10.0, 100.0, 1000.0]:
        gap = (fles_phi(x, kve, kho) - kve * torch.relu(x)).abs().max().item()
        # the exact sup over all x is kve·W/kho; the grid (step 1e-3) reaches it within
        # kve·(step·slope) ≤ 1e-3·kve relative to the sup for kho ≤ 1000
        assert gap <= kve * W / kho * (1 + 1e-12)
        assert gap >= kve * W / kho * (1 - 0.3)
        gaps.append(gap)
    assert all(a > b for a, b in zip(gaps, gaps[1:], strict=False))
    far = x.abs() > 0.1  # σ(−1e4·0.1) = e^{−1000}: 0 in float64
    assert torch.equal(fles_phi(x, kve, 1e4)[far], (kve * torch.relu(x))[far])


def test_proto_initial_kappa():
    g = torch.Generator().manual_seed(1)
    x = torch.randn(6, 9, 12, generator=g, dtype=torch.float64) + 0.3
    act = FleSProto(12).double().train()
    k_ve, k_ho = act.kappas(x)
    xn = x.numpy().reshape(-1, 12)
    pos = np.where(xn >= 0, xn, 0.0).sum(0) / (xn >= 0).sum(0)  # x̄⁺ per channel
    mu = pos / pos.mean()
    # the parameters are float32 (torch's default) cast to float64: α, γ carry float32 rounding
    a0, g0 = float(np.float32(1e-3)), float(np.float32(0.6))
    want = _softplus(g0 + a0 * mu)
    np.testing.assert_allclose(k_ve.detach().numpy(), want, rtol=1e-13)
    np.testing.assert_allclose(k_ho.detach().numpy(), want, rtol=1e-13)
    # the brief's 1.0375 = softplus(0.6); μ averages 1 so κ is within 1e-3·max μ of it
    assert abs(_softplus(0.6) - 1.0375) < 1e-4
    assert np.all(np.abs(want - _softplus(0.6)) <= 1e-3 * mu.max())


def test_fles_mlp_starts_at_softplus_06():
    act = FleS(64, seed=3)
    x = torch.randn(4, 5, 64, generator=torch.Generator().manual_seed(0))
    k_ve, k_ho = act.kappas(x)
    # last layer: bias 0.6, weights 1e-3 × default init (|w| ≤ 1e-3/√2, ReLU hidden ≤ ~2)
    assert torch.allclose(k_ve, torch.full_like(k_ve, _softplus(0.6)), atol=5e-3)
    assert act.mlp_ve[0].out_features == 2  # reduction 32


def test_dg_has_no_statistics_and_pn_uses_both_signs():
    x = torch.randn(8, 16, generator=torch.Generator().manual_seed(2))
    dg = make_activation("fles_dg", 16)
    a, b = dg.kappas(x)
    assert torch.allclose(a, torch.full_like(a, _softplus(0.6)), rtol=1e-6)
    assert not any("running" in n for n, _ in dg.named_parameters())
    pn = make_activation("fles_pn", 16).train()
    assert torch.allclose(pn.cue(x), x.mean(0), atol=1e-6)
    fl = make_activation("fles", 16).train()
    want = torch.where(x >= 0, x, 0).sum(0) / (x >= 0).sum(0).clamp_min(1)
    assert torch.allclose(fl.cue(x), want, atol=1e-6)


def test_running_cue_follows_batchnorm_momentum():
    act = FleSProto(3, momentum=0.25).train()
    x1 = torch.tensor([[1.0, -1.0, 2.0], [3.0, -2.0, -1.0]])
    act(x1)
    # x̄⁺ = (2, 0, 2); running = 0.75·1 + 0.25·x̄⁺
    assert torch.allclose(act.running_cue, torch.tensor([1.25, 0.75, 1.25]))
    cum = FleSProto(3, momentum=None).train()
    cum(x1)
    cum(torch.tensor([[4.0, 1.0, 0.0]]))
    assert torch.allclose(cum.running_cue, torch.tensor([3.0, 0.5, 1.0]))  # mean of both


@pytest.mark.parametrize("kind", FLES_KINDS)
def test_eval_output_independent_of_batch_mates(kind):
    g = torch.Generator().manual_seed(4)
    act = make_activation(kind, 10)
    act.train()
    for _ in range(3):
        act(torch.randn(16, 6, 10, generator=g))
    act.eval()
    s = torch.randn(1, 6, 10, generator=g)
    a = act(torch.cat([s, torch.randn(7, 6, 10, generator=g)]))[0]
    b = act(torch.cat([s, 5 + 3 * torch.randn(3, 6, 10, generator=g)]))[0]
    # element-wise with fixed κ: equal up to float32 vectorisation (a SIMD kernel and its
    # scalar tail may round σ differently by an ulp, ~1.2e-7 relative, for other tensor
    # sizes); a batch-dependent κ would move outputs by ~1e-4 or more here
    assert torch.allclose(a, b, rtol=5e-7, atol=1e-7)
    assert torch.allclose(act(s)[0], a, rtol=5e-7, atol=1e-7)


@pytest.mark.parametrize("kind", ["fles_proto", "fles", "fles_pn"])
def test_train_output_depends_on_batch_mates(kind):
    g = torch.Generator().manual_seed(5)
    act = make_activation(kind, 10, reduction=2).train()  # 5 hidden units: not all dead
    with torch.no_grad():  # make the cue matter (the initial slope 1e-3 is tiny)
        for n, p in act.named_parameters():
            if n.startswith("alpha") or n.endswith("2.weight"):
                p.mul_(1000)
    s = torch.randn(1, 6, 10, generator=g)
    a = act(torch.cat([s, torch.randn(7, 6, 10, generator=g)]))[0]
    b = act(torch.cat([s, 5 + 3 * torch.randn(7, 6, 10, generator=g)]))[0]
    assert (a - b).abs().max() > 1e-3
    sample = make_activation(kind, 10, pooling="sample").train()
    a = sample(torch.cat([s, torch.randn(7, 6, 10, generator=g)]))[0]
    b = sample(torch.cat([s, 5 + torch.randn(2, 6, 10, generator=g)]))[0]
    assert torch.allclose(a, b, rtol=5e-7, atol=1e-7)


def test_gate_values_known():
    x = torch.tensor([-1.0, 0.0, 2.0])
    assert torch.allclose(gate_values(torch.nn.SiLU(), x), torch.sigmoid(x))
    assert torch.equal(gate_values(torch.nn.ReLU(), x), torch.tensor([0.0, 0.0, 1.0]))
    gel = gate_values(torch.nn.GELU(), x)
    assert torch.allclose(gel * x, torch.nn.functional.gelu(x), atol=1e-7)
    gt = gate_values(torch.nn.GELU(approximate="tanh"), x)
    assert torch.allclose(gt * x, torch.nn.functional.gelu(x, approximate="tanh"), atol=1e-7)
    act = FleSProto(3).eval()
    k = _softplus(0.6 + 1e-3)  # running cue starts at 1 in every channel: μ = 1
    assert torch.allclose(gate_values(act, x[None]), torch.sigmoid(k * x)[None], atol=1e-6)


# ------------------------------------------------------------------------ the swap
def _check_swap(model, x, kind, **kw):
    before = {n: tuple(p.shape) for n, p in model.named_parameters()}
    torch.manual_seed(0)
    out0 = model(**x) if isinstance(x, dict) else model(x)
    out0 = getattr(out0, "last_hidden_state", out0)
    names = swap_activations(model, kind, **kw)
    after = {n: tuple(p.shape) for n, p in model.named_parameters()}
    assert {n: after[n] for n in before} == before  # every name kept, same shapes
    added = set(after) - set(before)
    assert all(any(a.startswith(nm + ".") for nm in names) for a in added)
    if kind in FLES_KINDS and kind != "fles_dg":
        assert added
    out1 = model(**x) if isinstance(x, dict) else model(x)
    out1 = getattr(out1, "last_hidden_state", out1)
    assert out1.shape == out0.shape
    assert all(kind_of(model.get_submodule(nm)) == kind for nm in names)
    return names


@pytest.mark.parametrize("kind", KINDS)
def test_swap_tiny_transformer(kind):
    m = TinyTransformer(11, d_model=16, n_layers=3)
    names = _check_swap(m, torch.randint(0, 11, (2, 5)), kind)
    assert names == ["blocks.0.mlp.1", "blocks.1.mlp.1", "blocks.2.mlp.1"]


def test_swap_patch_transformer_and_resnet():
    _check_swap(PatchTransformer(4, 16, 10, d_model=16), torch.randn(3, 16, 4), "fles")
    r = SmallResNet(width=4)
    names = _check_swap(r, torch.randn(2, 1, 8, 8), "fles_proto")
    assert names == ["relu", "layer1.0.relu", "layer2.0.relu"]
    assert r.layer2[0].relu.channels == 8 and r.layer2[0].relu.channel_dim == 1


def test_swap_state_dict_round_trip():
    m = TinyTransformer(7, d_model=8, n_layers=2)
    sd = m.state_dict()
    swap_activations(m, "fles")
    res = m.load_state_dict(sd, strict=False)
    assert res.unexpected_keys == []
    assert all(".mlp.1." in k for k in res.missing_keys)


def test_swap_example_input_gives_channels():
    m = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.GELU(), torch.nn.Linear(12, 2))
    with pytest.raises(ValueError, match="example_input"):
        swap_activations(m, "fles")
    swap_activations(m, "fles", example_input=torch.randn(2, 3, 4))
    assert m[1].channels == 12
    assert m(torch.randn(5, 3, 4)).shape == (5, 2)


@pytest.mark.slow
def test_swap_hugging_face_bert():
    pytest.importorskip("transformers")
    from infometer.systems.models.activations.nets import tiny_bert

    m = tiny_bert(seed=0)
    ids = {"input_ids": torch.randint(0, 64, (2, 6), generator=torch.Generator().manual_seed(0))}
    names = _check_swap(m, ids, "fles")
    assert names == [
        "encoder.layer.0.intermediate.intermediate_act_fn",
        "encoder.layer.1.intermediate.intermediate_act_fn",
    ]
    assert m.encoder.layer[0].intermediate.intermediate_act_fn.channels == 64


# ----------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [
        (lambda: make_activation("swish"), ValueError, "kind"),
        (lambda: make_activation("fles"), ValueError, "channels"),
        (lambda: make_activation("fles", 0), ValueError, "channels"),
        (lambda: make_activation("fles", 2.5), TypeError, "channels"),
        (lambda: make_activation("fles_proto", 4, pooling="tokens"), ValueError, "pooling"),
        (lambda: make_activation("fles_proto", 4, momentum=1.5), ValueError, "momentum"),
        (lambda: make_activation("fles", 4, reduction=0), ValueError, "reduction"),
        (lambda: FleSProto(4)(torch.randn(3, 5)), ValueError, "channels"),
        (lambda: FleSProto(4)(torch.ones(3, 4, dtype=torch.long)), TypeError, "floating"),
        (lambda: FleSProto(4)([1.0, 2.0]), TypeError, "tensor"),
        (lambda: FleSProto(4, channel_dim=3)(torch.randn(3, 4)), ValueError, "channel_dim"),
        (lambda: FleSProto(4, pooling="sample")(torch.randn(4)), ValueError, "pooling"),
        (lambda: swap_activations("model", "fles"), TypeError, "model"),
        (lambda: swap_activations(torch.nn.Linear(2, 2), "fles"), ValueError, "nothing to swap"),
        (lambda: swap_activations(TinyTransformer(3), "mish"), ValueError, "kind"),
        (lambda: swap_activations(TinyTransformer(3), "fles", select=1), TypeError, "select"),
        (
            lambda: swap_activations(TinyTransformer(3), "gelu", select=lambda n, m: False),
            ValueError,
            "select",
        ),
        (lambda: swap_activations(TinyTransformer(3), "fles", seed=-1), ValueError, "seed"),
        (lambda: find_activations(3), TypeError, "model"),
        (lambda: gate_values(torch.nn.Tanh(), torch.zeros(2)), TypeError, "module"),
        (lambda: PatchTransformer(4, 16, 10)(torch.randn(2, 16, 3)), ValueError, "shape"),
    ],
)
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_docstring_examples_run():
    import doctest

    from infometer.systems.models.activations import modules, swap, theory

    for mod in (modules, swap, theory):
        res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        assert res.failed == 0, mod.__name__


def test_lazy_names():
    import infometer.systems.models as m

    assert m.make_activation is make_activation
    assert m.swap_activations is swap_activations
