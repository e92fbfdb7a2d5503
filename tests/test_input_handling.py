"""Bad input gets a clear error naming the argument, never a silent wrong number (issue 9 §3).

Each test states the call that used to fail or lie, and what it did.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import infometer as im
from infometer.core.data import as_variable
from infometer.measures import exact
from infometer.measures.stats import multipletests

RNG = np.random.default_rng(0)


def quiet(f, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*a, **k)


# --------------------------------------------------------------------- data.py
def test_datetimes_with_nat_are_refused():
    # was: NaT became -9.2e18 and the entropy came out as 22 nats
    s = pd.Series(pd.to_datetime(["2020-01-01", None, "2020-01-03"] * 10))
    with pytest.raises(ValueError, match=r"^x contains NaT .* row 1"):
        im.entropy(s)
    a = np.array(["2020-01-01", "NaT", "2020-01-02"] * 10, dtype="datetime64[D]")
    with pytest.raises(ValueError, match=r"^x contains NaT .* row 1"):
        im.entropy(a)
    ok = pd.Series(pd.date_range("2020-01-01", periods=30, freq="h"))
    assert np.isfinite(quiet(im.entropy, ok).value)


def test_numbers_stored_as_text_with_a_stray_value_are_refused():
    # was: a numeric CSV column with one '?' became hundreds of discrete symbols silently
    vals = [f"{v:.3f}" for v in RNG.normal(size=300)]
    vals[17] = "?"
    df = pd.DataFrame({"age": vals})
    with pytest.raises(ValueError, match=r"x column 'age' is text.*'\?'.*row 17.*discrete=True"):
        im.entropy(df)
    with pytest.raises(ValueError, match="is text"):
        im.entropy(np.array(vals))  # numpy strings, no labels
    # asking for symbols on purpose is fine, and so is text that is not numbers
    assert quiet(im.entropy, df, discrete=True).method == "nsb"
    assert im.entropy(np.array(["a", "b", "c", "a"] * 10)).value > 0
    assert im.entropy(np.array(["1", "2", "3", "1"] * 10)).value > 0  # all numbers: symbols


def test_stray_text_through_the_cli_is_one_error_line(tmp_path):
    from typer.testing import CliRunner

    from infometer.cli.app import app

    f = tmp_path / "d.csv"
    f.write_text("a,b\n" + "".join(f"{i * 0.37:.2f},{i % 3}\n" for i in range(40)) + "?,1\n")
    r = CliRunner().invoke(app, ["mi", str(f), "--x", "a", "--y", "b"])
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert "error: --x column 'a' is text" in r.output


@pytest.mark.parametrize("bad", [1, 0, "yes", "True", 1.0, [True]])
def test_discrete_must_be_a_bool_or_none(bad):
    # was: discrete=1 or discrete="yes" were ignored (data stayed continuous)
    x = RNG.normal(size=30)
    with pytest.raises(TypeError, match="discrete must be True, False or None"):
        im.entropy(x, discrete=bad)
    with pytest.raises(TypeError, match="discrete must be True, False or None"):
        im.independence_test(x, x, discrete=bad)
    assert im.entropy(x, discrete=np.bool_(True)).method == "nsb"


def test_categoricals_keep_their_labels():
    # pandas categorical codes were the symbols: p with categories {a, b} and q with
    # {b, c} were both coded 0/1 and the plug-in KL came out 0 instead of inf
    p = pd.Series(pd.Categorical(["a", "b"] * 50))
    q = pd.Series(pd.Categorical(["b", "c"] * 50))
    e = quiet(im.kl_divergence, p, q, method="plugin")
    assert math.isinf(e.value) and e.diagnostics["support_mismatch"] == 1


@pytest.mark.parametrize("frame", ["pandas", "polars"])
def test_categorical_with_discrete_false(frame):
    # was: polars -> numpy's "could not convert string to float"; pandas -> the category
    # codes were silently used as numbers (entropy -21.9 nats)
    labels = ["a", "b", "c"] * 20
    numbers = [0.5, 2.5, 7.0] * 20
    if frame == "pandas":
        cat, num = (pd.Series(pd.Categorical(v)) for v in (labels, numbers))
    else:
        pl = pytest.importorskip("polars")
        cat = pl.Series(labels, dtype=pl.Categorical)
        num = pl.Series([str(v) for v in numbers], dtype=pl.Categorical)
    with pytest.raises(ValueError, match="x (column .* )?is categorical with non-numeric"):
        im.entropy(cat, discrete=False)
    # numeric categories are their values
    v = as_variable(num, discrete=False)
    assert v.kind == "continuous"
    np.testing.assert_array_equal(v.values[:, 0], numbers)


@pytest.mark.parametrize("unit", ["base-inf", "base-1e400", "base-nan", "base-1", "base-0", "x"])
def test_degenerate_units_are_refused(unit):
    # was: base-inf (and 1e400, which parses as inf) turned every value into 0
    with pytest.raises(ValueError, match="unit"):
        im.entropy([0, 1, 1, 0], unit=unit)
    with pytest.raises(ValueError, match="unit"):
        exact.entropy([0.5, 0.5], unit=unit)


# ------------------------------------------------------------------- exact.py
@pytest.mark.parametrize(
    "pmf, what",
    [
        (np.array([0.5 + 0j, 0.5]), "complex"),
        ([0.5 + 1j, 0.5], "complex"),
        (["0.5", "0.5"], "strings"),
        (np.array([True, False]), "booleans"),
        (np.array([0.5, "a"], dtype=object), "str"),
        ("0.5", "string"),
    ],
)
def test_exact_refuses_tables_that_are_not_real_numbers(pmf, what):
    # was: complex parts dropped and numeric strings parsed, without a word
    with pytest.raises(TypeError, match=f"p .*{what}"):
        exact.entropy(pmf)


def test_exact_sum_tolerance_does_not_grow_with_size():
    # was: the tolerance was 1e-9 x size, so 1% missing mass passed at 10^7 cells
    n = 10**6
    with pytest.raises(ValueError, match="p sums to 1.01"):
        exact.entropy(np.full(n, 1.01 / n))
    with pytest.raises(ValueError, match="pxy sums to"):
        exact.mutual_info(np.full((1000, 1000), (1 + 1e-6) / n))
    # a pmf normalised in float64 passes at any size, in float32 within float32 rounding
    p = RNG.random(n)
    assert exact.entropy(p / p.sum()).value == pytest.approx(
        exact.entropy((p / p.sum()).astype(np.float32)).value, abs=1e-4
    )
    assert exact.entropy(np.array([1, 0, 0])).value == 0.0  # integers are fine


# --------------------------------------------------------- errors of our own
def test_estimate_checks_its_data_argument():
    x = RNG.normal(size=50)
    # was: AttributeError: 'list' object has no attribute 'items'
    with pytest.raises(
        TypeError, match=r"data must be a dict mapping each role of entropy \('x'\)"
    ):
        im.estimate("entropy", [x])
    with pytest.raises(ValueError, match="unknown quantity 'entropie'"):
        im.estimate("entropie", {"x": x})
    with pytest.raises(ValueError, match=r"missing role\(s\) \['z'\]"):
        im.estimate("cond_mutual_info", {"x": x, "y": x})
    with pytest.raises(ValueError, match=r"unknown role\(s\) \['w'\]"):
        im.estimate("mutual_info", {"x": x, "w": x})
    # roles are matched by name, not by dict order
    y, z = x + RNG.normal(size=50), RNG.normal(size=50)
    a = im.estimate("cond_mutual_info", {"z": z, "y": y, "x": x}, method="gaussian").value
    assert a == im.cond_mutual_info(x, y, z, method="gaussian").value


@pytest.mark.parametrize("bad", [None, 0.5, "0.01", {"a": 0.1}])
def test_multipletests_names_pvals(bad):
    # was: TypeError: 'NoneType' object is not iterable
    with pytest.raises(TypeError, match="pvals must"):
        multipletests(bad)
    with pytest.raises(TypeError, match="pvals must"):
        multipletests(["a", 0.1])


def test_histogram_bins_and_extreme_ranges():
    x = RNG.normal(size=400)
    y = x + RNG.normal(size=400)
    # was: MemoryError (7.28 TiB for the bin edges)
    with pytest.raises(ValueError, match="bins must be <= 1000000"):
        im.entropy(x, method="histogram", bins=10**12)
    # was: ValueError: cannot convert float NaN to integer, from inside numpy
    big = x / np.abs(x).max() * 1.5e308  # spans +-1.5e308: max - min overflows
    assert im.mutual_info(big, y, method="histogram").value == pytest.approx(
        im.mutual_info(x, y, method="histogram").value, abs=1e-9
    )
    # h(cX) = h(X) + log c, also at the float limits
    c = 1.5e308 / np.abs(x).max()
    assert im.entropy(big, method="histogram").value == pytest.approx(
        im.entropy(x, method="histogram").value + math.log(c), abs=1e-9
    )
    tiny = x * 1e-300
    assert im.entropy(tiny, method="histogram").value == pytest.approx(
        im.entropy(x, method="histogram").value + math.log(1e-300), abs=1e-9
    )


def test_independence_test_caps_n_permutations():
    # was: numpy's "array is too big" from np.empty(2**62)
    x = RNG.normal(size=30)
    with pytest.raises(ValueError, match="n_permutations must be <= 10000000"):
        im.independence_test(x, x, n_permutations=2**62)


def test_masked_arrays_with_masked_values_are_refused():
    """A mask must not be dropped silently (np.asarray ignores it): masked values are
    refused with their count and first place; an array with nothing masked is used as is."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal(200)
    y = 0.5 * x + rng.standard_normal(200)
    with pytest.raises(
        ValueError, match=r"x is a masked array with 3 masked value\(s\), the first at row 7"
    ):
        im.mutual_info(np.ma.masked_array(x, mask=np.isin(np.arange(200), [7, 50, 99])), y)
    m2 = np.zeros((200, 2), bool)
    m2[11, 1] = True
    with pytest.raises(ValueError, match=r"y is a masked array .* first at row 11, column 1"):
        im.mutual_info(x, np.ma.masked_array(np.c_[y, y], mask=m2))
    plain = im.mutual_info(x, y).value
    assert im.mutual_info(np.ma.masked_array(x), y).value == plain


