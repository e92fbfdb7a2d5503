"""The result home (``infometer.core.results``, issue 37 §1): one base for every result class,
one protocol (``to_dict``, ``to_frame``, ``repr``, ``_repr_html_``, ``plot(ax=, path=)``),
one rule of equality and hashing."""

from __future__ import annotations

import ast
import copy
import importlib
import inspect
import json
import math
import pathlib
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import infometer as im
from infometer import Estimate
from infometer.core.results import Result, json_document, json_safe

SRC = pathlib.Path(im.__file__).parent
#: Methods that make a class a result (it reports something computed).
_RESULT_METHODS = {"to_frame", "to_dict", "plot", "_repr_html_", "summary"}
#: Result classes that the name/method rule alone would miss.
_ALSO = {
    "infometer.core.estimate.Estimate",
    "infometer.core._local.LocalValues",
    "infometer.workflows.allpairs._infer.Network",
    "infometer.workflows.allpairs.select.Selection",
    "infometer.systems.models.fisher.FisherInformation",
    "infometer.systems.decision.grid.EpisodeStats",
    "infometer.systems.decision.multiturn.SenderTraining",
    "infometer.systems.decision.solve.POMDPSolution",
    "infometer.measures.stats.independence.IndependenceTest",
    "infometer.measures.stats.correction.MultipleTests",
    "infometer.measures.channels.rate_distortion.RateDistortionPoint",
    "infometer.core.training.TrainLog",
    "infometer.systems.decision.learned.TrainLog",
    "infometer.systems.extract.litecost.TrainLog",
    "infometer.systems.extract.scribes.TrainLog",
}
#: Classes the rule names that are not results, with the reason.
NOT_RESULTS = {
    "infometer.systems.decision.grid.GridWorld": "a problem (a maze), drawn by render_world",
    "infometer.systems.extract.liveweb.StageLog": "a log of one pipeline stage, in LiveWebResult",
}


def _classes() -> list[tuple[str, str, ast.ClassDef]]:
    out = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC.parent).with_suffix("")
        mod = ".".join(rel.parts).removesuffix(".__init__")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                out.append((mod, node.name, node))
    return out


def _is_result(mod: str, name: str, node: ast.ClassDef) -> bool:
    methods = {b.name for b in node.body if isinstance(b, ast.FunctionDef)}
    return name.endswith("Result") or f"{mod}.{name}" in _ALSO or bool(methods & _RESULT_METHODS)


RESULT_CLASSES = [
    (mod, name)
    for mod, name, node in _classes()
    if _is_result(mod, name, node) and f"{mod}.{name}" not in NOT_RESULTS
]


def _load(mod: str, name: str) -> type:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(importlib.import_module(mod), name)


def test_the_walk_finds_the_result_classes():
    names = {n for _, n in RESULT_CLASSES}
    assert len(names) >= 31
    assert {"Estimate", "LocalValues", "PIDResult", "PairwiseResult", "NetworkResult"} <= names


@pytest.mark.parametrize(("mod", "name"), RESULT_CLASSES, ids=lambda v: str(v))
def test_every_result_class_derives_from_the_base(mod, name):
    cls = _load(mod, name)
    assert issubclass(cls, Result), (
        f"{mod}.{name} does not derive from infometer.core.results.Result"
    )
    # one rule of equality: the base's (content), unhashable; Estimate's is float-like
    if cls is Estimate:
        return
    assert cls.__eq__ is Result.__eq__, f"{name} compares by its own rule (use eq=False)"
    assert cls.__hash__ is None, f"{name} is hashable (its content is arrays and tables)"
    if "__repr__" not in vars(cls):
        assert cls.__repr__ is Result.__repr__ or any(
            "__repr__" in vars(b) for b in cls.__mro__[1:-2]
        ), f"{name} has the dataclass repr (use repr=False)"
    plot = getattr(cls, "plot", None)
    if plot is not None:  # a figure: the shared convention plot(ax=None, path=None)
        params = list(inspect.signature(plot).parameters.values())[1:3]
        assert [(p.name, p.default) for p in params] == [("ax", None), ("path", None)]


