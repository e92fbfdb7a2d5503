"""Decodability to bits: Fano and cross-entropy bounds, intervals, permutation test."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import infometer as im
from infometer.systems.probes import decoding as dec


def _fano_by_hand(acc: float, k: int) -> float:
    """Fano bound in bits written out independently of the module."""
    pe = 1 - acc
    h = 0.0 if pe in (0, 1) else -pe * math.log2(pe) - (1 - pe) * math.log2(1 - pe)
    return math.log2(k) - h - pe * math.log2(k - 1)


@pytest.mark.parametrize(
    ("acc", "k", "bits"),
    [(0.493, 3, 0.078), (0.709, 2, 0.130), (0.573, 2, 0.015)],
)
def test_paper_accuracies_give_the_briefs_bits(acc, k, bits):
    # the brief's table (Hadar et al. 2026) rounds to 3 decimals
    e = dec.fano_bound(acc, k, unit="bits")
    assert e.unit == "bits" and e.method == "fano" and e.quantity == dec.QUANTITY
    assert abs(e.value - bits) < 5e-4
    assert e.value == pytest.approx(_fano_by_hand(acc, k), abs=1e-12)


@pytest.mark.parametrize("k", [2, 3, 10])
def test_chance_gives_zero_and_perfect_gives_log_k(k):
    assert abs(dec.fano_bound(1 / k, k, unit="bits").value) < 1e-12
    assert dec.fano_bound(1.0, k, unit="bits").value == pytest.approx(math.log2(k), abs=1e-12)
    # in nats too
    assert dec.fano_bound(1.0, k, unit="nats").value == pytest.approx(math.log(k), abs=1e-12)


@given(acc=st.floats(0, 1), k=st.integers(2, 20))
@settings(max_examples=60, deadline=None)
def test_fano_matches_hand_formula_and_is_within_0_log_k(acc, k):
    v = dec.fano_bound(acc, k, unit="bits").value
    assert v == pytest.approx(_fano_by_hand(acc, k), abs=1e-9)
    assert -1e-12 <= v <= math.log2(k) + 1e-12  # uniform labels: Fano is never negative


def test_given_priors_use_their_entropy():
    pri = [0.5, 0.25, 0.25]
    e = dec.fano_bound(0.8, 3, priors=pri, unit="bits")
    h = im.exact.entropy(pri, unit="bits").value  # 1.5 bits
    pe = 0.2
    want = h + pe * math.log2(pe) + 0.8 * math.log2(0.8) - pe * 1.0
    assert e.value == pytest.approx(want, abs=1e-12)
    # two classes: H(p) = h(0.447) = 1 - Fano_uniform(0.553), so the bound with the priors is
    # the uniform bound minus the uniform bound at the chance accuracy 0.553 (the docs' case)
    e = dec.fano_bound(0.709, 2, priors=[0.553, 0.447], unit="bits")
    want = dec.fano_bound(0.709, 2, unit="bits").value - dec.fano_bound(0.553, 2, unit="bits").value
    assert e.value == pytest.approx(want, abs=1e-12)
    # always guessing the majority class of a skewed prior: the bound is below 0 (vacuous)
    with pytest.warns(im.InfometerWarning, match="negative"):
        e = dec.fano_bound(0.7, 3, priors=[0.7, 0.2, 0.1], unit="bits")
    assert e.value < -0.02 and e.diagnostics["vacuous"]


def test_clopper_pearson_interval_maps_through_the_bound():
    # 700 of 1000 correct, k = 2: the interval of the accuracy is the exact binomial one
    from scipy.stats import binomtest

    e = dec.fano_bound(0.7, 2, n_trials=1000, ci=0.95, unit="bits")
    ci = binomtest(700, 1000).proportion_ci(0.95, method="exact")
    lo, hi = e.diagnostics["accuracy_ci"]
    assert (lo, hi) == pytest.approx((ci.low, ci.high), abs=1e-9)
    assert e.ci == pytest.approx((_fano_by_hand(lo, 2), _fano_by_hand(hi, 2)), abs=1e-9)
    # an interval that contains chance reaches down to 0
    e = dec.fano_bound(0.52, 2, n_trials=100, ci=0.95, unit="bits")
    assert abs(e.ci[0]) < 1e-12 and e.ci[1] > e.value


def test_bad_accuracy_and_k_are_named():
    with pytest.raises(ValueError, match=r"accuracy must be a fraction.*0\.493"):
        dec.fano_bound(49.3, 3)
    with pytest.raises(ValueError, match="k must be >= 2"):
        dec.fano_bound(0.5, 1)
    with pytest.raises(ValueError, match="priors has 2 entries"):
        dec.fano_bound(0.5, 3, priors=[0.5, 0.5])


def test_fano_from_predictions_counts_accuracy_and_trials():
    y = np.array(["a", "b", "c", "a"] * 25)
    yhat = y.copy()
    yhat[:10] = "b"  # 10 changed: the 'b' rows stay right -> 7 or 8 errors
    e = dec.fano_from_predictions(y, yhat, unit="bits", ci=0.95)
    acc = np.mean(y == yhat)
    assert e.n == 100 and e.diagnostics["accuracy"] == acc
    assert e.value == pytest.approx(_fano_by_hand(acc, 3), abs=1e-12)
    with pytest.raises(ValueError, match="y_pred has 3 labels"):
        dec.fano_from_predictions([0, 1, 1, 0], [0, 1, 1], unit="bits", ci=0.95)


# ------------------------------------------------------------------ cross-entropy
def test_cross_entropy_bound_closed_form():
    # q(true) = 0.8, uniform labels over 3: H - CE = log2 3 + log2 0.8 exactly
    y = np.tile([0, 1, 2], 100)
    p = np.full((300, 3), 0.1)
    p[np.arange(300), y] = 0.8
    e = dec.cross_entropy_bound(p, y, unit="bits")
    assert e.value == pytest.approx(math.log2(3) + math.log2(0.8), abs=1e-12)
    assert e.diagnostics["accuracy"] == 1.0 and e.diagnostics["k"] == 3
    # given priors replace the plug-in label entropy
    e2 = dec.cross_entropy_bound(p, y, priors=[0.5, 0.25, 0.25], unit="bits")
    assert e2.value == pytest.approx(1.5 + math.log2(0.8), abs=1e-12)


def test_uninformative_calibrated_decoder_gives_exactly_zero():
    # the same-span pair: both candidates look alike, p = 0.5 for each trial
    y = np.random.default_rng(0).integers(0, 2, 500)
    p = np.full((500, 2), 0.5)
    e = dec.cross_entropy_bound(p, y, priors=[0.5, 0.5])
    assert abs(e.value) < 1e-12
    t = dec.permutation_test(y, proba=p, priors=[0.5, 0.5], n_permutations=99)
    assert t.p_value == 1.0


def test_sklearn_predict_proba_and_classes():
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_predict

    rng = np.random.default_rng(1)
    y = rng.choice(np.array(["cat", "dog"]), 600)
    x = (y == "dog").astype(float)[:, None] + rng.normal(0, 1, (600, 1))
    clf = LogisticRegression()
    p = cross_val_predict(clf, x, y, cv=5, method="predict_proba")
    e = dec.cross_entropy_bound(p, y, classes=clf.fit(x, y).classes_, ci=0.9, seed=3)
    # exact I(X;Y) of this channel (means 0 and 1, sd 1, equal priors) is 0.1607 bits
    # (numerical integration); logistic regression has the Bayes posterior's form, so the
    # bound approaches it from below; sd of the bound at n = 600 is about 0.025 bits
    assert 0.06 < e.value < 0.1607 + 0.05
    assert e.ci[0] < e.value < e.ci[1] and e.ci_level == 0.9
    assert "bootstrap" in e.diagnostics["ci_method"]
    same = dec.cross_entropy_bound(p, y, ci=0.9, seed=3)  # string labels map in sorted order
    assert same.value == e.value and same.ci == e.ci
    # binary: a 1-D array is P(second class)
    assert dec.cross_entropy_bound(p[:, 1], y).value == pytest.approx(e.value, abs=1e-12)


def test_cross_entropy_bound_bootstrap_covers_the_population_bound():
    # population bound of a fixed decoder: labels uniform over 2, q(true) = 0.7 w.p. 0.8 and
    # 0.4 w.p. 0.2 -> H - CE = 1 + 0.8 log2 0.7 + 0.2 log2 0.4. Nominal 90%: >= 80% of
    # 30 repetitions (binomial sd of the rate ~ 5.5%).
    truth = 1 + 0.8 * math.log2(0.7) + 0.2 * math.log2(0.4)
    hits = 0
    for s in range(30):
        rng = np.random.default_rng(50 + s)
        y = rng.integers(0, 2, 400)
        qt = np.where(rng.random(400) < 0.8, 0.7, 0.4)
        p = np.empty((400, 2))
        p[np.arange(400), y] = qt
        p[np.arange(400), 1 - y] = 1 - qt
        e = dec.cross_entropy_bound(
            p, y, priors=[0.5, 0.5], ci=0.9, seed=s, n_resamples=100, unit="bits"
        )
        hits += e.ci[0] <= truth <= e.ci[1]
    assert hits >= 24


def test_cross_entropy_input_errors():
    y = np.array([0, 1, 1])
    with pytest.raises(ValueError, match="proba slice \\[0\\] along axis -1 sums to 1.8"):
        dec.cross_entropy_bound([[0.9, 0.9], [0.5, 0.5], [0.5, 0.5]], y)
    with pytest.raises(ValueError, match="labels has 2 entries"):
        dec.cross_entropy_bound([[0.5, 0.5]] * 3, [0, 1])
    with pytest.raises(ValueError, match="smoothing=1e-3"):
        dec.cross_entropy_bound([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]], y)
    with pytest.warns(im.InfometerWarning, match="negative"):  # confidently wrong once
        e = dec.cross_entropy_bound([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]], y, smoothing=1e-3)
    assert np.isfinite(e.value) and e.diagnostics["vacuous"]
    with pytest.raises(ValueError, match="pass classes="):
        dec.cross_entropy_bound([[0.5, 0.5]] * 3, ["a", "b", "c"])
    with pytest.raises(ValueError, match="NaN"):
        dec.cross_entropy_bound([[np.nan, 0.5]] * 3, y)


def test_permutation_test_detects_information_and_not_its_absence():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 3, 300)
    yhat = np.where(rng.random(300) < 0.5, y, rng.integers(0, 3, 300))
    t = dec.permutation_test(y, predictions=yhat, n_permutations=199, seed=0)
    assert t.p_value == pytest.approx(1 / 200) and t.statistic.method == "fano"
    noise = rng.integers(0, 3, 300)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = dec.permutation_test(y, predictions=noise, n_permutations=199, seed=0)
    assert t0.p_value > 0.01
    with pytest.raises(ValueError, match="exactly one"):
        dec.permutation_test(y)


def test_registered_and_reproducible():
    assert "cross_entropy" in im.methods(dec.QUANTITY)
    y = np.tile([0, 1], 50)
    p = np.clip(np.eye(2)[y] * 0.6 + 0.2, 0, 1)
    a = dec.cross_entropy_bound(p, y, ci=0.95, seed=7)
    b = dec.cross_entropy_bound(p, y, ci=0.95, seed=7)
    assert a.ci == b.ci


def test_every_interval_comes_with_its_stderr():
    # issue 29: cross_entropy_bound(ci=...) returned an interval with stderr=None
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 400)
    p1 = np.where(y == 1, 0.8, 0.2)
    e = dec.cross_entropy_bound(p1, y, ci=0.9, seed=1, n_resamples=100, unit="bits")
    assert e.ci is not None and e.stderr is not None and e.stderr > 0
    nats = dec.cross_entropy_bound(p1, y, ci=0.9, seed=1, n_resamples=100, unit="nats")
    assert e.stderr == pytest.approx(nats.stderr / math.log(2), rel=1e-12)
    # Fano: the delta-method stderr, |dF/da| * sqrt(a (1 - a) / n), F' by finite differences
    acc, k, n = 0.7, 3, 200
    f = dec.fano_bound(acc, k, n_trials=n, ci=0.95, unit="nats")
    h = 1e-6
    slope = (_fano_by_hand(acc + h, k) - _fano_by_hand(acc - h, k)) / (2 * h) * math.log(2)
    assert f.ci is not None
    assert f.stderr == pytest.approx(slope * math.sqrt(acc * (1 - acc) / n), rel=1e-6)
    perfect = dec.fano_bound(1.0, k, n_trials=n, ci=0.95, unit="bits")
    assert perfect.ci is not None and math.isfinite(perfect.stderr) and perfect.stderr > 0
