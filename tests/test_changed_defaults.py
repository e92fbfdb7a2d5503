"""The functions whose defaults moved to the policy (issue 29 §3, docs/api.md "Changed
defaults"): by default they give nats and no interval; ``unit="bits"`` / ``ci=0.95`` give
the old results back.  Closed forms where one exists, else the exact factor ln 2 between
the two units (a unit is converted at the edge, so the ratio holds to rounding)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from infometer.systems.probes import alignment as al
from infometer.systems.probes import decoding as dec
from infometer.systems.probes import imagemaps as maps
from infometer.systems.text import channel_mutual_info, channel_mutual_info_from_scores

LN2 = math.log(2.0)


def _labels():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 200)
    yhat = np.where(rng.random(200) < 0.7, y, rng.integers(0, 3, 200))
    return y, yhat


def _pair():
    rng = np.random.default_rng(1)
    a = rng.normal(size=(60, 6))
    return a, a + 0.5 * rng.normal(size=(60, 6))


def test_closed_forms_come_in_nats_by_default():
    # Fano at accuracy 1 on k classes: I >= log k; JSD of disjoint pmfs: log 2;
    # a patch of two equally frequent levels (plug-in): log 2
    assert dec.fano_bound(1.0, 5).value == pytest.approx(math.log(5), abs=1e-12)
    assert dec.fano_bound(1.0, 5).unit == "nats"
    assert al.js_divergence_pmf([1, 0], [0, 1]).value == pytest.approx(LN2, abs=1e-12)
    two = np.zeros((16, 16))
    two[:, 8:] = 1.0
    h = maps.patch_entropy_map(two, 16, bins=2, method="plugin")
    assert h[0, 0] == pytest.approx(LN2, abs=1e-12)


CASES = {
    "fano_bound": lambda **kw: dec.fano_bound(0.7, 3, n_trials=200, **kw),
    "fano_from_predictions": lambda **kw: dec.fano_from_predictions(*_labels(), **kw),
    "js_divergence": lambda **kw: al.js_divergence(*_pair(), **kw),
    "infonce_bound": lambda **kw: al.infonce_bound(z_a=_pair()[0], z_b=_pair()[1], **kw),
    "channel_mutual_info_from_scores": lambda **kw: channel_mutual_info_from_scores(
        np.log(np.full((8, 8), 0.02) + 0.84 * np.eye(8)), **kw
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_default_is_nats_without_interval_and_the_old_call_gives_bits_with_one(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ceilings and vacuous bounds: not the point here
        new = CASES[name]()
        old = CASES[name](unit="bits", ci=0.95)
    assert new.unit == "nats" and new.ci is None and new.ci_level is None
    assert old.unit == "bits" and old.ci is not None and old.ci_level == 0.95
    assert old.stderr is not None  # an interval comes with the standard error behind it
    assert new.value == pytest.approx(old.value * LN2, rel=1e-12, abs=1e-15)


def test_unit_only_functions_default_to_nats():
    y, yhat = _labels()
    proba = np.full((200, 3), 0.15)
    proba[np.arange(200), y] = 0.7
    ce, ce_bits = dec.cross_entropy_bound(proba, y), dec.cross_entropy_bound(proba, y, unit="bits")
    assert ce.unit == "nats" and ce.value == pytest.approx(ce_bits.value * LN2, rel=1e-12)
    test = dec.permutation_test(y, predictions=yhat, n_permutations=19)
    bits = dec.permutation_test(y, predictions=yhat, n_permutations=19, unit="bits")
    assert test.statistic.unit == "nats" and test.p_value == bits.p_value
    assert np.allclose(test.null, bits.null * LN2, rtol=1e-12, atol=1e-15)


def test_text_channel_mi_has_no_interval_unless_asked():
    contexts = [f"item {i} costs {i * 7} dollars and ships on day {i}" for i in range(6)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        new = channel_mutual_info(contexts, lambda c: c)
        old = channel_mutual_info(contexts, lambda c: c, ci=0.95)
    assert new.unit == "nats" and new.ci is None and old.ci is not None
    assert new.value == pytest.approx(old.value, rel=1e-12)  # the value does not change


def test_flow_and_activations_default_to_nats():
    torch = pytest.importorskip("torch")
    from infometer.systems.models.activations.information import gate_entropy
    from infometer.systems.probes import flow

    v, t, j, big = 10, 6, 2, 5.0
    m = flow.copy_circuit(v, t, j, big)
    x = torch.zeros(4, t, dtype=torch.long)
    x[:, j] = torch.tensor([1, 3, 5, 9])
    # cutting last <- j: the answer's surprisal rises by log(V e^L / (e^L + V - 1)) nats
    want = math.log(v * math.exp(big) / (math.exp(big) + v - 1))
    e = flow.knockout_effect(m, x, (t - 1, j), (0,))
    assert e["delta_bits"].unit == "nats" and e["delta_bits"].ci is None
    assert e["delta_bits"].value == pytest.approx(want, abs=1e-12)
    df = flow.attention_knockout(m, x, {"cut": (t - 1, j)})
    assert df["delta_bits"].iloc[0] == pytest.approx(want, abs=1e-12)
    assert df["delta_bits_lo"].isna().all() and set(df["unit"]) == {"nats"}
    lens, lens_bits = flow.logit_lens(m, x), flow.logit_lens(m, x, unit="bits")
    assert set(lens["unit"]) == {"nats"} and (lens["entropy"] > 0).any()
    assert np.allclose(lens["entropy"], lens_bits["entropy"] * LN2, rtol=1e-12, atol=1e-15)
    pruned = flow.prune_to_paths(m, x, [(t - 1, j, (0,))])
    assert pruned.delta_bits.unit == "nats"
    net = torch.nn.Sequential(torch.nn.Linear(3, 16), torch.nn.SiLU())
    xs = torch.randn(400, 3, generator=torch.Generator().manual_seed(0))
    nats, bits = gate_entropy(net, xs), gate_entropy(net, xs, unit="bits")
    assert set(nats["unit"]) == {"nats"} and nats["entropy"].iloc[0] > 0.1  # gates spread
    assert np.allclose(nats["entropy"], bits["entropy"] * LN2, rtol=1e-12, atol=1e-15)