def test_not_results_are_still_there():
    live = {f"{m}.{n}" for m, n, _ in _classes()}
    assert set(NOT_RESULTS) <= live and _ALSO <= live


# ---------------------------------------------------------- JSON: null + a reason
def test_json_safe_names_every_nonfinite_number():
    why: dict[str, str] = {}
    out = json_safe({"v": np.array([[1.0, np.nan], [np.inf, -np.inf]]), "n": np.int32(3)}, why)
    assert out == {"v": [[1.0, None], [None, None]], "n": 3}
    assert why == {"v/0/1": "nan", "v/1/0": "inf", "v/1/1": "-inf"}
    json.dumps(out, allow_nan=False)


def test_an_estimate_round_trips_its_nonfinite_numbers():
    e = Estimate(
        float("nan"),
        stderr=float("inf"),
        ci=(-math.inf, 1.0),
        ci_level=0.9,
        diagnostics={"h": [0.5, math.nan]},
    )
    d = e.to_dict()
    assert d["value"] is None and d["stderr"] is None and d["ci"] == [None, 1.0]
    assert d["nonfinite"] == {
        "value": "nan",
        "stderr": "inf",
        "ci/0": "-inf",
        "diagnostics/h/1": "nan",
    }
    back = Estimate.from_dict(json.loads(json.dumps(d, allow_nan=False)))
    assert math.isnan(back.value) and back.stderr == math.inf and back.ci == (-math.inf, 1.0)
    assert math.isnan(back.diagnostics["h"][1]) and back == e


def test_estimates_stored_before_still_load():
    # to_dict wrote "nan"/"inf" strings before the null + reason rule
    e = Estimate.from_dict({"value": "nan", "stderr": "inf", "ci": ["-inf", 1.0]})
    assert math.isnan(e.value) and e.stderr == math.inf and e.ci == (-math.inf, 1.0)


@pytest.mark.parametrize(
    "bad",
    [
        {"value": None, "nonfinite": {"value": "big"}},
        {"value": 1.0, "nonfinite": {"stderr/3": "nan"}},
        {"value": 1.0, "nonfinite": ["value"]},
    ],
)
def test_bad_nonfinite_entries_are_refused_by_name(bad):
    with pytest.raises((ValueError, TypeError), match="nonfinite"):
        Estimate.from_dict(bad)


def test_json_document_of_rows():
    rows = [{"a": 1.0}, {"a": math.nan}]
    assert json_document(rows) == [{"a": 1.0}, {"a": None, "nonfinite": {"a": "nan"}}]


# ------------------------------------------------- the protocol, on real results
def _results() -> dict[str, Result]:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(300, 4))
    x[:, 1] += x[:, 0]
    frame = pd.DataFrame(x, columns=["<b>a</b>", "b & c", "c", "d"])
    xs = rng.integers(0, 2, size=(300, 2))
    channel = np.array([[0.9, 0.1], [0.2, 0.8]])
    out: dict[str, Result] = {
        "Estimate": im.mutual_info(x[:, 0], x[:, 1], method="ksg1", ci=0.9),
        "LocalValues": im.mutual_info(x[:, 0], x[:, 1], method="gaussian", local=True),
        "PairwiseResult": im.pairwise(frame, method="copula", n_permutations=19, progress=False),
        "PIDResult": im.pid(xs, xs[:, 0] ^ xs[:, 1]),
        "IndependenceTest": im.independence_test(x[:, 0], x[:, 1], n_permutations=19),
        "ChannelCapacity": im.exact.channel_capacity(channel),
        "MultiscaleResult": im.complexity.multiscale(rng.normal(size=600), scales=(1, 2)),
    }
    out["Network"] = im.aracne(out["PairwiseResult"])
    return out


