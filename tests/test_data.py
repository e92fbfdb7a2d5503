"""Input handling: every kind of container, kinds, and the errors users see."""

import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import infometer as im
from infometer.core.data import as_variable, encode_columns


def test_containers_give_the_same_answer():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 5, 500)
    y = (x + rng.integers(0, 2, 500)) % 5
    ref = im.mutual_info(x, y, method="plugin").value
    for cx, cy in [
        (list(x), list(y)),
        (pd.Series(x), pd.Series(y)),
        (pd.DataFrame({"a": x}), pd.DataFrame({"b": y})),
        (pl.Series(x), pl.Series(y)),
        (pl.DataFrame({"a": x}), pl.DataFrame({"b": y})),
        (torch.tensor(x), torch.tensor(y)),
    ]:
        assert im.mutual_info(cx, cy, method="plugin").value == pytest.approx(ref, abs=1e-12)


def test_kinds_by_dtype():
    assert as_variable(np.array([1, 2, 3])).kind == "discrete"
    assert as_variable(np.array([True, False])).kind == "discrete"
    assert as_variable(["a", "b"]).kind == "discrete"
    assert as_variable(pd.Series(["a", "b"], dtype="category")).kind == "discrete"
    assert as_variable(np.array([0.5, 1.5])).kind == "continuous"
    df = pd.DataFrame({"a": [1, 2], "b": [0.1, 0.2]})
    assert as_variable(df).kind == "mixed"


def test_floats_with_few_values_stay_continuous_but_are_noted():
    v = as_variable(np.tile([0.0, 1.0, 2.0], 100))
    assert v.kind == "continuous"
    assert v.diagnostics["few_distinct_float_columns"] == [0]
    assert as_variable(np.tile([0.0, 1.0, 2.0], 100), discrete=True).kind == "discrete"


def test_multi_column_discrete_is_a_joint_symbol():
    x = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 25)
    assert im.entropy(x, method="plugin", unit="bits").value == pytest.approx(2.0)


def test_strings_and_booleans_are_symbols():
    assert im.entropy(["a", "b", "c", "d"], method="plugin", base=2).value == pytest.approx(2.0)
    assert im.entropy([True, False] * 5, method="plugin", base=2).value == pytest.approx(1.0)


def test_encode_columns_overflow_falls_back_to_hashing():
    rng = np.random.default_rng(1)
    cols = [rng.integers(0, 2**40, 1000) for _ in range(3)]
    codes = encode_columns(cols, [2**40] * 3)
    # distinct rows stay distinct: same number of unique codes as unique rows
    assert len(np.unique(codes)) == len(np.unique(np.column_stack(cols), axis=0))


# --------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "x, y, exc, msg",
    [
        (np.arange(10), np.arange(9), ValueError, "y has 9 rows but x has 10"),
        ([], [], ValueError, "x is empty"),
        (
            np.array([1.0, np.nan, 2.0]),
            np.array([1.0, 2.0, 3.0]),
            ValueError,
            r"x contains NaN at row 1",
        ),
        (
            np.array([0.0, 1.0, 2.0]),
            np.array([1.0, np.inf, 3.0]),
            ValueError,
            r"y contains inf at row 1",
        ),
        ([[1, 2], [3]], [1, 2], ValueError, "x is ragged"),
        (
            np.array([1, "a", 2.5], dtype=object),
            [1, 2, 3],
            TypeError,
            "x is an object array of mixed types",
        ),
        # a string is a column name without its table (issue 31): say how to pass one
        ("abc", [1, 2, 3], TypeError, "x is the string 'abc', not samples.*data="),
        (None, [1, 2], TypeError, "x is None"),
        (np.zeros((2, 2, 2)), np.zeros(2), ValueError, "x has 3 dimensions"),
        (pd.Series([1.0, None, 2.0]), [1, 2, 3], ValueError, "x contains NaN at row 1"),
    ],
)
def test_bad_input_errors_name_the_argument(x, y, exc, msg):
    with pytest.raises(exc, match=msg):
        im.mutual_info(x, y)


