"""Bad input to the newer families, one class at a time (issue 30).

Each class of bad input has one place where it is handled; each test here sweeps many
cases of one class over every public function of the newer families that takes such an
argument (the audit is re-run with other cases of the same classes):

* real arrays (priors, utilities, probabilities, MI matrices): strings, numbers written
  as strings, booleans, complex, masked values, NaN, objects -> ``validation.check_real_array``;
* class labels: NaN, None, masked, out of range, fractional -> ``validation.check_labels`` /
  ``data.as_variable``;
* counts implied by an accuracy -> ``decoding._check_successes``;
* flags (``progress``, ``matrix``, ``discrete_features``) -> ``validation.check_bool`` & co.;
* stored estimates -> ``Estimate.from_dict``;
* model inputs that do not fit the model -> ``_torch.check_input`` / ``call_model``;
* unpicklable work for processes -> ``parallel._check_picklable``.

Every error must be a ``TypeError``/``ValueError`` whose message names the argument.
"""

from __future__ import annotations

import math
import re
import threading
import warnings

import numpy as np
import pandas as pd
import pytest

import infometer as im
from infometer.systems import decision
from infometer.systems.probes import alignment, decoding

GOOD_PRIOR = [0.25, 0.75]
GOOD_U = [[1.0, 0.0], [0.0, 1.0]]


def _masked(values, where=0):
    m = np.ma.masked_array(np.asarray(values, dtype=float))
    m[where] = np.ma.masked
    return m


#: Malformed real arrays: (value, label).  Each must be refused wherever a real array goes.
BAD_REALS = [
    (["0.25", "0.75"], "numbers as strings"),
    (np.array(["0.25", "0.75"]), "a string array"),
    ("0.25,0.75", "a string"),
    ([True, False], "booleans"),
    (np.array([0.25 + 0j, 0.75]), "complex numbers"),
    ([0.25 + 1e-3j, 0.75], "complex with an imaginary part"),
    (_masked([0.25, 0.75]), "a masked value"),
    ([math.nan, 1.0], "NaN"),
    ([math.inf, 0.0], "inf"),
    (None, "None"),
    (np.array([0.25, "x"], dtype=object), "an object mix"),
    ([[0.25], [0.5, 0.25]], "ragged rows"),
]


