"""The one tie / rounding-grid detector (``infometer.core.data.find_ties``) and the cells that
dequantisation spreads values over (issue 35 §1).

Ground truth here is the construction: data rounded to a known step Δ (or k/3 rounded to
0.01, or scaled to other units) must report that step; data on no grid must report none.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from infometer.core.data import as_variable, cell_widths, dequantize, find_ties


def gauss(n=500, seed=0, sd=1.0, mean=0.0):
    return np.random.default_rng(seed).normal(mean, sd, n)


@pytest.mark.parametrize("step", [0.1, 0.01, 1.0, 0.5, 0.2, 5.0, 1e-4, 1e3])
def test_rounding_steps_are_found(step):
    x = step * np.round(gauss(sd=30 * step) / step)
    t = find_ties(x)
    assert t is not None and t.step == pytest.approx(step, rel=1e-6)
    levels = np.unique(x).size
    assert t.levels == levels and t.n == 500
    _, c = np.unique(x, return_counts=True)
    assert t.tied_share == pytest.approx(c[c > 1].sum() / 500)
    assert t.top_share == pytest.approx(c.max() / 500)


def test_decimal_rounding_with_float_noise_is_one_value():
    # 0.1*3 and 0.3 differ by one ulp: one value, and the step is 0.1
    x = np.round(gauss(300, 1), 1)
    noisy = np.where(np.arange(300) % 2 == 0, x, np.round(x * 10) * 0.1)
    assert np.unique(noisy).size > np.unique(x).size  # the noise makes new float values
    t = find_ties(noisy)
    assert t.levels == np.unique(x).size and t.step == pytest.approx(0.1, rel=1e-9)


def test_thirds_rounded_to_hundredths_give_one_third():
    # the diabetes table's blood pressure: means of three readings, rounded to 0.01
    k = np.random.default_rng(2).integers(180, 360, 442)
    x = np.round(k / 3, 2)
    t = find_ties(x)
    assert t.step == pytest.approx(1 / 3, rel=1e-4)


def test_scaled_units_and_offsets():
    cm = np.round(gauss(400, 3, sd=8, mean=170), 0)  # whole centimetres
    inches = cm / 2.54
    t = find_ties(inches)
    assert t.step == pytest.approx(1 / 2.54, rel=1e-9)
    kelvin = np.round(gauss(400, 4, sd=3, mean=20), 1) + 273.15  # 0.1 degree, shifted
    assert find_ties(kelvin).step == pytest.approx(0.1, rel=1e-6)
    f32 = np.round(gauss(400, 5, sd=2, mean=50), 2).astype(np.float32).astype(np.float64)
    assert find_ties(f32).step == pytest.approx(0.01, rel=1e-4)


def test_a_few_values_off_the_grid_do_not_make_it_finer():
    # wine "hue": hundredths, one value 0.906; under 1% of rows off the grid
    x = np.round(gauss(300, 6, sd=0.2, mean=1.0), 2)
    x[17] = 0.906
    t = find_ties(x)
    assert t.step == pytest.approx(0.01, rel=1e-6)
    # 5% of rows with three decimals: the grid is 0.001
    y = x.copy()
    y[:15] = np.round(gauss(15, 7, sd=0.2, mean=1.0), 3)
    assert find_ties(y).step == pytest.approx(0.001, rel=1e-4)


def test_grid_with_missing_neighbours():
    # only even multiples and a few odd ones: the step is the smallest common one
    k = np.random.default_rng(8).choice([0, 2, 4, 6, 9, 10, 12], 200)
    assert find_ties(0.1 * k).step == pytest.approx(0.1, rel=1e-6)


def test_no_ties_no_facts_and_ties_without_a_grid():
    assert find_ties(gauss()) is None
    assert find_ties([1.0]) is None
    t = find_ties(np.log(np.random.default_rng(9).integers(20, 400, 500).astype(float)))
    assert t is not None and t.step is None  # the log of whole numbers: no common step
    dup = np.concatenate([gauss(300, 10), gauss(300, 10)[:30]])  # duplicated rows
    t = find_ties(dup)
    assert t.step is None and t.tied_share == pytest.approx(60 / 330)


def test_two_levels_and_a_constant():
    t = find_ties(np.array([0.0, 1.0] * 50))
    assert t.levels == 2 and t.step == 1.0 and t.tied_share == 1.0
    c = find_ties(np.full(10, 2.5))
    assert c.levels == 1 and c.step is None and c.top_share == 1.0


def test_describe_states_the_facts():
    x = np.round(gauss(150, 11, sd=0.8, mean=5.8), 1)
    t = find_ties(x)
    text = t.describe()
    assert f"{t.tied_share:.0%} of rows tied" in text
    assert f"{t.levels} distinct values among 150" in text and "step 0.1" in text
    assert "step 10" in t.describe(unit=100.0)  # in another unit


def test_variable_caches_the_facts_per_continuous_column():
    x = np.column_stack([np.round(gauss(200, 12), 1), gauss(200, 13)])
    v = as_variable(x)
    assert set(v.ties) == {0} and v.ties[0].step == pytest.approx(0.1)
    d = as_variable(np.arange(200) % 3)  # discrete: no float ties to read
    assert d.ties == {}
    big = as_variable(np.round(gauss(120_000, 14), 1))  # detected on first use, all rows
    assert big.ties[0].n == 120_000


@pytest.mark.parametrize("head", [0, 600])
def test_the_facts_are_the_same_whether_found_on_reading_or_on_first_use(head):
    """A column whose first rows are all distinct has its detector run on first use of
    ``Variable.ties`` (a Gaussian fit never asks): the facts, and the few-values reading,
    are those of the detector on the whole column either way."""
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.normal(size=head), np.round(rng.normal(size=3000), 1)])
    y = np.concatenate([rng.normal(size=head), rng.integers(0, 4, 3000) * 0.5])
    v = as_variable(np.column_stack([x, y, rng.normal(size=x.size)]))
    assert v.ties.keys() == {0, 1}
    assert v.ties[0] == find_ties(x) and v.ties[1] == find_ties(y)
    if head == 0:  # the rounded columns alone: their grids, and few values (~70, 4)
        assert v.ties[0].step == pytest.approx(0.1) and v.ties[1].step == pytest.approx(0.5)
    few = v.diagnostics.get("few_distinct_float_columns", [])
    assert few == ([0, 1] if head == 0 else [])  # 600 distinct values first: not few


def test_cells_are_disjoint_and_cover_the_grid():
    x = np.round(gauss(500, 15), 1)
    t = find_ties(x)
    w = cell_widths(x, t)
    assert np.allclose(w, 0.1)
    y = dequantize(x, w, np.random.default_rng(0))
    assert np.all(np.abs(y - x) <= 0.05 + 1e-12)
    assert np.array_equal(np.round(y, 1), x)  # each value stays in its own cell
    assert np.unique(y).size == y.size  # no ties left


def test_cells_without_a_grid_are_the_gaps_to_the_neighbours():
    x = np.array([0.0, 0.0, 1.0, 3.0, 3.0, 3.5, 7.0])
    t = find_ties(x)
    assert t.step is None or t.step == 0.5
    z = np.log1p(x)  # transformed: no common step
    tz = find_ties(z)
    assert tz.step is None
    w = cell_widths(z, tz)
    s = np.sort(np.unique(z))
    # tied values get the smaller gap to their neighbours, untied values stay as they are
    assert w[0] == pytest.approx(s[1] - s[0]) and w[2] == 0.0 and w[6] == 0.0
    assert w[3] == pytest.approx(min(s[2] - s[1], s[3] - s[2]))


@settings(max_examples=40, deadline=None)
@given(
    step_exp=st.floats(-4, 3),
    mantissa=st.sampled_from([1.0, 2.0, 2.5, 5.0, 1 / 3, 1 / 2.54]),
    scale=st.floats(5, 200),
    offset=st.floats(-1e3, 1e3),
    n=st.integers(200, 2000),
    seed=st.integers(0, 2**31 - 1),
)
def test_property_any_step_scale_and_offset(step_exp, mantissa, scale, offset, n, seed):
    step = mantissa * 10.0**step_exp
    k = np.round(np.random.default_rng(seed).normal(0, scale, n))
    x = offset + k * step
    t = find_ties(x)
    assert t is not None and t.step is not None
    # the step of the grid, up to float noise relative to the offset
    assert t.step == pytest.approx(step, rel=1e-6 + 1e-12 * abs(offset) / step)
    w = cell_widths(x, t)
    y = dequantize(x, w, np.random.default_rng(seed))
    assert np.all(np.abs(y - x) <= t.step / 2 * (1 + 1e-9))