def test_unknown_method_lists_valid_ones():
    with pytest.raises(ValueError, match=r"unknown method 'nope'.*plugin"):
        im.entropy([1, 2, 3], method="nope")


def test_unknown_parameter_lists_valid_ones():
    with pytest.raises(TypeError, match=r"no parameter 'k'.*alphabet_size"):
        im.entropy([1, 2, 3], method="nsb", k=3)


def test_discrete_method_on_continuous_data_says_how_to_fix():
    with pytest.raises(ValueError, match="discrete=True"):
        im.entropy(np.linspace(0, 1, 50), method="plugin")


def test_bad_core_options():
    with pytest.raises(ValueError, match="ci must be"):
        im.entropy([1, 2], method="plugin", ci=1.5)
    with pytest.raises(TypeError, match="seed must be an int >= 0, a numpy.random.Generator"):
        im.entropy([1, 2], method="plugin", seed="a")
    with pytest.raises(TypeError, match="method must be a string"):
        im.entropy([1, 2], method=3)


def test_kl_dimension_mismatch():
    with pytest.raises(ValueError, match="p has 2 columns but q has 1"):
        im.kl_divergence(np.zeros((5, 2), int), np.zeros(5, int))


def test_joint_codes_of_many_wide_variables_do_not_overflow():
    # 2 x 30 columns of 4 symbols: each variable's own code is sparse (up to 4**30), so their
    # joint needs the column codes densified too (this raised OverflowError before).
    from infometer.estimators.discrete import counts, joint_codes

    rng = np.random.default_rng(0)
    x = as_variable(rng.integers(0, 4, (300, 30)), "x")
    y = as_variable(rng.integers(0, 4, (300, 30)), "y")
    c = counts(joint_codes(x, y))
    assert c.sum() == 300 and c.size == len(np.unique(np.hstack([x.values, y.values]), axis=0))


# ---------------------------------------------------------- the float-array fast path
@settings(max_examples=60, deadline=None)
@given(
    shape=st.sampled_from([(1,), (19,), (20,), (45,), (300,), (7, 3), (64, 2), (500, 1)]),
    levels=st.sampled_from([0, 2, 5, 30]),  # 0: continuous values; else rounded to levels
    dtype=st.sampled_from([np.float64, np.float32]),
    discrete=st.sampled_from([None, False]),
    seed=st.integers(0, 2**16),
)
def test_a_float_array_reads_as_the_general_reader_reads_it(shape, levels, dtype, discrete, seed):
    # the float ndarray path (one finiteness check, no per-column frame handling) must give
    # the variable the general reader gives the same numbers as a list of rows
    rng = np.random.default_rng(seed)
    a = rng.normal(size=shape)
    if levels:
        a = np.round(a * levels / 4) / levels
    a = a.astype(dtype)
    fast = as_variable(a, "x", discrete=discrete)
    slow = as_variable(a.tolist(), "x", discrete=discrete)
    assert fast.kinds == slow.kinds and fast.cardinalities == slow.cardinalities
    assert fast.diagnostics == slow.diagnostics
    assert fast.ties == slow.ties
    for c_fast, c_slow in zip(fast.columns, slow.columns, strict=True):
        assert c_fast.dtype == np.float64
        np.testing.assert_array_equal(c_fast, c_slow)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_float_array_with_a_missing_value_is_refused_by_row(bad):
    a = np.random.default_rng(0).normal(size=(50, 3))
    a[17, 2] = bad
    with pytest.raises(ValueError, match=r"x\[:, 2\] contains (NaN|inf) at row 17"):
        as_variable(a, "x")


def test_an_image_is_one_variable_not_a_table_of_columns():
    # a binary image: every column takes two values, which the reader would say of each
    # column of a table; an image's complexity says nothing of its columns
    img = (np.random.default_rng(1).random((60, 40)) > 0.5).astype(np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        e = im.complexity(img, "permutation_2d", order=(2, 2))
    assert 0 < e.value <= np.log(24)
    with pytest.raises(ValueError, match="x"):
        im.complexity(np.where(img > 0, np.nan, 0.0), "permutation_2d")
