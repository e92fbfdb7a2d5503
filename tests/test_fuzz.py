"""Fuzzing the public API with malformed and odd-but-valid input (issue 9).

Every call must end in one of two ways:

* a result whose value is finite, or non-finite *and* explained (a warning recorded in
  ``diagnostics["warnings"]``); never NaN, and no NaN in its error bars;
* a ``ValueError`` or ``TypeError`` whose message names one of the arguments of the call
  (``x``, ``method``, ``ci``, an estimator parameter...).

Anything else (an ``IndexError`` from numpy, a ``ZeroDivisionError``, a ``MemoryError``, a
``RuntimeError`` from a dependency) fails the test.  The strategies cover the classes the
outside audit found: dtypes (datetimes with NaT, text with stray values, complex, objects,
categoricals), shapes (empty, 0-d, 3-d, ragged), extreme values (±1e308, subnormals, huge
integers), constant and two-valued columns, bad option values (``discrete=1``, unknown
units, out-of-range ``ci``/``seed``/``n_permutations``) and bad pmfs for ``exact.*``.

Bounded and deterministic: ``derandomize=True`` and a fixed ``max_examples`` per test
(about 20 s in all on 2 loaded cores).  Valid ``ci=`` levels are left to
``test_every_estimator.py`` (bootstrap intervals are too slow to fuzz).
"""

from __future__ import annotations

import math
import numbers
import re
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import infometer as im
from infometer.core import registry
from infometer.measures import exact
from infometer.measures.stats import multipletests

FUZZ = settings(
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)

#: Estimators that train networks are left out (seconds per call; see test_every_estimator).
SLOW_FAMILIES = {"diffusion", "neural"}

# ------------------------------------------------------------------- raw columns
ODD_FLOATS = [0.0, -0.0, 1.0, -1.0, 1e308, -1.5e308, 1e-300, 5e-324, 2.0**52, 1e15]
BAD_FLOATS = [math.nan, math.inf, -math.inf]


@dataclass(frozen=True)
class Col:
    """A generated argument and whether it is malformed (every call with it must fail)."""

    value: object
    kind: str
    malformed: bool = False
    #: malformed unless the call asks for symbols (``discrete=True``)
    malformed_unless_symbols: bool = False


@st.composite
def columns(draw, n: int) -> Col:
    """One variable of ``n`` rows: valid, odd-but-valid, or malformed."""
    kind = draw(
        st.sampled_from(
            [
                *["normal"] * 6,
                *["ints"] * 5,
                "odd_floats",
                "bad_floats",
                "constant",
                "two_values",
                "huge_ints",
                "bools",
                "strings",
                "numeric_text",
                "datetimes",
                "complex",
                "objects",
                "categorical",
                "frame2",
                "matrix3",
                "list_of_lists",
            ]
        )
    )
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    if kind == "normal":
        return Col(rng.normal(size=n) * draw(st.sampled_from([1.0, 1e-160, 1e300])), kind)
    if kind == "ints":
        return Col(rng.integers(0, draw(st.integers(1, 6)), size=n), kind)
    if kind == "odd_floats":
        return Col(
            np.array(draw(st.lists(st.sampled_from(ODD_FLOATS), min_size=n, max_size=n))), kind
        )
    if kind == "bad_floats":
        a = rng.normal(size=n)
        if n:
            a[draw(st.integers(0, n - 1))] = draw(st.sampled_from(BAD_FLOATS))
        return Col(a, kind, malformed=n > 0)
    if kind == "constant":
        return Col(np.full(n, draw(st.sampled_from([0.0, 3.5, 7]))), kind)
    if kind == "two_values":
        return Col(rng.integers(0, 2, size=n) * draw(st.sampled_from([1.0, 1e-300])), kind)
    if kind == "huge_ints":
        return Col(
            rng.integers(0, 3, size=n) * draw(st.sampled_from([2**40, 2**62, -(2**62)])), kind
        )
    if kind == "bools":
        return Col(rng.random(n) < 0.5, kind)
    if kind == "strings":
        return Col(rng.choice(["a", "b", "", "ÿ", "A"], size=n), kind)
    if kind == "numeric_text":
        vals = [f"{v:.2f}" for v in rng.normal(size=n)]
        stray = n >= 5 and draw(st.booleans())
        if stray:
            vals[draw(st.integers(0, n - 1))] = draw(st.sampled_from(["?", "NA", "", " "]))
        return Col(np.array(vals, dtype=object), kind, malformed_unless_symbols=stray)
    if kind == "datetimes":
        s = pd.Series(pd.date_range("2020-01-01", periods=n, freq="D"))
        nat = n > 0 and draw(st.booleans())
        if nat:
            s.iloc[draw(st.integers(0, n - 1))] = pd.NaT
        return Col(s, kind, malformed=nat)
    if kind == "complex":
        return Col(rng.normal(size=n) + 1j, kind, malformed=n > 0)
    if kind == "objects":
        pool = [1, 2.5, "a", None, b"x", (1, 2), True]
        items = draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
        a = np.empty(n, dtype=object)
        a[:] = items
        types = {type(v) for v in items}
        fine = (
            all(isinstance(v, numbers.Number) for v in items) or types <= {str} or types <= {bytes}
        )
        return Col(a, kind, malformed=n > 0 and not fine)
    if kind == "categorical":
        return Col(pd.Series(pd.Categorical(rng.choice(["u", "v", "w"], size=n))), kind)
    if kind == "frame2":
        return Col(pd.DataFrame({"a": rng.normal(size=n), "b": rng.integers(0, 3, size=n)}), kind)
    if kind == "matrix3":
        return Col(rng.normal(size=(n, 2, 2)), kind, malformed=True)
    return Col([list(range(i % 3)) for i in range(n)], kind, malformed=n > 1)  # ragged