@pytest.fixture(scope="module")
def results() -> dict[str, Result]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _results()


def test_the_protocol_on_real_results(results):
    for name, r in results.items():
        d = r.to_dict()
        json.dumps(d, allow_nan=False)  # strict JSON: no NaN, no Infinity
        if name != "Estimate":
            assert d["type"] == name
        frame = r.to_frame()
        assert isinstance(frame, pd.DataFrame) and len(frame.columns) >= 1
        text = repr(r)
        assert len(text) <= 2000 and all(len(line) <= 200 for line in text.splitlines())
        html = r._repr_html_()
        assert html.startswith('<div class="infometer-result">') and name in html
        assert r == r and r == copy.deepcopy(r)


def test_nan_in_a_result_is_null_with_a_reason(results):
    d = results["PairwiseResult"].to_dict()  # NaN on the matrix diagonal
    assert d["nonfinite"]["matrix/<b>a</b>/0"] == "nan"
    assert d["matrix"]["<b>a</b>"][0] is None


def test_user_text_is_escaped_in_html(results):
    html = results["PairwiseResult"]._repr_html_()
    assert "&lt;b&gt;a&lt;/b&gt;" in html and "b &amp; c" in html
    assert "<b>a</b>" not in html


def test_results_with_a_figure_draw_it_through_the_shared_convention(results, tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for name in ("PairwiseResult", "PIDResult", "LocalValues", "ChannelCapacity"):
        fig, ax = plt.subplots()
        assert results[name].plot(ax=ax) is ax
        plt.close(fig)
    ax = results["PairwiseResult"].plot(path=tmp_path / "m.png")
    assert (tmp_path / "m.png").stat().st_size > 0
    plt.close(ax.figure)
    assert not hasattr(results["IndependenceTest"], "plot")  # no figure: no plot


def test_composite_results_are_unhashable_and_compare_by_content(results):
    r = results["PIDResult"]
    with pytest.raises(TypeError, match="unhashable"):
        hash(r)
    other = im.pid(np.array([[0, 1], [1, 0]] * 50), np.array([1, 1] * 50))
    assert r != other and r != 0.5 and r != r.to_dict()


# ------------------------------------------------ the Estimate's float-like rule
_floats = st.floats(allow_nan=True, allow_infinity=True)
_fields = st.fixed_dictionaries(
    {"method": st.sampled_from(["", "plugin", "ksg1"]), "n": st.none() | st.integers(1, 9)}
)


@given(_floats, _floats, _fields, _fields)
def test_equal_estimates_hash_equal(a, b, fa, fb):
    ea, eb = Estimate(a, **fa), Estimate(b, **fb)
    if ea == eb:
        assert hash(ea) == hash(eb)
    assert (ea == eb) == (ea.to_dict() == eb.to_dict())
    assert ea == Estimate(a, **fa) and hash(ea) == hash(Estimate(a, **fa))  # NaN too


@given(_floats, st.one_of(_floats, st.integers(-10, 10), st.fractions(), st.booleans()))
def test_an_estimate_equals_a_number_as_its_value_does(v, x):
    e = Estimate(v)
    assert (e == x) == (v == x) and (e != x) == (v != x)
    if e == x:
        assert hash(e) == hash(x)  # Python's rule: equal objects hash equal


@given(_floats)
def test_an_estimate_hashes_as_its_value(v):
    e = Estimate(v, "bits", "plugin", "entropy", n=3)
    assert hash(e) == (0 if math.isnan(v) else hash(v))
    assert len({e, Estimate(v, "bits", "plugin", "entropy", n=3)}) == 1


def test_an_estimate_is_not_equal_to_text_or_arrays_of_several_numbers():
    e = Estimate(0.5)
    assert e != "0.5" and e != [0.5] and e != {0.5}
    assert (e == np.array([0.5, 1.0])).tolist() == [True, False]  # numpy's elementwise rule
