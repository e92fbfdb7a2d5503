"""A newcomer's first hour, API side (issue 31): numbers rounded to their error,
``format(est, spec)``, column names with ``data=``, warnings at the user's line in the
user's names and unit, once per cause."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import infometer as im
from infometer.core.estimate import Estimate, round_to_error


def test_rounded_to_the_error():
    # two significant digits of the error; the value to the same decimal
    assert repr(Estimate(0.693147, stderr=0.0123)) == "0.693 nats ± 0.012 [?]"
    assert repr(Estimate(3.14159, stderr=0.31)).startswith("3.14 nats ± 0.31")
    # floating-point noise on an exact number is no error (was "8.000 ± 1.282e-16")
    assert repr(Estimate(8.0, stderr=1.282e-16)) == "8 nats ± 0 [?]"
    assert repr(Estimate(8.0, "utility", "exact")) == "8 utility [exact]"
    e = Estimate(0.5, stderr=0.05, ci=(0.40213, 0.59787), ci_level=0.95)
    assert repr(e) == "0.500 nats ± 0.050 (95% CI 0.402–0.598) [?]"
    assert round_to_error(1234.5678, 37.0) == ("1235", "37")
    assert round_to_error(float("nan"), 0.1) == ("nan", None)


def test_format_spec_formats_the_value():
    e = Estimate(0.693147, "bits", "plugin", n=10)
    assert format(e, ".3f") == "0.693"
    assert f"{e:.1%}" == "69.3%"
    assert f"{e}" == repr(e)


def test_column_names_with_a_frame():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 4, 500)
    df = pd.DataFrame({"a": a, "b": a % 2, "c": rng.integers(0, 2, 500)})
    by_name = im.mutual_info("a", "b", data=df, method="plugin")
    assert by_name.value == im.mutual_info(df["a"], df["b"], method="plugin").value
    joint = im.entropy(["a", "c"], data=df, method="plugin")
    assert joint.value == im.entropy(df[["a", "c"]], method="plugin").value
    with pytest.raises(TypeError, match=r"pass the table as data=, e\.g\. mutual_info\('a', 'b'"):
        im.mutual_info("a", "b")
    with pytest.raises(ValueError, match="y: data has no column 'zz'; its columns: a, b, c"):
        im.mutual_info("a", "zz", data=df)
    with pytest.raises(TypeError, match="data must be a pandas or polars DataFrame"):
        im.mutual_info("a", "b", data={"a": [1]})


def _rounded_table():
    rng = np.random.default_rng(3)
    x = np.round(rng.normal(size=400), 1)  # real data rounded to one decimal: many ties
    return pd.DataFrame({"dose[mg]": x, "y": np.round(x + rng.normal(size=400), 1)})


def test_warnings_point_at_the_users_line_in_their_names():
    df = _rounded_table()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        im.mutual_info(df["dose[mg]"], df["y"], method="ksg1", unit="bits")
    ours = [w for w in seen if issubclass(w.category, im.InfometerWarning)]
    assert ours, "rounded data warn about ties"
    for w in ours:
        assert w.filename == __file__, w.filename  # was: infometer/core/api.py
    text = " ".join(str(w.message) for w in ours)
    assert "['dose[mg]']" in text and "columns [0]" not in text
    # one warning per cause: ties are said once per variable, not also as "few distinct"
    assert len(ours) == len({str(w.message) for w in ours}) <= 2
    assert not any("take few distinct values" in str(w.message) for w in ours)


def test_warning_amounts_in_the_results_unit():
    # a negative MI estimate is reported in the unit the user asked for
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=60), rng.normal(size=60)
    for seed in range(20):
        e = im.mutual_info(x, np.roll(y, seed), method="ksg2", unit="bits")
        if e.value < 0:
            break
    else:  # pragma: no cover - depends on the draw
        pytest.skip("no negative estimate in 20 draws")
    msg = next(w for w in e.warnings if "negative" in w)
    assert f"({e.value:.3g} bits)" in msg, msg


def test_lock_creates_its_folder(tmp_path):
    from infometer.core.parallel import dir_lock

    # was: FileNotFoundError for lock="out/.lock" before out/ existed (docs/parallel.md)
    with dir_lock(tmp_path / "out" / "sub" / ".lock"):
        assert (tmp_path / "out" / "sub" / ".lock").exists()


def test_package_is_typed():
    from pathlib import Path

    assert (Path(im.__file__).parent / "py.typed").exists()