NOT_ARRAYS = st.sampled_from([None, 3.0, "abc", {"x": 1}, {1, 2}, b"xyz"]).map(
    lambda v: Col(v, "not_an_array", malformed=True)
)


@st.composite
def datasets(draw, roles: tuple[str, ...], paired: bool) -> dict[str, Col]:
    n = draw(st.sampled_from([0, 1, 2, 3, 5, 12, 30, 30, 40, 40]))
    out = {}
    for r in roles:
        m = n if paired else draw(st.sampled_from([n, 1, 7, 30]))
        bad = draw(st.integers(0, 9)) == 0
        out[r] = draw(NOT_ARRAYS) if bad else draw(columns(m))
    return out


# ---------------------------------------------------------------- assertions
def _names(call_args: dict[str, object], quantity: str | None) -> set[str]:
    names = set(call_args)
    if quantity is not None:
        names |= set(registry.QUANTITY_ROLES.get(quantity, ()))
        for s in registry.specs(quantity):
            names |= set(s.params)
    return names | {"method", "data"}


def _named(msg: str, names: set[str]) -> bool:
    return any(re.search(rf"(?<![\w]){re.escape(a)}(?![\w])", msg) for a in names)


def _check_result(e: object) -> None:
    value = float(e.value)
    assert not math.isnan(value), f"silent NaN: {e!r}"
    if not math.isfinite(value):
        assert e.diagnostics.get("warnings"), f"non-finite value without a warning: {e!r}"
    if e.stderr is not None:
        assert not math.isnan(e.stderr), f"NaN stderr: {e!r}"
    if e.ci is not None:
        assert not any(math.isnan(c) for c in e.ci), f"NaN in ci: {e!r}"