def _named(exc: BaseException, name: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", str(exc)) is not None


def _refused(f, name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises((TypeError, ValueError)) as info:
            f()
    assert _named(info.value, name), f"{name!r} not named in: {info.value}"


def _square(bad):
    """A 2x2 version of a bad vector (for matrix arguments)."""
    if isinstance(bad, np.ma.MaskedArray):
        m = np.ma.masked_array(np.eye(2))
        m[0, 1] = np.ma.masked
        return m
    if isinstance(bad, str) or bad is None:
        return bad
    a = np.asarray(bad, dtype=object)
    if a.ndim != 1:
        return bad
    return np.array([list(a), list(a)], dtype=a.dtype if a.dtype != object else object)


#: Every function x argument of the newer families that takes a real array.
REAL_TARGETS = {
    "evpi(prior)": (lambda b: decision.evpi(b, GOOD_U), "prior"),
    "evpi(utility)": (lambda b: decision.evpi(GOOD_PRIOR, _square(b)), "utility"),
    "evsi(likelihood)": (
        lambda b: decision.evsi(GOOD_PRIOR, GOOD_U, _square(b)),
        "likelihood",
    ),
    "persuade(prior)": (lambda b: decision.persuade(b, GOOD_U, GOOD_U), "prior"),
    "persuade(receiver_utility)": (
        lambda b: decision.persuade(GOOD_PRIOR, _square(b), GOOD_U),
        "receiver_utility",
    ),
    "persuade(sender_utility)": (
        lambda b: decision.persuade(GOOD_PRIOR, GOOD_U, _square(b)),
        "sender_utility",
    ),
    "sender_value(posterior)": (lambda b: decision.sender_value(b, GOOD_U, GOOD_U), "prior"),
    "fano_bound(priors)": (lambda b: decoding.fano_bound(0.5, 2, priors=b), "priors"),
    "cross_entropy_bound(priors)": (
        lambda b: decoding.cross_entropy_bound([[0.9, 0.1], [0.2, 0.8]], [0, 1], priors=b),
        "priors",
    ),
    "cross_entropy_bound(proba)": (
        lambda b: decoding.cross_entropy_bound(_square(b), [0, 1]),
        "proba",
    ),
    "js_divergence_pmf(p)": (lambda b: alignment.js_divergence_pmf(b, GOOD_PRIOR), "p"),
    "channel_mi_from_scores(scores)": (
        lambda b: __import__("infometer.systems.text", fromlist=["x"]).channel_mi_from_scores(
            _square(b)
        ),
        "scores",
    ),
    "aracne(obj)": (lambda b: im.aracne(_square(b)), "obj"),
    "clr(obj)": (lambda b: im.clr(_square(b)), "obj"),
}


@pytest.mark.parametrize("target", sorted(REAL_TARGETS))
@pytest.mark.parametrize("bad", BAD_REALS, ids=[lab for _, lab in BAD_REALS])
def test_real_arrays_class(target, bad):
    call, name = REAL_TARGETS[target]
    value, label = bad
    # channel_mi_from_scores: +inf is named where the rows are checked (-inf is valid: p = 0)
    if target in ("aracne(obj)", "clr(obj)") and label in ("NaN", "inf"):
        pytest.skip("NaN/inf in an MI matrix mean 'no value' (pairwise's diagonal)")
    if value is None and target.endswith("(priors)"):
        pytest.skip("priors=None means uniform (fano) or the labels' own entropy (CE)")
    if target == "sender_value(posterior)":
        name = "prior"  # the posterior is checked as a distribution over the same states
    _refused(lambda: call(value), name)


@pytest.mark.parametrize("target", sorted(REAL_TARGETS))
def test_real_arrays_class_accepts_good_input(target):
    call, _ = REAL_TARGETS[target]
    good = {"evsi(likelihood)": [[0.9, 0.1], [0.2, 0.8]]}.get(target, GOOD_PRIOR)
    if target in ("evpi(utility)", "persuade(receiver_utility)", "persuade(sender_utility)"):
        good = GOOD_U
    if target == "cross_entropy_bound(proba)":
        good = [[0.9, 0.1], [0.2, 0.8]]
    if target in ("aracne(obj)", "clr(obj)"):
        good = [[0.0, 0.3], [0.3, 0.0]]
    if target == "channel_mi_from_scores(scores)":
        good = np.log([[0.9, 0.1], [0.2, 0.8]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        call(good if target != "evsi(likelihood)" else np.asarray(good))


def test_pairwise_refuses_masked_values():
    rng = np.random.default_rng(0)
    for where in [(0, 0), (17, 2), (49, 1)]:
        m = np.ma.masked_array(rng.normal(size=(50, 3)))
        m[where] = np.ma.masked
        _refused(lambda m=m: im.pairwise(m), "data")
    clean = np.ma.masked_array(rng.normal(size=(50, 3)))  # nothing masked: a plain array
    assert im.pairwise(clean, method="gaussian_copula").matrix.shape == (3, 3)


# ------------------------------------------------------------------------- labels
BAD_LABELS = [
    np.array([0.0, 1.0, np.nan, 1.0]),
    np.array([0, 1, None, 1], dtype=object),
    _masked([0, 1, 0, 1], where=2),
    np.array([0, 1, 1 + 0j, 0]),
    np.array([0, "a", 1, 0], dtype=object),
]


@pytest.mark.parametrize("which", ["y_true", "y_pred"])
@pytest.mark.parametrize("bad", range(len(BAD_LABELS)))
def test_labels_class_fano_from_predictions(which, bad):
    good = np.array([0, 1, 0, 1])
    args = {"y_true": good, "y_pred": good, which: BAD_LABELS[bad]}
    _refused(lambda: decoding.fano_from_predictions(args["y_true"], args["y_pred"]), which)


PROBA = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.2, 0.2, 0.6], [0.5, 0.25, 0.25]])
BAD_CLASS_INDICES = [
    [1, 2, 3, 1],  # 1..C: would have been re-mapped by rank to 0..C-1
    [0, 1, 2, 3],
    [-1, 0, 1, 2],
    [0, 1, 2.5, 0],
    [0, 1, np.nan, 0],
    _masked([0, 1, 2, 0], where=1),
    [0, 1, 10**12, 0],
]


@pytest.mark.parametrize("bad", range(len(BAD_CLASS_INDICES)))
def test_labels_class_cross_entropy_bound(bad):
    _refused(lambda: decoding.cross_entropy_bound(PROBA, BAD_CLASS_INDICES[bad]), "labels")


def test_labels_in_range_are_the_column_indices():
    e = decoding.cross_entropy_bound(PROBA, [0, 1, 2, 0], unit="nats")
    # exact: H(labels) - CE from the given q(true label)
    p = np.array([2, 1, 1]) / 4
    h = -(p * np.log(p)).sum()
    ce = -np.mean(np.log([0.7, 0.8, 0.6, 0.5]))
    assert e.value == pytest.approx(h - ce, abs=1e-12)
    # strings map to columns in sorted order (documented), booleans are 0/1
    assert decoding.cross_entropy_bound(PROBA, ["a", "b", "c", "a"]).value == pytest.approx(
        decoding.cross_entropy_bound(PROBA, [0, 1, 2, 0]).value
    )
    pb = np.array([[0.8, 0.2], [0.3, 0.7]])
    assert decoding.cross_entropy_bound(pb, [False, True]).value == pytest.approx(
        decoding.cross_entropy_bound(pb, [0, 1]).value
    )


# ------------------------------------------------------------------------- counts
@pytest.mark.parametrize(
    "accuracy,n_trials",
    [(0.493, 300), (0.5, 3), (1 / 3, 10), (0.123456, 1000), (0.999, 10), (0.25, 2)],
)
def test_counts_class_fractional_correct_trials(accuracy, n_trials):
    _refused(lambda: decoding.fano_bound(accuracy, 3, n_trials=n_trials), "accuracy")


@pytest.mark.parametrize("correct,n_trials", [(148, 300), (0, 10), (10, 10), (1, 3), (7, 29)])
def test_counts_class_whole_counts_accepted(correct, n_trials):
    e = decoding.fano_bound(correct / n_trials, 3, n_trials=n_trials, unit="bits", ci=0.95)
    assert e.ci is not None and e.n == n_trials


# -------------------------------------------------------------------------- flags
BAD_FLAGS = ["yes", "no", 1, 0, 1.0, "True", [True]]


@pytest.mark.parametrize("flag", BAD_FLAGS, ids=repr)
def test_flags_class(flag):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(30, 3))
    _refused(lambda: im.pairwise(x, method="gaussian_copula", progress=flag), "progress")
    from infometer.workflows.sklearn import MutualInfoSelector

    y = rng.integers(0, 2, 30)
    sel = MutualInfoSelector(k=2, discrete_features=flag)
    if isinstance(flag, list):  # a list is indices: [True] is a bad index type
        _refused(lambda: sel.fit(x, y), "discrete_features")
    else:
        _refused(lambda: sel.fit(x, y), "discrete_features")


