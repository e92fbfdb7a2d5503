"""Information through gates: layer curves, ΔI, gate entropy, batch dependence.

Ground truths: gate values of known pre-activations (a Linear layer set to the identity)
binned and counted in numpy; ReLU's gate is 1 on its top decile (entropy exactly 0); a
model without batch statistics gives outputs that do not depend on batch-mates (exactly 0
bits); paired differences and their stderr recomputed in numpy.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

torch = pytest.importorskip("torch")

import infometer as im  # noqa: E402
from infometer.estimators.neural.layers import collect_activations  # noqa: E402
from infometer.systems.models.activations import find_activations, swap_activations  # noqa: E402
from infometer.systems.models.activations.information import (  # noqa: E402
    batch_dependence,
    default_layers,
    gate_bits,
    gate_entropy,
    layer_curves,
    plot_layer_curves,
)
from infometer.systems.models.activations.nets import PatchTransformer  # noqa: E402
from infometer.systems.models.activations.tasks import context_task  # noqa: E402


def _identity_then(act: torch.nn.Module, d: int = 4) -> torch.nn.Sequential:
    lin = torch.nn.Linear(d, d)
    with torch.no_grad():
        lin.weight.copy_(torch.eye(d))
        lin.bias.zero_()
    return torch.nn.Sequential(lin, act)


def _plugin_bits(codes: np.ndarray) -> float:
    p = np.bincount(codes) / codes.size
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum())


def test_default_layers_and_nested_activations():
    net = PatchTransformer(4, 16, 2, d_model=8, n_layers=2)
    swap_activations(net, "fles")
    assert default_layers(net) == ["blocks.0.mlp.1", "blocks.0", "blocks.1.mlp.1", "blocks.1"]
    # the ReLUs inside FleS's MLPs are not activations of the model: a second swap replaces
    # the FleS modules themselves
    assert find_activations(net) == ["blocks.0.mlp.1", "blocks.1.mlp.1"]
    assert swap_activations(net, "gelu") == ["blocks.0.mlp.1", "blocks.1.mlp.1"]
    assert isinstance(net.blocks[0].mlp[1], torch.nn.GELU)


def test_gate_entropy_matches_numpy_count():
    x = torch.as_tensor(np.random.default_rng(0).normal(0, 2, (500, 4)), dtype=torch.float32)
    df = gate_entropy(
        _identity_then(torch.nn.SiLU()), x, top=0.2, bins=8, method="plugin", unit="bits"
    )
    pre = x.numpy().ravel().astype(np.float64)
    sel = pre[pre >= np.quantile(pre, 0.8)]
    codes = np.minimum((1 / (1 + np.exp(-sel)) * 8).astype(int), 7)
    assert df["n_top"][0] == sel.size
    assert df["entropy"][0] == pytest.approx(_plugin_bits(codes), abs=1e-6)  # float32 gates
    assert df["ceiling"][0] == pytest.approx(3.0)


def test_relu_gate_entropy_is_zero():
    x = torch.randn(300, 4, generator=torch.Generator().manual_seed(1))
    df = gate_entropy(_identity_then(torch.nn.ReLU()), x)
    # one occupied bin: 0 up to the estimator's float rounding (it may come out -1e-15)
    assert abs(df["entropy"][0]) < 1e-12 and df["top_bin_fraction"][0] == 1.0


def test_convergence_limitation_collapses_fixed_gate_not_small_slope():
    # wide pre-activations: SiLU's gate is ~1 on the whole top decile (Theorem 3.1), a FleS
    # gate with κ_ho = 0.05 still spreads them over several bins
    x = torch.as_tensor(np.random.default_rng(2).normal(0, 20, (400, 8)), dtype=torch.float32)
    fixed = gate_entropy(_identity_then(torch.nn.SiLU(), 8), x, unit="bits")
    fl = swap_net = _identity_then(torch.nn.SiLU(), 8)
    swap_activations(swap_net, "fles_dg")
    with torch.no_grad():
        fl[1].gamma_ho.fill_(math.log(math.expm1(0.05)))  # softplus(γ) = 0.05
    flexible = gate_entropy(fl, x, unit="bits")
    assert fixed["entropy"][0] < 0.01  # the top decile starts at x̃ ≈ 25.6: σ > 1 − 1e-11
    assert flexible["entropy"][0] > 1.0
    assert flexible["kappa_ho"][0] == pytest.approx(0.05, rel=1e-5)


def test_batch_dependence_zero_without_statistics_positive_with():
    x, y = context_task(200, seed=3)
    net = PatchTransformer(4, 16, 2, d_model=8, n_layers=1, seed=0)
    e0 = batch_dependence(net, x, y, n_probe=6, repeats=4, batch_size=8, unit="bits")
    assert e0.value == 0.0 and e0.diagnostics["outputs_identical"]
    swap_activations(net, "fles_proto")
    with torch.no_grad():  # a strong cue: κ moves with the batch's mean positive response
        for m in net.modules():
            if hasattr(m, "alpha_ve"):
                m.alpha_ve.fill_(3.0)
                m.alpha_ho.fill_(3.0)
    tr = batch_dependence(net, x, y, n_probe=6, repeats=4, batch_size=8, mode="train", unit="bits")
    ev = batch_dependence(net, x, y, n_probe=6, repeats=4, batch_size=8, mode="eval", unit="bits")
    assert tr.unit == "bits" and tr.diagnostics["ceiling"] == pytest.approx(1.0)
    assert tr.diagnostics["max_abs_change"] > 1e-4
    assert ev.value == 0.0 and ev.diagnostics["outputs_identical"]
    # the model keeps its running cue: batch_dependence works on a copy
    assert all(
        torch.equal(m.running_cue, torch.ones_like(m.running_cue))
        for m in net.modules()
        if hasattr(m, "running_cue")
    )


def test_batch_dependence_detects_class_of_mates():
    # class 0 responds in channels 0-1, class 1 in channels 2-3: the normalised cue μ of a
    # batch, hence κ and the probe's output, tells the mates' class apart (two well separated
    # clusters of Δ): I(Δ; C) is near its ceiling H(C) = 1 bit.  kNN at 96 rows is within
    # ~0.15 bits of 1 for such clusters; 0.75 leaves room for its bias.
    rng = np.random.default_rng(4)
    y = np.repeat([0, 1], 60)
    x = rng.normal(0, 1, (120, 4))
    x[y == 0, :2] += 3.0
    x[y == 1, 2:] += 3.0
    net = _identity_then(torch.nn.SiLU())
    swap_activations(net, "fles_proto")
    with torch.no_grad():
        net[1].alpha_ve.fill_(3.0)
        net[1].alpha_ho.fill_(3.0)
    e = batch_dependence(net, x, y, n_probe=12, repeats=4, batch_size=8, unit="bits")
    assert 0.75 < e.value <= 1.0 + 0.1
    assert e.diagnostics["ceiling"] == pytest.approx(1.0)


def test_gate_bits_paired_by_seed():
    rows = []
    vals = {"gelu": [1.0, 1.2, 0.9], "fles": [1.1, 1.5, 1.0]}
    for label, vs in vals.items():
        for seed, v in enumerate(vs):
            rows.append((label, seed, v))
    frames = {
        lab: pd.DataFrame(
            [
                {
                    "layer": "b0",
                    "quantity": "I(T;Y)",
                    "value": v,
                    "unit": "bits",
                    "position": 0,
                    "seed": s,
                }
                for l2, s, v in rows
                if l2 == lab
            ]
        )
        for lab in vals
    }
    out = gate_bits(frames)
    d = np.array(vals["fles"]) - np.array(vals["gelu"])
    assert out["delta"][0] == pytest.approx(d.mean(), rel=1e-12)
    assert out["stderr"][0] == pytest.approx(d.std(ddof=1) / math.sqrt(3), rel=1e-12)
    assert out["n_seeds"][0] == 3


def test_layer_curves_is_layer_info():
    x, y = context_task(80, seed=5)
    net = PatchTransformer(4, 16, 2, d_model=8, n_layers=1, seed=0)
    df = layer_curves(net, x, y, max_rows=None, unit="bits")
    assert list(df["layer"].unique()) == ["blocks.0.mlp.1", "blocks.0"]
    assert list(df["kind"].unique()) == ["gelu", "block"]
    t = collect_activations(net, torch.as_tensor(x), ["blocks.0.mlp.1"])["blocks.0.mlp.1"]
    direct = im.mutual_info(t, y, method="matrix_renyi", unit="bits")  # int y: discrete
    row = df[(df["layer"] == "blocks.0.mlp.1") & (df["quantity"] == "I(T;Y)")]
    assert row["value"].iloc[0] == pytest.approx(direct.value, rel=1e-9)
    ax = plot_layer_curves(df.assign(model="gelu"))
    assert ax.get_ylabel() == "I(T;Y) [bits]"


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [
        (lambda: gate_entropy("net", torch.zeros(2, 4)), TypeError, "model"),
        (lambda: gate_entropy(torch.nn.Linear(2, 2), torch.zeros(2, 2)), ValueError, "activation"),
        (
            lambda: gate_entropy(_identity_then(torch.nn.SiLU()), torch.zeros(2, 4), top=0),
            ValueError,
            "top",
        ),
        (
            lambda: gate_entropy(_identity_then(torch.nn.SiLU()), torch.zeros(2, 4), bins=1),
            ValueError,
            "bins",
        ),
        (
            lambda: gate_entropy(_identity_then(torch.nn.SiLU()), np.array([["a"] * 4])),
            TypeError,
            "x",
        ),
        (
            lambda: gate_entropy(_identity_then(torch.nn.SiLU()), torch.full((2, 4), math.nan)),
            ValueError,
            "x",
        ),
        (
            lambda: batch_dependence(
                _identity_then(torch.nn.SiLU()), torch.zeros(4, 4), np.zeros(4, dtype=int)
            ),
            ValueError,
            "2 classes",
        ),
        (
            lambda: batch_dependence(
                _identity_then(torch.nn.SiLU()),
                torch.zeros(4, 4),
                np.array([0, 1, 0, 1]),
                mode="test",
            ),
            ValueError,
            "mode",
        ),
        (
            lambda: batch_dependence(
                _identity_then(torch.nn.SiLU()), torch.zeros(4, 4), np.array([0, 1, 0])
            ),
            ValueError,
            "rows",
        ),
        (
            lambda: batch_dependence(
                _identity_then(torch.nn.SiLU()),
                torch.zeros(4, 4),
                np.array([0, 1, 0, 1]),
                n_probe=9,
            ),
            ValueError,
            "n_probe",
        ),
        (
            lambda: batch_dependence(
                _identity_then(torch.nn.SiLU()), torch.zeros(4, 4), np.array([0.5, 1, 0, 1])
            ),
            ValueError,
            "y",
        ),
        (
            lambda: layer_curves(
                PatchTransformer(4, 16, 2, d_model=8), np.zeros((4, 16, 4)), np.zeros(3, dtype=int)
            ),
            ValueError,
            "rows",
        ),
        (
            lambda: layer_curves(
                PatchTransformer(4, 16, 2, d_model=8),
                np.zeros((4, 16, 4), dtype=int),
                np.zeros(4, dtype=int),
            ),
            TypeError,
            "x",
        ),
        (lambda: gate_bits({"fles": pd.DataFrame()}), ValueError, "baseline"),
        (lambda: plot_layer_curves(pd.DataFrame({"x": [1]})), ValueError, "column"),
    ],
)
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_docstring_examples_run():
    import doctest

    from infometer.systems.models.activations import information, nets, tasks

    for mod in (information, nets, tasks):
        res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        assert res.failed == 0, mod.__name__