def test_scalar_checks_take_common_types_fast_and_refuse_the_rest_by_name():
    # the fast paths for plain int / float / bool / seed must refuse what the ABC checks
    # refused, and a number beyond float range is a ValueError naming it, not OverflowError
    from infometer.core.seeding import check_seed
    from infometer.core.validation import check_bool, check_float, check_int

    assert check_int(np.int64(3), "k") == 3 and check_float(np.float32(0.5), "r") == 0.5
    assert check_float(2, "r") == 2.0 and check_bool(np.bool_(True), "b") is True
    assert check_seed(7) == 7 and check_seed(np.int64(7)) == 7
    for bad, fn in ((True, check_int), (2.0, check_int), (False, check_float), ("1", check_float)):
        with pytest.raises(TypeError, match="arg"):
            fn(bad, "arg")
    with pytest.raises(TypeError, match="seed"):
        check_seed(True)
    with pytest.raises(ValueError, match="seed"):
        check_seed(-1)
    for bad in (10**400, -(10**400), float("nan"), float("inf")):
        with pytest.raises(ValueError, match="r must be a finite number|r must be finite"):
            check_float(bad, "r")
    x = np.random.default_rng(0).normal(size=300)
    with pytest.raises(ValueError, match="^r must be a finite"):
        im.complexity(x, "sample", r=10**400)
