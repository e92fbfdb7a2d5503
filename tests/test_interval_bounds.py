"""Intervals of quantities that are >= 0 never print a bound below 0 without a word
(issue 35 §4): one policy, ``uncertainty.respect_bounds``, in ``api.run`` and
``make_estimate``; the demo / rank tables mark a clipped bound.

The truth of MI between independent variables is 0; its interval covers 0 and, clipped,
starts at 0."""

from __future__ import annotations

import numpy as np
import pytest

import infometer as im
from infometer.core import registry
from infometer.core.uncertainty import make_estimate, respect_bounds


def test_policy():
    assert respect_bounds("mutual_info", (-0.2, 0.5)) == (
        (0.0, 0.5),
        {"ci_clipped": "lower", "ci_unclipped_nats": [-0.2, 0.5]},
    )
    # wholly below 0: no possible value left; kept as built and flagged, not (0, 0)
    below = respect_bounds("transfer_entropy", (-0.3, -0.1))
    assert below == ((-0.3, -0.1), {"ci_below_zero": True})
    assert respect_bounds("mutual_info", (0.1, 0.5)) == ((0.1, 0.5), {})
    # quantities that may be negative keep their intervals: differential entropy,
    # O-information, co-information, PID atoms
    for q in ("entropy", "o_information", "co_information", "pid_atom"):
        assert respect_bounds(q, (-1.0, 1.0)) == ((-1.0, 1.0), {})
    # the set is the registry's, with what the families add on import
    for q in ("total_correlation", "transfer_entropy", "active_info_storage", "kl_divergence"):
        assert q in registry.NONNEGATIVE
        assert respect_bounds(q, (-1.0, 1.0))[0] == (0.0, 1.0)


def test_make_estimate_applies_it_in_any_unit():
    e = make_estimate(
        0.01,
        quantity="mutual_info",
        method="x",
        unit="bits",
        stderr=0.02,
        ci=(-0.03, 0.05),
        ci_level=0.95,
    )
    assert e.ci[0] == 0.0 and e.ci[1] == pytest.approx(0.05 / np.log(2))
    assert e.diagnostics["ci_clipped"] == "lower"
    assert "lower bound clipped at 0" in repr(e)


def test_api_intervals_of_independent_data():
    clipped = 0
    for seed in range(10):
        rng = np.random.default_rng(seed)
        x, y = rng.integers(0, 3, 300), rng.integers(0, 3, 300)  # I(X;Y) = 0
        e = im.mutual_info(x, y, method="plugin", ci=0.95, seed=seed)
        assert e.ci[0] >= 0.0 and e.ci[0] <= e.ci[1]
        if "ci_clipped" in e.diagnostics:
            clipped += 1
            assert e.ci[0] == 0.0 and e.diagnostics["ci_unclipped_nats"][0] < 0
    # the basic bootstrap of a plug-in MI near 0 reaches below 0 in most samples
    assert clipped >= 3
    # a quantity that may be negative keeps its interval as built
    o = im.o_information(np.random.default_rng(0).normal(size=(200, 3)), ci=0.9)
    assert "ci_clipped" not in o.diagnostics


def test_ranking_table_marks_clipped_bounds():
    from infometer.cli.demo import ranking_frame, ranking_table

    e = make_estimate(
        0.001, quantity="mutual_info", method="m", stderr=0.002, ci=(-0.003, 0.005), ci_level=0.95
    )
    rows = [{"feature": "f", "estimate": e.to("bits")}]
    t = ranking_table(rows, "t")
    assert "*" in str(t.columns[4]._cells[0]) and "clipped at 0" in t.caption
    f = ranking_frame(rows)
    assert bool(f["ci_clipped"][0]) and f["ci_low"][0] == 0.0
    assert f["ci_low_unclipped"][0] == pytest.approx(-0.003 / np.log(2))


def test_ranking_table_marks_intervals_wholly_below_zero():
    from infometer.cli.demo import ranking_table

    e = make_estimate(
        -0.5, quantity="mutual_info", method="m", stderr=0.1, ci=(-0.7, -0.3), ci_level=0.95
    )
    assert e.ci == (-0.7, -0.3) and e.diagnostics["ci_below_zero"]
    assert "wholly below 0" in repr(e)
    t = ranking_table([{"feature": "f", "estimate": e}], "t")
    assert str(t.columns[4]._cells[0]).endswith("†") and "wholly below 0" in t.caption
