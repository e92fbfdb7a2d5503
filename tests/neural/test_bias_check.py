"""The neural bounds' check of their own bias at the user's sample size (issue 35 §3).

The same estimator, with the same settings and as many rows, is trained on a reference of
known MI (a Gaussian sample with the data's correlation matrix, or the rows with ``y``
shuffled: MI 0); ``estimate on the reference − its MI`` is ``diagnostics["bias_check"]``,
widens every interval and warns when it is not small next to the value.  The defaults
(``hidden=None``, ``eval_every=None``) scale the critic and the early stopping to the rows.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import infometer as im
from infometer.core.data import as_variables
from infometer.estimators.neural._reference import reference_data

torch = pytest.importorskip("torch")

RHO = 0.8
D = 2
TRUTH = -D / 2 * math.log(1 - RHO**2)  # 1.02 nats


def gaussian(n, seed, rho=RHO):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, D))
    return x, rho * x + math.sqrt(1 - rho**2) * rng.normal(size=(n, D))


def test_reference_data_has_the_known_answer():
    from infometer.measures.truth.closed_forms import gaussian_mutual_info

    x, y = gaussian(2000, seed=0)
    v = as_variables({"x": x, "y": y})
    kind, ref, truth, _ = reference_data(v, seed=3)
    assert kind == "gaussian_reference" and ref["x"].n == ref["y"].n == 2000
    # the reference's MI is the closed form of the data's correlation matrix (exact), which
    # is the population MI up to sampling error (sd ~ rho sqrt(2 D / n) ~ 0.025 nats here)
    corr = np.corrcoef(np.hstack([x, y]).T)
    assert truth == pytest.approx(gaussian_mutual_info(corr, D), rel=1e-9)
    assert abs(truth - TRUTH) < 0.1
    # the reference sample has that correlation up to sampling error (se ~ 0.01)
    c2 = np.corrcoef(np.hstack([ref["x"].values, ref["y"].values]).T)
    assert np.abs(c2 - corr).max() < 0.06
    again = reference_data(v, seed=3)[1]
    assert np.array_equal(again["y"].values, ref["y"].values)  # seeded
    # discrete columns, or a deterministic (singular) relation: shuffled pairs, MI 0
    codes = np.random.default_rng(1).integers(0, 4, 500)
    for pair in ({"x": codes, "y": codes % 2}, {"x": x[:, :1], "y": np.c_[x[:, 0], 2 * x[:, 0]]}):
        v = as_variables(pair)
        kind, ref, truth, _ = reference_data(v, seed=0)
        assert kind == "shuffled_pairs" and truth == 0.0
        assert np.array_equal(ref["x"].values, v["x"].values)
        assert sorted(ref["y"].values[:, 0]) == sorted(v["y"].values[:, 0])
    # conditional MI: a Gaussian reference's truth is the closed-form CMI
    z = np.random.default_rng(2).normal(size=(2000, 1))
    kind, _, truth, _ = reference_data(as_variables({"x": x, "y": y, "z": z}), seed=0)
    assert kind == "gaussian_reference" and abs(truth - TRUTH) < 0.1


def _covers_or_flagged(est, truth):
    flagged = est.diagnostics["bias_check_large"]
    return flagged or est.ci[0] <= truth <= est.ci[1]


def test_independent_gaussians_300_rows_covers_zero_or_is_flagged():
    x, _ = gaussian(300, seed=1)
    y = np.random.default_rng(2).normal(size=(300, D))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = im.mutual_info(x, y, method="infonce", ci=0.95, seed=0)
    d = est.diagnostics
    assert _covers_or_flagged(est, 0.0), (est.value, est.ci, d["bias_check"])
    assert d["bias_check_method"] == "gaussian_reference"
    assert "bias check" in d["ci_method"]
    # the critic was scaled to 216 training rows (docs/neural.md): width 64, evaluated
    # every 27 steps
    assert d["train_rule"] == {"hidden": 64, "eval_every": 27}


def test_correlated_gaussian_300_rows_covers_the_truth_or_is_flagged():
    x, y = gaussian(300, seed=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = im.mutual_info(x, y, method="infonce", ci=0.95, seed=0)
    assert _covers_or_flagged(est, TRUTH), (est.value, est.ci, est.diagnostics["bias_check"])
    # the object API: value ± z·holdout_se widened by the same kind of check
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        obj = im.NeuralMI("infonce", seed=0).fit(x, y).mutual_info(ci=0.95)
    assert _covers_or_flagged(obj, TRUTH), (obj.value, obj.ci)
    assert obj.diagnostics["ci_method"].endswith("widened by the bias check")
    with pytest.raises(ValueError, match="no held-out standard error"):
        im.NeuralMI("dv", steps=5).fit(x, y).mutual_info(ci=0.9)


@pytest.mark.slow
@pytest.mark.parametrize("bound", ["infonce", "smile"])
def test_correlated_gaussian_5000_rows_is_close_and_covered(bound):
    # n = 5000: the defaults reach within 10% of the truth and the check is small
    x, y = gaussian(5000, seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = im.mutual_info(x, y, method=bound, seed=0, n_seeds=2, ci=0.95)
    d = est.diagnostics
    assert _covers_or_flagged(est, TRUTH), (est.value, est.ci, d["bias_check"])
    assert abs(est.value - TRUTH) < 0.1 * TRUTH, est.value
    assert abs(d["bias_check"]) < 0.1 * TRUTH
    assert d["train_rule"]["hidden"] == 256


def test_large_check_warns_and_no_check_when_switched_off():
    # InfoNCE with a batch of 16 cannot exceed log 16 = 2.8 nats; the pair carries 15.6:
    # the reference (same size, same correlation) shows the shortfall, and it warns
    rng = np.random.default_rng(6)
    x = rng.normal(size=(600, 5))
    y = 0.999 * x + math.sqrt(1 - 0.999**2) * rng.normal(size=(600, 5))
    with pytest.warns(im.InfometerWarning, match="model's own error is not small"):
        est = im.mutual_info(x, y, method="infonce", batch_size=16, steps=150, seed=0)
    d = est.diagnostics
    assert d["bias_check_large"] and d["bias_check"] < -5
    assert d["bias_check_reference"]["true_value"] > 10
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        off = im.mutual_info(x, y, method="infonce", batch_size=16, steps=150, bias_check=False)
    assert "bias_check" not in off.diagnostics and off.value == pytest.approx(est.value)


def test_discrete_columns_are_checked_on_shuffled_pairs():
    rng = np.random.default_rng(7)
    a = rng.integers(0, 4, 400)
    b = (a + (rng.random(400) < 0.1)) % 4  # H(B) - H(B|A): about 1.06 nats
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = im.mutual_info(a, b, method="gan_dime", seed=0, steps=300)
    d = est.diagnostics
    assert d["bias_check_method"] == "shuffled_pairs"
    assert d["bias_check_reference"]["true_value"] == 0.0
    assert d["bias_check"] == d["bias_check_reference"]["estimate"]


def test_bad_settings_are_refused_before_training():
    with pytest.raises(TypeError, match="bias_check"):
        im.NeuralMI("infonce", bias_check="yes")
    x, y = gaussian(100, seed=9)
    model = im.NeuralMI("infonce", steps=5, bias_check=False).fit(x, y)
    with pytest.raises(ValueError, match="ci"):
        model.mutual_info(ci=1.5)