@pytest.mark.parametrize("flag", BAD_FLAGS, ids=repr)
def test_flags_class_classifier_cmi(flag):
    p = np.array([[0.7, 0.3], [0.2, 0.8], [0.6, 0.4], [0.1, 0.9]])
    _refused(lambda: im.classifier_cmi(p, [0, 1, 0, 1], from_logits=flag), "from_logits")


@pytest.mark.parametrize("bad", range(len(BAD_CLASS_INDICES)))
def test_labels_class_classifier_cmi(bad):
    labels = BAD_CLASS_INDICES[bad]
    _refused(lambda: im.classifier_cmi(PROBA, labels), "labels")


@pytest.mark.parametrize("flag", BAD_FLAGS[:5], ids=repr)
def test_flags_class_models(flag):
    torch = pytest.importorskip("torch")
    m = torch.nn.Linear(3, 2)
    x = np.zeros((4, 3))
    _refused(lambda: im.fisher_information(m, x, matrix=flag), "matrix")
    _refused(lambda: im.fisher_information(m, x, progress=flag), "progress")
    _refused(
        lambda: im.layer_info(m, x, np.arange(4) % 2, method="gkov", progress=flag), "progress"
    )


@pytest.mark.parametrize("bad", [[0.5], [5], [-4], ["0"], [[0, 1]], np.array([True, False])])
def test_discrete_features_indices_and_masks(bad):
    from infometer.workflows.sklearn import MutualInfoSelector

    rng = np.random.default_rng(0)
    x, y = rng.integers(0, 3, (40, 3)).astype(float), rng.integers(0, 2, 40)
    _refused(lambda: MutualInfoSelector(k=2, discrete_features=bad).fit(x, y), "discrete_features")


def test_pairwise_columns_named_twice_and_duplicated_headers():
    df = pd.DataFrame(np.random.default_rng(0).normal(size=(30, 3)), columns=list("abc"))
    for cols in (["a", "a"], ["a", "b", "a"], ["c", "b", "c", "c"]):
        _refused(lambda cols=cols: im.pairwise(df, columns=cols), "columns")
    _refused(lambda: im.pairwise(df, columns="ab"), "columns")
    dup = pd.DataFrame(np.zeros((5, 2)), columns=["a", "a"])
    _refused(lambda: im.pairwise(dup), "data")


