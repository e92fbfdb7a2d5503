"""Outside re-check (issue 30r) of the capabilities landed by issues 24, 25 and 29: bad
input.

Every new public entry point (``multivariate_test``, ``multiplets`` and its searches,
Gaussian BROJA, ``infer_network(method="pcmciplus")``, ``local=True``, ``k="auto"``,
``Execution``) is given the classes of bad input of docs/errors.md; each failure must be a
``ValueError`` / ``TypeError`` naming the argument, never a raw numpy / pandas / pathlib
error, a hang, or a silent result.  The first block holds one test per defect this
re-check found (each failed on the code before its fix); the second fuzzes with
hypothesis, through the contract of ``tests/test_fuzz.py``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import infometer as im
from tests.test_fuzz import FUZZ, _call, columns

RNG = np.random.default_rng(30)
X = RNG.normal(size=(60, 4))
S = RNG.normal(size=80)
T = np.r_[0.0, S[:-1]] + 0.5 * RNG.normal(size=80)


def _masked(a: np.ndarray) -> np.ma.MaskedArray:
    m = np.ma.masked_array(a, mask=np.zeros(a.shape, bool))
    m.mask[(2, 2) if a.ndim == 2 else 2] = True
    return m


# --------------------------------------------------------- defects found (now fixed)
def test_multiplets_negative_seed_names_seed():
    # was numpy's "expected non-negative integer" from the bit generator
    with pytest.raises(ValueError, match=r"\bseed\b"):
        im.multiplets(X, n_permutations=9, seed=-1)
    with pytest.raises(TypeError, match=r"\bseed\b"):
        im.multiplets(X, n_permutations=9, seed=1.5)
    with pytest.raises(TypeError, match=r"\bseed\b"):
        im.multiplets(X, n_permutations=9, seed=True)


def test_multiplets_singular_multiplet_warns():
    # a NaN value used to be silent (counted in diagnostics only); greedy/beam searches
    # pass over singular multiplets (their frame holds only finite values)
    a, b = X[:, 0], X[:, 1]
    with pytest.warns(im.InfometerWarning, match=r"singular covariance .* \('x0', 'x1', "):
        r = im.multiplets(np.c_[a, a, b, X[:, 2]])
    assert r.diagnostics["singular_multiplets"] == r.frame["value"].isna().sum() > 0
    assert "singular" in r.diagnostics["warnings"][0]


def test_multiplets_store_of_wrong_type_names_store():
    # was pathlib's "expected str, bytes or os.PathLike object, not int"
    with pytest.raises(TypeError, match=r"\bstore\b"):
        im.multiplets(X, store=3)


@pytest.mark.parametrize(
    "call",
    [
        lambda d: im.multivariate_test(d, n_permutations=9),
        lambda d: im.multiplets(d),
        lambda d: im.o_information(d),
        lambda d: im.mutual_info(d, X[:, 3]),
    ],
    ids=["multivariate_test", "multiplets", "o_information", "mutual_info"],
)
def test_frame_with_repeated_column_names_is_refused(call):
    # was pandas' AttributeError "'DataFrame' object has no attribute 'dtype'" (df['a'] of
    # a repeated name is a DataFrame), from the one reader of raw input, infometer.core.data
    df = pd.DataFrame(X[:, :3], columns=["a", "a", "b"])
    with pytest.raises(ValueError, match=r"repeated column names \['a'\]"):
        call(df)


@pytest.mark.parametrize("method", ["pcmciplus", "pcmci", "mte"])
def test_infer_network_refuses_masked_values(method):
    # the mask used to be dropped by np.asarray and the hidden values used
    kw = {"tau_min": 0} if method == "pcmciplus" else {}
    with pytest.raises(ValueError, match=r"data is a masked array with 1 masked value"):
        im.infer_network(_masked(X), method=method, max_lag=1, n_permutations=19, **kw)
    d = {f"s{i}": X[:, i] for i in range(4)}
    d["s2"] = _masked(X[:, 2])
    with pytest.raises(ValueError, match=r"series 's2' of data is a masked array"):
        im.infer_network(d, method=method, max_lag=1, n_permutations=19, **kw)
    # a masked array with nothing masked is a plain array
    plain = np.ma.masked_array(X, mask=np.zeros(X.shape, bool))
    a = im.infer_network(plain, method="pcmciplus", tau_min=0, max_lag=1)
    b = im.infer_network(X, method="pcmciplus", tau_min=0, max_lag=1)
    assert (a.graph == b.graph).all()


def test_infer_network_targets_empty_repeated_or_a_string():
    # [] used to give an empty network silently; [1, 1] analysed a target twice;
    # "x1" was read letter by letter
    kw = {"method": "pcmciplus", "tau_min": 0, "max_lag": 1}
    with pytest.raises(ValueError, match=r"targets is empty"):
        im.infer_network(X, targets=[], **kw)
    with pytest.raises(ValueError, match=r"targets names a series twice"):
        im.infer_network(X, targets=[1, 1], **kw)
    with pytest.raises(TypeError, match=r"\btargets\b"):
        im.infer_network(X, targets="x1", **kw)
    assert len(im.infer_network(X, targets=["x1"], **kw).targets) == 1


def test_infer_network_ragged_series_and_too_few_rows_name_data():
    # a ragged list among the series was numpy's "inhomogeneous shape" ValueError; five
    # rows at max_lag=1 were "the series have 5 samples ..." naming no argument
    d = {"a": S[:2], "b": S[:2], "c": [[], [0]]}
    with pytest.raises(ValueError, match=r"series 'c' of data is ragged"):
        im.infer_network(d, method="pcmciplus", tau_min=0, max_lag=1)
    with pytest.raises(ValueError, match=r"data has 5 rows .* max_lag=1"):
        im.infer_network(X[:5], method="pcmciplus", tau_min=0, max_lag=1)


@pytest.mark.parametrize(
    "call",
    [
        lambda n: im.transfer_entropy(S, T, k="auto", method="gaussian", n_permutations=n),
        lambda n: im.active_info_storage(T, k="auto", method="gaussian", n_permutations=n),
        lambda n: im.infer_network(X, method="mte", max_lag=1, n_permutations=n),
    ],
    ids=["te_k_auto", "ais_k_auto", "mte"],
)
def test_huge_n_perm_is_refused_before_allocating(call):
    # was numpy's MemoryError "Unable to allocate 559. GiB" for the permutation table
    # the size and the limit, named, whichever check comes first (the declared budget of
    # infer_network, or the permutation table's memory of the k='auto' searches)
    with pytest.raises(
        ValueError,
        match=r"n_permutations(: the table of 1000000000 permutations| asks for 1e\+09 perm)",
    ):
        call(10**9)


# ------------------------------------------------------------- option sweeps
BAD_OPTIONS = [
    (im.multivariate_test, {"n_permutations": 0}, "n_permutations"),
    (im.multivariate_test, {"n_permutations": True}, "n_permutations"),
    (im.multivariate_test, {"n_permutations": 10**9}, "n_permutations"),
    (im.multivariate_test, {"seed": -1}, "seed"),
    (im.multivariate_test, {"unit": "furlongs"}, "unit"),
    (im.multivariate_test, {"base": math.nan}, "base"),
    (im.multivariate_test, {"block": 60}, "block"),
    (im.multivariate_test, {"alternative": "up"}, "alternative"),
    (im.multivariate_test, {"groups": [[0, 1], [1, 2], [3]]}, "groups"),
    (im.multivariate_test, {"measure": "gradient_o_information", "index": 9}, "index"),
    (im.multiplets, {"sizes": True}, "sizes"),
    (im.multiplets, {"sizes": (3, 9)}, "sizes"),
    (im.multiplets, {"search": "beam", "beam_width": 2.5}, "beam_width"),
    (im.multiplets, {"search": "greedy", "n_jobs": 0}, "n_jobs"),
    (im.multiplets, {"search": "greedy", "objective": "both"}, "objective"),
    (im.multiplets, {"search": "greedy", "store": "somewhere"}, "store"),
    (im.multiplets, {"n_permutations": 9, "execution": im.Execution(scheduler=3)}, "scheduler"),
]


@pytest.mark.parametrize(("func", "kw", "name"), BAD_OPTIONS)
def test_bad_options_name_the_argument(func, kw, name):
    kw = {"n_permutations": 9, **kw} if func is im.multivariate_test else kw
    with pytest.raises((ValueError, TypeError), match=rf"\b{name}\b"):
        func(X, **kw)


NET_BAD = [
    ({"tau_min": True}, "tau_min"),
    ({"tau_min": 2}, "tau_min"),
    ({"tau_min": 0, "min_lag": 1}, "min_lag"),
    ({"alpha": math.nan}, "alpha"),
    ({"pc_alpha": 0.1}, "pc_alpha"),
    ({"seed": -1}, "seed"),
    ({"execution": 3}, "execution"),
    ({"execution": im.Execution(n_jobs=1), "n_jobs": 2}, "n_jobs"),
    ({"max_lag": 10**9}, "max_lag"),
]


@pytest.mark.parametrize(("kw", "name"), NET_BAD)
def test_pcmciplus_bad_options_name_the_argument(kw, name):
    kw = {"method": "pcmciplus", "tau_min": 0, "max_lag": 1, **kw}
    with pytest.raises((ValueError, TypeError), match=rf"\b{name}\b"):
        im.infer_network(X, **kw)


@pytest.mark.parametrize(
    ("kw", "name"),
    [
        ({"n_jobs": True}, "n_jobs"),
        ({"n_jobs": -1}, "n_jobs"),
        ({"retries": 1.5}, "retries"),
        ({"connect_timeout": math.inf}, "connect_timeout"),
        ({"progress": "yes"}, "progress"),
        ({"store": 3}, "store"),
        ({"backend": "gpu"}, "backend"),
    ],
)
def test_execution_fields(kw, name):
    with pytest.raises((ValueError, TypeError), match=rf"\b{name}\b"):
        im.Execution(**kw)


LOCAL_BAD = [
    (lambda: im.transfer_entropy(S, T, local=True, ci=0.9, method="gaussian"), "ci"),
    (lambda: im.transfer_entropy(S, T, local=1, method="gaussian"), "local"),
    (lambda: im.transfer_entropy(S, T, local=True, method="gkov"), "gkov"),
    (lambda: im.transfer_entropy(S[:3], T[:3], local=True, method="gaussian"), "k"),
    (lambda: im.transfer_entropy(S, T, k="AUTO"), "k"),
    (lambda: im.transfer_entropy(S, T, k="auto", tau=2), "tau"),
    (lambda: im.transfer_entropy(S, T, k="auto", max_lag=40), "max_lag"),
    (lambda: im.transfer_entropy(S, T, k="auto", k_alpha=math.nan), "k_alpha"),
    (lambda: im.mutual_info(S, S, local=True, method="gaussian"), "gaussian"),
    (lambda: im.mutual_info(S, T, local=True, method="gaussian", base=0), "base"),
    (lambda: im.cond_mutual_info(S, T, S[:50], local=True, method="gaussian"), "z"),
    (lambda: im.active_info_storage(T, lags=[0], local=True, method="gaussian"), "lags"),
    (lambda: im.active_info_storage(T, local=True, ci=0.9, method="gaussian"), "ci"),
    (lambda: im.pid(X[:, :3], X[:, 3], method="gaussian", measure="broja"), "broja"),
    (
        lambda: im.pid(X[:, :2], X[:, 2:], method="gaussian", measure="broja", bias_correct=True),
        "bias_correct",
    ),
    (lambda: im.pid(X[:3, :2], X[:3, 2:], method="gaussian", measure="broja"), "gaussian"),
]


@pytest.mark.parametrize(("call", "name"), LOCAL_BAD)
def test_local_auto_and_broja_bad_input(call, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises((ValueError, TypeError), match=rf"\b{name}\b"):
            call()


# ---------------------------------------------------------------- hypothesis fuzz
@st.composite
def tables(draw):
    """A dict of 3-4 generated columns (valid, odd or malformed, as test_fuzz's)."""
    n = draw(st.sampled_from([0, 1, 2, 5, 12, 30, 40, 40]))
    d = draw(st.sampled_from([3, 4]))
    cols = {f"c{i}": draw(columns(n)) for i in range(d)}
    return cols


def _unpack(cols):
    data = {k: c.value for k, c in cols.items()}
    bad = {k for k, c in cols.items() if c.malformed}
    return data, bad


@FUZZ
@given(cols=tables(), measure=st.sampled_from(["o_information", "total_correlation"]))
def test_fuzz_multivariate_test(cols, measure):
    data, bad = _unpack(cols)
    out = _call(
        im.multivariate_test,
        {"X", "measure", "method", *data},
        bad,
        data,
        measure=measure,
        n_permutations=4,
    )
    if out is not None:
        assert not math.isnan(out.statistic.value)
        assert 0 < out.p_value <= 1


@FUZZ
@given(cols=tables(), search=st.sampled_from(["exhaustive", "greedy", "beam"]))
def test_fuzz_multiplets(cols, search):
    data, bad = _unpack(cols)
    out = _call(
        im.multiplets, {"X", "sizes", "method", *data}, bad, data, search=search, beam_width=2
    )
    if out is not None:
        v = out.frame["value"].to_numpy(float)
        if np.isnan(v).any():  # a singular multiplet: NaN, with a warning and the count
            assert out.diagnostics["singular_multiplets"] == np.isnan(v).sum()
            assert out.diagnostics["warnings"]
        assert not np.isinf(v).any()


@FUZZ
@given(cols=tables())
def test_fuzz_pcmciplus(cols):
    data, bad = _unpack(cols)
    out = _call(
        im.infer_network,
        {"data", "max_lag", "cmi", *data},
        bad,
        data,
        method="pcmciplus",
        tau_min=0,
        max_lag=1,
    )
    if out is not None:
        assert set(np.unique(out.graph)) <= {"", "-->", "<--", "o-o", "x-x"}


@FUZZ
@given(
    x=st.sampled_from([0, 5, 12, 30, 40]).flatmap(lambda n: st.tuples(columns(n), columns(n))),
    which=st.sampled_from(["mutual_info", "transfer_entropy", "cond_mutual_info"]),
)
def test_fuzz_local_values(x, which):
    a, b = x
    bad = {r for r, c in (("x", a), ("y", b)) if c.malformed}
    f = getattr(im, which)
    if which == "transfer_entropy":
        names = {"source", "target", "method", "k", "l", "local"}
        bad = {{"x": "source", "y": "target"}[r] for r in bad}
        out = _call(f, names, bad, a.value, b.value, local=True)
    elif which == "cond_mutual_info":
        out = _call(
            f, {"x", "y", "z", "method", "local"}, bad, a.value, b.value, b.value, local=True
        )
    else:
        out = _call(f, {"x", "y", "method", "local"}, bad, a.value, b.value, local=True)
    if out is not None:
        v = np.asarray(out.values, float)
        assert not np.isnan(v).any(), "silent NaN among local values"
        if not np.isfinite(v).all():
            assert out.diagnostics.get("warnings")