def _call(f, names: set[str], must_fail: set[str], *args, **kwargs) -> object | None:
    """Run ``f``; an error must be a ValueError/TypeError naming an argument of the call,
    and when some arguments are malformed (``must_fail``) the call *must* fail (another
    problem of the call may be reported first)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = f(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - the point: which exceptions escape
            assert isinstance(exc, ValueError | TypeError), f"{type(exc).__name__}: {exc}"
            want = names | must_fail
            assert _named(str(exc), want), f"error names none of {sorted(want)}: {exc}"
            return None
    assert not must_fail, f"malformed {sorted(must_fail)} accepted silently: {out!r}"
    return out


def _bad_data(data: dict[str, Col], discrete: object) -> set[str]:
    return {
        r
        for r, c in data.items()
        if c.malformed or (c.malformed_unless_symbols and discrete is not True)
    }


# -------------------------------------------------------------- the estimators
def _methods(quantity: str) -> list[object]:
    fast = [s.name for s in registry.specs(quantity) if s.family not in SLOW_FAMILIES]
    return ["auto", "auto", "auto", *fast, "AUTO", "nope", 3, None]


BAD_METHODS = {"nope", 3, None}

QUANTITIES = {
    "entropy": (im.entropy, ("x",), True),
    "mutual_info": (im.mutual_info, ("x", "y"), True),
    "cond_mutual_info": (im.cond_mutual_info, ("x", "y", "z"), True),
    "kl_divergence": (im.kl_divergence, ("p", "q"), False),
    "transfer_entropy": (im.transfer_entropy, ("source", "target"), True),
}

#: option -> (valid values, malformed values)
OPTION_VALUES = {
    "unit": (["bits", "nats", "base-3", None], ["base-inf", "base-1", "furlongs", 2]),
    "discrete": ([None, True, False], [1, "yes"]),
    "seed": ([0, 7, None, 2**70], [-1, 1.5, "1"]),
    "ci": ([None], [0.0, 1.0, -0.5, 2, math.nan, "0.9"]),
    "base": ([2, math.e, 10], [1, 0, -2, math.inf]),
}


def _mostly(valid: list, invalid: list) -> st.SearchStrategy:
    """Valid values about four times as often as malformed ones (so that calls get past
    the option checks and exercise the estimators)."""
    return st.sampled_from(valid * (4 * len(invalid) // len(valid) + 1) + invalid)


OPTIONS = st.fixed_dictionaries(
    {}, optional={k: _mostly(v, bad) for k, (v, bad) in OPTION_VALUES.items()}
)

#: Odd values for any estimator parameter (bins, k, alphabet_size, alpha, theiler...).
ODD_PARAMS = [0, -1, 1, 2, 10**12, 2**62, 2.5, math.nan, math.inf, "x", None, True]


@st.composite
def estimator_calls(draw):
    quantity = draw(st.sampled_from(sorted(QUANTITIES)))
    f, roles, paired = QUANTITIES[quantity]
    data = draw(datasets(roles, paired))
    opts = draw(OPTIONS)
    opts["method"] = draw(st.sampled_from(_methods(quantity)))
    params = {}
    if isinstance(opts["method"], str) and opts["method"] in registry.methods(quantity):
        spec = registry.get(quantity, opts["method"])
        free = sorted(set(spec.params) - {"seed", "progress", "device"})
        if free and draw(st.integers(0, 2)) == 0:
            params[draw(st.sampled_from(free))] = draw(st.sampled_from(ODD_PARAMS))
    return quantity, f, data, opts, params


def _bad_options(opts: dict[str, object]) -> set[str]:
    bad = {
        k
        for k, v in opts.items()
        if k in OPTION_VALUES
        and any(
            v is b
            or (isinstance(v, float) and math.isnan(v) and isinstance(b, float) and math.isnan(b))
            or (type(v) is type(b) and v == b)
            for b in OPTION_VALUES[k][1]
        )
    }
    if opts.get("method") in BAD_METHODS and not isinstance(opts.get("method"), bool):
        bad.add("method")
    return bad


@settings(FUZZ, max_examples=300)
@given(estimator_calls())
def test_fuzz_estimators(call):
    quantity, f, data, opts, params = call
    names = _names({**data, **opts, **params}, quantity)
    must_fail = _bad_data(data, opts.get("discrete")) | _bad_options(opts)
    e = _call(f, names, must_fail, *(c.value for c in data.values()), **opts, **params)
    if e is not None:
        _check_result(e)


BAD_PERMUTATIONS = [0, -1, 2**62, 1.5, "5", None]


@settings(FUZZ, max_examples=60)
@given(
    datasets(("x", "y"), True),
    st.booleans(),
    st.sampled_from([1, 4, 4, 4, 9, 9, *BAD_PERMUTATIONS]),
    st.sampled_from([None, None, None, 2, 0, 10**9]),
    st.sampled_from(["auto", "auto", "plugin", "gaussian", "ksg1", "gkov", "nope"]),
)
def test_fuzz_independence_test(data, with_z, n_permutations, block, method):
    args = [c.value for c in data.values()]
    if with_z:
        x = args[0]
        args.append(np.arange(len(x) if hasattr(x, "__len__") else 1) % 2)
    opts = {"n_permutations": n_permutations, "block": block, "method": method}
    names = _names({**data, **opts, "z": None}, "mutual_info")
    must_fail = _bad_data(data, None)
    if any(n_permutations is b for b in BAD_PERMUTATIONS):
        must_fail.add("n_permutations")
    if block == 0 or (block is not None and with_z):
        must_fail.add("block")
    if method == "nope":
        must_fail.add("method")
    res = _call(im.independence_test, names, must_fail, *args, **opts)
    if res is not None:
        _check_result(res.statistic)
        assert 0 < res.p_value <= 1
        assert np.all(np.isfinite(res.null))


GOOD_P = [0.01, 0.5, 1.0, 0.0]
BAD_P = [-0.1, 1.5, math.nan, "0.1", None]


@settings(FUZZ, max_examples=80)
@given(
    st.one_of(
        NOT_ARRAYS.map(lambda c: (c.value, True)),
        st.lists(st.sampled_from(GOOD_P * 3 + BAD_P), max_size=6).map(
            lambda v: (v, not v or any(any(x is b for b in BAD_P) for x in v))
        ),
        st.just((np.array([[0.1, 0.2]]), False)),
        st.just((np.array([]), True)),
    ),
    st.sampled_from(["fdr_bh", "fdr_by", "holm", "bonferroni", "maxstat", "fdr", None]),
    st.sampled_from([0.05, 1, 0, 2, math.nan, "0.05"]),
)
def test_fuzz_multipletests(pvals_bad, method, alpha):
    pvals, bad = pvals_bad
    must_fail = {"pvals"} if bad else set()
    if method not in ("fdr_bh", "fdr_by", "holm", "bonferroni"):
        must_fail.add("correction")  # maxstat needs IndependenceTest results
    if not (isinstance(alpha, float | int) and 0 < alpha <= 1):
        must_fail.add("alpha")
    res = _call(
        multipletests,
        {"pvals", "correction", "alpha"},
        must_fail,
        pvals,
        correction=method,
        alpha=alpha,
    )
    if res is not None:
        assert np.all((res.p_adjusted >= 0) & (res.p_adjusted <= 1))


# ------------------------------------------------------------------------ exact
MALFORMED_TABLES = {
    "unnormalised",
    "negative",
    "nan",
    "complex",
    "strings",
    "objects",
    "bools",
    "empty",
    "ragged",
    "huge_off",
    "zeros",
    "not_an_array",
}


@st.composite
def tables(draw) -> Col:
    kind = draw(
        st.sampled_from(
            [
                "pmf",
                "pmf",
                "pmf",
                "unnormalised",
                "negative",
                "nan",
                "complex",
                "strings",
                "objects",
                "bools",
                "empty",
                "scalar",
                "ragged",
                "float32",
                "huge_off",
                "zeros",
                "not_an_array",
            ]
        )
    )
    shape = draw(st.sampled_from([(4,), (2, 3), (2, 2, 2), (1,), (3, 1)]))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    a = rng.random(shape)
    a[a < 0.2] = 0.0
    a = a / a.sum() if a.sum() > 0 else np.full(shape, 1.0 / a.size)
    value = {
        "pmf": a,
        "unnormalised": a * 1.02,
        "negative": a - a.max() if a.size > 1 else -a,
        "nan": np.where(np.arange(a.size).reshape(shape) == 0, math.nan, a),
        "complex": a + 0j,
        "strings": a.astype(str),
        "objects": np.array([0.5, "0.5"], dtype=object),
        "bools": a > 0,
        "empty": np.zeros((0,)),
        "scalar": 1.0,
        "ragged": [[0.5], [0.25, 0.25]],
        "float32": a.astype(np.float32),
        "huge_off": np.full(10**5, 1.01e-5),
        "zeros": np.zeros(shape),
        "not_an_array": draw(st.sampled_from([None, "0.5", {"a": 1.0}])),
    }[kind]
    return Col(value, kind, malformed=kind in MALFORMED_TABLES)


EXACT = {
    "entropy": (exact.entropy, ("p",)),
    "joint_entropy": (exact.joint_entropy, ("pxy",)),
    "cond_entropy": (exact.cond_entropy, ("pxy",)),
    "mutual_info": (exact.mutual_info, ("pxy",)),
    "cond_mutual_info": (exact.cond_mutual_info, ("pxyz",)),
    "kl_divergence": (exact.kl_divergence, ("p", "q")),
    "cross_entropy": (exact.cross_entropy, ("p", "q")),
}


@settings(FUZZ, max_examples=200)
@given(
    st.sampled_from(sorted(EXACT)),
    tables(),
    tables(),
    st.sampled_from(["nats", "nats", "bits", "base-inf", "nope", 3]),
)
def test_fuzz_exact(name, a, b, unit):
    f, roles = EXACT[name]
    args = dict(zip(roles, (a, b), strict=False))
    must_fail = {r for r, c in args.items() if c.malformed}
    if unit not in ("nats", "bits"):
        must_fail.add("unit")
    names = set(roles) | {"unit"}
    e = _call(f, names, must_fail, *(c.value for c in args.values()), unit=unit)
    if e is not None:
        value = float(e.value)
        assert not math.isnan(value)
        # exact quantities are finite except KL / cross-entropy where q misses p's support
        assert math.isfinite(value) or name in ("kl_divergence", "cross_entropy")
        if name in ("entropy", "joint_entropy", "mutual_info", "cond_mutual_info"):
            assert value >= 0
