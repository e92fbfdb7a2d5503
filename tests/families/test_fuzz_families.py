"""Fuzzing the newer families' public functions (issue 30): the contract of
``tests/test_fuzz.py`` (which covers the registry's estimators) for the APIs outside it.

Every call ends in a result (finite, or non-finite and explained), or in a ``ValueError``
/ ``TypeError`` whose message names one of the call's arguments; malformed input (strings,
booleans, complex numbers, NaN, masked values, unnormalised pmfs...) is never accepted.
Bounded and deterministic like ``test_fuzz.py``.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import infometer as im
from infometer.systems import decision
from infometer.systems.probes import alignment, decoding, imagemaps
from tests.test_fuzz import FUZZ, NOT_ARRAYS, Col, _call, tables

# ------------------------------------------------------------------ real tables
BAD_REAL_VALUES = [math.nan, math.inf, "1", True, 1j]


@st.composite
def real_tables(draw, shape) -> Col:
    """A real (n_actions, n_states) table, or one with a malformed entry / kind."""
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    kind = draw(st.sampled_from(["ok"] * 6 + ["entry", "strings", "bools", "masked", "none"]))
    a = rng.normal(size=shape)
    if kind == "ok":
        return Col(a, kind)
    if kind == "entry":
        obj = a.astype(object)
        obj.flat[draw(st.integers(0, a.size - 1))] = draw(st.sampled_from(BAD_REAL_VALUES))
        return Col(obj, kind, malformed=True)
    if kind == "strings":
        return Col(a.astype(str), kind, malformed=True)
    if kind == "bools":
        return Col(a > 0, kind, malformed=True)
    if kind == "masked":
        m = np.ma.masked_array(a)
        m[(0,) * a.ndim] = np.ma.masked
        return Col(m, kind, malformed=True)
    return Col(None, kind, malformed=True)


def _prior_shape(c: Col) -> int | None:
    v = c.value
    return v.size if isinstance(v, np.ndarray) and v.ndim == 1 and v.size else None


@settings(FUZZ, max_examples=120)
@given(tables(), st.data())
def test_fuzz_evpi_and_persuade(prior, data):
    n_s = _prior_shape(prior) or 2
    u = data.draw(real_tables((data.draw(st.integers(1, 3)), n_s)))
    v = data.draw(real_tables(u.value.shape if isinstance(u.value, np.ndarray) else (2, n_s)))
    must = {n for n, c in (("prior", prior), ("utility", u)) if c.malformed}
    e = _call(decision.evpi, {"prior", "utility"}, must, prior.value, u.value)
    if e is not None:
        assert math.isfinite(e.value) and e.value >= -1e-9  # EVPI >= 0
    must = {
        n
        for n, c in (("prior", prior), ("receiver_utility", u), ("sender_utility", v))
        if c.malformed
    }
    r = _call(
        decision.persuade,
        {"prior", "receiver_utility", "sender_utility", "utility"},
        must,
        prior.value,
        u.value,
        v.value,
    )
    if r is not None:
        assert math.isfinite(r.value.value) and r.gain.value >= -1e-7
        assert 0 <= r.signal_mi.value <= r.full_disclosure_mi.value + 1e-9


ACCURACIES = [0.5, 1.0, 0.0, 1 / 3, 0.493, 1.2, -0.1, 49.3, math.nan, "0.5", True, None]


@settings(FUZZ, max_examples=120)
@given(
    st.sampled_from(ACCURACIES),
    st.sampled_from([2, 3, 10, 1, 0, 2.5, "3", True]),
    st.one_of(st.just(Col(None, "none")), tables()),
    st.sampled_from([None, None, 300, 3, 0, -1, 2.5, 10**6]),
)
def test_fuzz_fano_bound(accuracy, k, priors, n_trials):
    names = {"accuracy", "k", "priors", "n_trials", "ci"}
    must = {"priors"} if priors.malformed else set()
    if not (
        isinstance(accuracy, float | int) and not isinstance(accuracy, bool) and 0 <= accuracy <= 1
    ):
        must.add("accuracy")
    if isinstance(k, bool) or not isinstance(k, int) or k < 2:
        must.add("k")
    if n_trials is not None and (isinstance(n_trials, float) or n_trials < 1):
        must.add("n_trials")
    e = _call(decoding.fano_bound, names, must, accuracy, k, priors=priors.value, n_trials=n_trials)
    if e is not None:
        assert math.isfinite(e.value)
        if e.ci is not None:
            assert e.ci[0] <= e.value + 1e-12 <= e.ci[1] + 2e-12


LABELS = [
    Col(np.array([0, 1, 2, 1, 0, 2]), "ints"),
    Col(np.array(["a", "b", "a", "c", "b", "a"]), "strings"),
    Col(np.array([True, False, True, True, False, False]), "bools"),
    Col(np.array([0.0, 1.0, np.nan, 1.0, 0.0, 1.0]), "nan", malformed=True),
    Col(np.array([0, 1, None, 1, 0, 1], dtype=object), "none", malformed=True),
    Col(np.ma.masked_array([0, 1, 1, 0, 1, 0], mask=[0, 0, 1, 0, 0, 0]), "masked", malformed=True),
    Col(np.array([0, 1, 1j, 0, 1, 0]), "complex", malformed=True),
    Col(np.array([0, 1, 0]), "short"),
]


@settings(FUZZ, max_examples=80)
@given(st.sampled_from(LABELS), st.sampled_from(LABELS))
def test_fuzz_fano_from_predictions(y_true, y_pred):
    must = {n for n, c in (("y_true", y_true), ("y_pred", y_pred)) if c.malformed}
    e = _call(
        decoding.fano_from_predictions,
        {"y_true", "y_pred", "k", "priors"},
        must,
        y_true.value,
        y_pred.value,
    )
    if e is not None:
        assert math.isfinite(e.value)


@settings(FUZZ, max_examples=100)
@given(tables(), st.sampled_from(LABELS + [Col(np.array([1, 2, 3, 1, 2, 3]), "1..C", True)]))
def test_fuzz_cross_entropy_bound(proba, labels):
    must = {n for n, c in (("proba", proba), ("labels", labels)) if c.malformed}
    e = _call(
        decoding.cross_entropy_bound,
        {"proba", "labels", "classes", "smoothing"},
        must,
        proba.value,
        labels.value,
    )
    if e is not None:
        assert not math.isnan(e.value)


@settings(FUZZ, max_examples=100)
@given(tables(), tables())
def test_fuzz_js_divergence_pmf(p, q):
    must = {n for n, c in (("p", p), ("q", q)) if c.malformed}
    e = _call(alignment.js_divergence_pmf, {"p", "q"}, must, p.value, q.value)
    if e is not None:
        assert -1e-12 <= e.value <= 1 + 1e-12  # bits


@settings(FUZZ, max_examples=80)
@given(st.one_of(real_tables((3, 3)), NOT_ARRAYS), st.sampled_from(["aracne", "clr"]))
def test_fuzz_networks(obj, which):
    f = im.aracne if which == "aracne" else im.clr
    value = obj.value
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        value = (value + value.T) / 2  # a symmetric matrix of real numbers: valid
    net = _call(
        f,
        {"obj", "tolerance", "threshold", "significant"},
        {"obj"} if obj.malformed else set(),
        value,
    )
    if net is not None:
        assert np.isfinite(net.matrix.to_numpy()).all()


RANGES = [None, (0, 1), (0, 255), (1, 0), (0, 0), (math.nan, 1), ("a", "b"), (0,), "01"]


@settings(FUZZ, max_examples=80)
@given(
    st.sampled_from(RANGES),
    st.sampled_from([1, 4, 16, 0, -1, 2.5, 10**9, "4"]),
    st.sampled_from(["auto", "exact", "beam", "greedy", "nope"]),
    st.sampled_from([(2, 2), (3, 3), (5, 5), (6, 6)]),
)
def test_fuzz_imagemaps(value_range, bins, method, shape):
    img = np.random.default_rng(0).random((16, 16))
    must = set()
    if value_range is not None and not (
        len(value_range) == 2
        and all(isinstance(v, int | float) and math.isfinite(v) for v in value_range)
        and value_range[0] < value_range[1]
    ):
        must.add("value_range")
    if isinstance(bins, str | float) or not 1 <= bins <= 65536:
        must.add("bins")
    codes = _call(imagemaps.quantize, {"value_range", "bins", "img"}, must, img, bins, value_range)
    if codes is not None:
        assert codes.min() >= 0 and codes.max() < bins
    scores = np.random.default_rng(1).random(shape)
    must = {"method"} if method == "nope" else set()
    if method == "exact" and shape[0] * shape[1] > 16:
        must.add("scores")
    walk = _call(
        imagemaps.info_ordered_walk, {"scores", "method", "gamma"}, must, scores, method=method
    )
    if walk is not None:
        assert sorted(walk.order.tolist()) == list(range(scores.size))
