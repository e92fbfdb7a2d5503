"""Classifier CMI I(X;Ŷ|Y): known answers, the three forms, exact tables, bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import infometer as im
from infometer.measures import exact
from infometer.systems.models import (
    classifier_cond_mutual_info,
    classifier_cond_mutual_info_per_class,
)


def random_outputs(rng, n=300, c=5, conc=0.7):
    p = rng.dirichlet(np.full(c, conc), size=n)
    y = rng.integers(0, c, n)
    return p, y


def test_identical_outputs_within_a_class_give_zero():
    rng = np.random.default_rng(0)
    proto = rng.dirichlet(np.ones(4), size=4)
    y = rng.integers(0, 4, 200)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "negative estimate" warning from rounding
        for form in ("centroid", "entropy", "dual"):
            assert 0.0 <= classifier_cond_mutual_info(proto[y], y, form=form).value < 1e-12
    e = classifier_cond_mutual_info(proto[y], y)
    assert e.quantity == "classifier_cmi" and e.method == "plugin"


def test_half_half_class_gives_jensen_shannon():
    a = np.array([0.7, 0.2, 0.1])
    b = np.array([0.1, 0.3, 0.6])
    p = np.vstack([np.tile(a, (50, 1)), np.tile(b, (50, 1))])
    y = np.zeros(100, dtype=int)
    m = (a + b) / 2
    jsd = exact.entropy(m).value - 0.5 * exact.entropy(a).value - 0.5 * exact.entropy(b).value
    also = 0.5 * exact.kl_divergence(a, m).value + 0.5 * exact.kl_divergence(b, m).value
    assert jsd == pytest.approx(also, abs=1e-14)
    for form in ("centroid", "entropy", "dual"):
        assert classifier_cond_mutual_info(p, y, form=form).value == pytest.approx(jsd, abs=1e-12)


def test_three_forms_agree():
    rng = np.random.default_rng(1)
    p, y = random_outputs(rng)
    vals = [
        classifier_cond_mutual_info(p, y, form=f).value for f in ("centroid", "entropy", "dual")
    ]
    assert max(vals) - min(vals) < 1e-10
    assert vals[0] > 0.05


def test_matches_exact_cmi_of_the_joint_table():
    # The empirical distribution puts mass 1/n on each (input i, label y_i) and
    # P(ŷ | input i) = p_i, so I(X;Ŷ|Y) is the exact CMI of the table P(x=i, ŷ, y).
    rng = np.random.default_rng(2)
    p, y = random_outputs(rng, n=60, c=3)
    table = np.zeros((60, 3, 3))
    table[np.arange(60), :, y] = p / 60
    truth = exact.cond_mutual_info(table).value
    assert classifier_cond_mutual_info(p, y).value == pytest.approx(truth, abs=1e-12)


def test_per_class_values_and_table():
    rng = np.random.default_rng(3)
    p, y = random_outputs(rng, n=200, c=4)
    e = classifier_cond_mutual_info(p, y)
    per = e.diagnostics["per_class"]
    assert sum(r["weight"] * r["cmi"] for r in per) == pytest.approx(e.value, abs=1e-12)
    df = classifier_cond_mutual_info_per_class(p, y)
    assert list(df.columns) == ["class", "n", "weight", "cmi"]
    for row, d in zip(df.itertuples(), per, strict=True):
        assert row.cmi.value == pytest.approx(d["cmi"], abs=1e-12)
        assert row.n == d["n"]
    assert (df.weight * df.cmi.map(float)).sum() == pytest.approx(e.value, abs=1e-12)


def test_logits_and_units_and_interval():
    rng = np.random.default_rng(4)
    z = rng.normal(size=(150, 3)) * 2
    y = rng.integers(0, 3, 150)
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    e = classifier_cond_mutual_info(z, y, from_logits=True)
    assert e.value == pytest.approx(classifier_cond_mutual_info(p, y).value, abs=1e-12)
    assert classifier_cond_mutual_info(p, y, unit="bits").value == pytest.approx(
        e.value / np.log(2)
    )
    ci = classifier_cond_mutual_info(p, y, ci=0.9, seed=1)
    assert ci.ci[0] < ci.ci[1] and ci.stderr > 0
    assert ci.ci == classifier_cond_mutual_info(p, y, ci=0.9, seed=1).ci  # seeded
    via_api = im.estimate("classifier_cmi", {"probs": p, "labels": y})
    assert via_api.value == pytest.approx(e.value, abs=1e-12)
    assert "plugin" in im.methods("classifier_cmi")


@settings(max_examples=25, deadline=None)
@given(
    st.integers(2, 6),
    st.integers(2, 40),
    st.floats(0.05, 5.0),
    st.integers(0, 2**31 - 1),
)
def test_bounds_zero_and_log_c(c, n_per, conc, seed):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.full(c, conc), size=n_per * c)
    y = np.repeat(np.arange(c), n_per)
    v = classifier_cond_mutual_info(p, y).value
    assert -1e-12 <= v <= np.log(c) + 1e-12


def test_single_sample_class_warns_and_empty_class_recorded():
    p = np.array([[0.5, 0.3, 0.2], [0.2, 0.5, 0.3], [0.3, 0.3, 0.4]])
    y = np.array([0, 0, 1])
    with pytest.warns(im.InfometerWarning, match="one sample"):
        e = classifier_cond_mutual_info(p, y)
    assert e.diagnostics["empty_classes"] == [2]


@pytest.mark.parametrize(
    "probs,labels,exc,match",
    [
        ([[0.5, 0.5], [np.nan, 1.0]], [0, 1], ValueError, "probs.*NaN"),
        ([[0.5, 0.6], [0.5, 0.5]], [0, 1], ValueError, r"probs slice \[0\] along axis -1 sums to"),
        ([[1.2, -0.2], [0.5, 0.5]], [0, 1], ValueError, "probs has a negative"),
        ([[0.5, 0.5], [0.5, 0.5]], [0, 2], ValueError, "labels has label 2"),
        ([[0.5, 0.5], [0.5, 0.5]], [0, -1], ValueError, "labels has label -1"),
        ([[0.5, 0.5], [0.5, 0.5]], [0.0, 1.0], TypeError, "labels must be integer"),
        ([[0.5, 0.5], [0.5, 0.5]], ["a", "b"], TypeError, "labels must be integer"),
        ([[0.5, 0.5], [0.5, 0.5]], [0, 1, 1], ValueError, "rows"),
        ([[1.0], [1.0]], [0, 0], ValueError, "one column per class"),
    ],
)
def test_bad_input(probs, labels, exc, match):
    with pytest.raises(exc, match=match):
        classifier_cond_mutual_info(np.asarray(probs), np.asarray(labels))


def test_integer_one_hot_rows_are_probabilities():
    # class 0 holds the two one-hots [1, 0] and [0, 1]: JSD = log 2, weight 2/3
    p = np.array([[0, 1], [1, 0], [0, 1]])
    with pytest.warns(im.InfometerWarning, match="one sample"):  # class 1
        e = classifier_cond_mutual_info(p, [1, 0, 0])
    assert e.value == pytest.approx(2 / 3 * np.log(2), abs=1e-12)


def test_bad_options():
    p = np.array([[0.5, 0.5], [0.4, 0.6]])
    with pytest.raises(ValueError, match="form"):
        classifier_cond_mutual_info(p, [0, 1], form="kl")
    with pytest.raises(ValueError, match="logits.*NaN"):
        classifier_cond_mutual_info([[0.0, np.nan], [1.0, 2.0]], [0, 1], from_logits=True)