# ------------------------------------------------------------------ stored estimates
BAD_DICTS = [
    (None, "from_dict"),
    ([0.5], "from_dict"),
    ({}, "value"),
    ({"value": "abc"}, "value"),
    ({"value": True}, "value"),
    ({"value": 1 + 2j}, "value"),
    ({"value": [1.0]}, "value"),
    ({"value": 1.0, "stderr": "x"}, "stderr"),
    ({"value": 1.0, "ci": [0.1]}, "ci"),
    ({"value": 1.0, "ci": "ab"}, "ci"),
    ({"value": 1.0, "ci": [0.1, "b"]}, "ci"),
    ({"value": 1.0, "n": -3}, "n"),
    ({"value": 1.0, "n": 2.5}, "n"),
    ({"value": 1.0, "ci_level": 1.5}, "ci_level"),
    ({"value": 1.0, "unit": "furlong"}, "unit"),
    ({"value": 1.0, "unit": 3}, "unit"),
    ({"value": 1.0, "params": [1]}, "params"),
    ({"value": 1.0, "diagnostics": "x"}, "diagnostics"),
]


@pytest.mark.parametrize("bad,name", BAD_DICTS, ids=[repr(b)[:30] for b, _ in BAD_DICTS])
def test_stored_estimates_class(bad, name):
    _refused(lambda: im.Estimate.from_dict(bad), name)


def test_stored_estimates_round_trip_with_non_finite_values():
    for v in (0.5, math.inf, -math.inf):
        e = im.Estimate(value=v, unit="bits", method="m", quantity="q", stderr=0.1, ci=(0, 1))
        e2 = im.Estimate.from_dict(e.to_dict())
        assert e2.value == v and e2.unit == "bits" and e2.ci == (0.0, 1.0)


# ------------------------------------------------------------------- model inputs
torch = pytest.importorskip("torch")


def _mlp(width: int = 3, dtype=torch.float32):
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Linear(width, 5), torch.nn.Tanh(), torch.nn.Linear(5, 2)
    ).to(dtype)


@pytest.mark.parametrize("width", [1, 2, 4, 7])
@pytest.mark.parametrize("method", ["exact", "hutchinson"])
def test_model_inputs_class_width(width, method):
    x = np.random.default_rng(0).normal(size=(6, width))
    _refused(lambda: im.fisher_information(_mlp(3), x, method=method, probes=2), "x")


@pytest.mark.parametrize("width", [1, 2, 4])
def test_model_inputs_class_width_layer_info(width):
    x = np.random.default_rng(0).normal(size=(20, width))
    _refused(
        lambda: im.layer_info(_mlp(3), x, np.arange(20) % 2, method="gkov", quantities=["I(T;Y)"]),
        "inputs",
    )


@pytest.mark.parametrize("xdtype", [np.float64, np.float32, np.float16, np.int64])
@pytest.mark.parametrize("mdtype", [torch.float32, torch.float64])
def test_model_inputs_class_dtypes_are_cast(xdtype, mdtype):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(20, 3)).astype(xdtype)
    if xdtype is np.int64:  # integers may be token ids: never cast, refused by a float layer
        _refused(lambda: im.fisher_information(_mlp(3, mdtype), x), "x")
        return
    f = im.fisher_information(_mlp(3, mdtype), x)
    ref = im.fisher_information(_mlp(3, mdtype), x.astype(np.float64))
    assert f.trace.value == pytest.approx(ref.trace.value, rel=1e-6)
    df = im.layer_info(_mlp(3, mdtype), x, np.arange(20) % 2, method="gkov", quantities=["I(T;Y)"])
    assert np.isfinite(df["value"]).all()


# ------------------------------------------------------------------- process work
def _double(p):
    return 2 * p


class _Sink:
    def __init__(self) -> None:
        self.d = {}

    def add(self, k, v) -> None:
        self.d[k] = v

    def done_keys(self):
        return self.d.keys()


def _local():
    def inner(p):
        return p

    return inner


@pytest.mark.parametrize(
    "func,jobs,name",
    [
        (lambda p: p, {1: 1, 2: 2}, "func"),
        (_local(), {1: 1, 2: 2}, "func"),
        (_double, {1: threading.Lock(), 2: 2}, "jobs"),
        (_double, {"a": (lambda: 0), "b": 1}, "jobs"),
    ],
)
def test_unpicklable_work_class(func, jobs, name):
    from infometer.core.parallel import run_jobs

    _refused(lambda: run_jobs(func, jobs, _Sink(), workers=2, pool="processes"), name)


def test_picklable_work_and_threads_accept_lambdas():
    from infometer.core.parallel import run_jobs

    s = _Sink()
    run_jobs(lambda p: p + 1, {1: 1, 2: 2}, s, workers=2, pool="threads", interruptible=False)
    assert s.d == {1: 2, 2: 3}
