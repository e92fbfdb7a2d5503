"""The ground-floor shared services: validation, uncertainty, progress, plot convention."""

from __future__ import annotations

import doctest
import math

import numpy as np
import pytest

from infometer.core import plot, progress, uncertainty, validation


@pytest.mark.parametrize("module", [validation, uncertainty, progress])
def test_docstring_examples_run(module):
    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failures == 0


# ------------------------------------------------------------------- uncertainty
@pytest.mark.parametrize("k", [2, 3, 5, 30])
def test_replicate_interval_uses_t_with_k_minus_1_dof(k):
    from scipy import stats

    rng = np.random.default_rng(k)
    v = rng.normal(size=k)
    mean, se, (lo, hi) = uncertainty.replicate_summary(v, 0.95)
    assert mean == pytest.approx(v.mean(), abs=1e-12)
    assert se == pytest.approx(v.std(ddof=1) / math.sqrt(k), rel=1e-12)
    half = stats.t.ppf(0.975, k - 1) * se
    assert hi - mean == pytest.approx(half, rel=1e-10)
    assert mean - lo == pytest.approx(half, rel=1e-10)


def test_interval_from_stderr_normal_and_t():
    lo, hi = uncertainty.interval_from_stderr(2.0, 0.5, 0.9)
    assert hi - 2.0 == pytest.approx(1.6448536269514722 * 0.5, rel=1e-12)
    lo, hi = uncertainty.interval_from_stderr(0.0, 1.0, 0.95, dof=2)
    assert hi == pytest.approx(4.302652729911275, rel=1e-10)  # t_{0.975, 2}


@pytest.mark.parametrize("bad", [float("nan"), -1.0, float("inf")])
def test_interval_refuses_bad_stderr(bad):
    with pytest.raises(ValueError, match="stderr"):
        uncertainty.interval_from_stderr(0.0, bad, 0.95)


@pytest.mark.parametrize("level", [0, 1, 1.5, -0.1])
def test_interval_refuses_bad_level(level):
    with pytest.raises(ValueError, match="ci"):
        uncertainty.interval_from_stderr(0.0, 1.0, level)


def test_make_estimate_converts_and_refuses_interval_without_stderr():
    e = uncertainty.make_estimate(
        math.log(2), quantity="entropy", method="exact", unit="bits", stderr=0.0,
        ci=(math.log(2), math.log(2)), ci_level=0.95,
    )  # fmt: skip
    assert e.value == pytest.approx(1.0, abs=1e-15) and e.unit == "bits"
    assert e.ci == pytest.approx((1.0, 1.0), abs=1e-15)
    with pytest.raises(ValueError, match="standard error"):
        uncertainty.make_estimate(1.0, quantity="q", method="m", ci=(0, 2), ci_level=0.95)


# -------------------------------------------------------------------- validation
@pytest.mark.parametrize(
    "bad, exc",
    [
        ("0.5", TypeError),
        (["0.5", "0.5"], TypeError),
        ([True, False], TypeError),
        ([0.5 + 0j, 0.5], TypeError),
        ([0.5, float("nan")], ValueError),
        ([0.6, 0.6], ValueError),
        ([-0.5, 1.5], ValueError),
        ([], ValueError),
        (np.ma.masked_array([0.5, 0.5], mask=[1, 0]), ValueError),
    ],
)
def test_probability_vector_refuses(bad, exc):
    with pytest.raises(exc, match="prior"):
        validation.check_probability_vector(bad, "prior")


def test_probability_tolerance_does_not_grow_with_size():
    p = np.full(10**5, 1e-5)
    p[0] += 1e-8  # off by 1e-8 in total: above the 1e-9 tolerance
    with pytest.raises(ValueError, match="sums to"):
        validation.check_probability_vector(p, "p")
    q = np.full(10**5, 1e-5)
    assert validation.check_probability_vector(q, "p").sum() == pytest.approx(1.0, abs=1e-12)


def test_stochastic_matrix_names_the_bad_row():
    with pytest.raises(ValueError, match=r"channel slice \[1\]"):
        validation.check_stochastic_matrix([[0.5, 0.5], [0.5, 0.6]], "channel")
    cols = validation.check_stochastic_matrix([[0.5, 0.2], [0.5, 0.8]], "P", axis=0)
    assert np.allclose(cols.sum(axis=0), 1.0)


@pytest.mark.parametrize(
    "bad, match",
    [([0, 1, float("nan")], "missing"), ([0, 1.5], "integer"), ([0, 3], "outside"), ([-1], "out")],
)
def test_labels_refused(bad, match):
    with pytest.raises(ValueError, match=match):
        validation.check_labels(bad, "labels", n_classes=3)


@pytest.mark.parametrize("bad", ["yes", 1, 0, "False", [True]])
def test_check_bool_refuses_truthy_things(bad):
    with pytest.raises(TypeError, match="progress"):
        validation.check_bool(bad, "progress")


def test_budget_and_memory_guards_state_sizes():
    with pytest.raises(ValueError, match=r"1e\+12 permutations.*limit of 1e\+06; pass"):
        validation.check_budget(
            10**12, name="n_permutations", limit=10**6, what="permutations", override="pass x"
        )
    with pytest.raises(ValueError, match=r"7\.28 TiB.*limit of 8 GiB"):
        validation.check_memory(8e12, what="Fisher matrix", name="model")
    validation.check_budget(float("1e3"), name="n", limit=1e3, what="cells")
    with pytest.raises(ValueError):  # a NaN count is never within budget
        validation.check_budget(float("nan"), name="n", limit=1e3, what="cells")


def test_resolve_device():
    pytest.importorskip("torch")
    assert validation.resolve_device("cpu").type == "cpu"
    with pytest.raises(ValueError, match="device"):
        validation.resolve_device("tpu")
    with pytest.raises(TypeError, match="device"):
        validation.resolve_device(None)


def test_data_reexports_the_same_checks():
    from infometer.core import data, training

    assert data.check_int is validation.check_int
    assert training.check_device is validation.resolve_device


# ---------------------------------------------------------------------- progress
def test_progress_convention(monkeypatch):
    monkeypatch.delenv("INFOMETER_QUIET", raising=False)
    assert progress.show(True) is True
    assert progress.show(False) is False
    assert progress.show(None, expected_seconds=0.1) is False
    with progress.quiet():
        assert progress.show(True) is False
        assert (
            progress.progress_bar(total=3, desc="x", progress=True).__class__.__name__ == "_NoBar"
        )
    assert progress.show(True) is True
    monkeypatch.setenv("INFOMETER_QUIET", "1")
    assert progress.show(True) is False
    with pytest.raises(TypeError, match="progress"):
        progress.show("yes")


def test_progress_bar_draws_when_asked(capsys, monkeypatch):
    monkeypatch.delenv("INFOMETER_QUIET", raising=False)
    with progress.progress_bar(total=2, desc="steps", progress=True, leave=True) as bar:
        bar.update(2)
    assert "steps" in capsys.readouterr().err


# -------------------------------------------------------------------------- plot
def test_plot_convention(tmp_path):
    fig, ax = plot.new_axes(None, figsize=(3, 2))
    ax.plot([0, 1], [0, 1])
    out = plot.finish(ax, tmp_path / "sub" / "f.png")
    assert out is ax and (tmp_path / "sub" / "f.png").stat().st_size > 0
    assert plot.finish(ax) is ax
    import matplotlib.pyplot as plt

    plt.close(fig)


# ------------------------------------------------------------------- bias check (issue 35)
def test_bias_check_flag_rule_and_widening():
    from infometer.core.uncertainty import BIAS_FLOOR, BIAS_RELATIVE, bias_check, widen_by_bias

    # the case: 2.43 nats on independent halves, the check ~ the value: flagged
    diag, warns = bias_check(2.43, 2.40, method="shuffled_pairs", what="on shuffled pairs")
    assert diag["bias_check_large"] and len(warns) == 1 and "+2.4 nats" in warns[0]
    assert diag["bias_check_method"] == "shuffled_pairs" and diag["bias_check"] == 2.40
    # small next to the value (relative) or in nats (near 0): not flagged, no warning
    assert bias_check(5.0, 0.9 * BIAS_RELATIVE * 5.0, method="m", what="")[1] == []
    assert not bias_check(0.0, 0.9 * BIAS_FLOOR, method="m", what="")[0]["bias_check_large"]
    assert bias_check(0.0, 1.1 * BIAS_FLOOR, method="m", what="")[0]["bias_check_large"]
    # a non-finite check of a finite value is large; a NaN value has its own warnings
    assert bias_check(1.0, math.nan, method="m", what="")[0]["bias_check_large"]
    assert bias_check(math.nan, 5.0, method="m", what="")[1] == []
    assert widen_by_bias((1.0, 2.0), -0.5) == (0.5, 2.5)
    assert widen_by_bias((1.0, 2.0), None) == (1.0, 2.0)
    assert widen_by_bias((1.0, 2.0), math.nan) == (1.0, 2.0)


def test_training_scaled_to_the_data():
    from infometer.core.training import scaled_eval_every, scaled_width

    # a few hundred rows: evaluate every few dozen steps, narrow network; large data: caps
    assert scaled_eval_every(216, 250) == 27 and scaled_eval_every(10**6, 250) == 250
    assert scaled_eval_every(40, 250) == 25  # never more often than every 25 steps
    assert [scaled_width(n, 256) for n in (50, 216, 720, 3600)] == [32, 64, 128, 256]
    assert scaled_width(216, 256, smallest=128) == 128
    widths = [scaled_width(n, 256) for n in range(10, 20_000, 37)]
    assert widths == sorted(widths)  # more rows never give a narrower network


def test_small_networks_train_on_one_thread_and_threads_are_restored():
    torch = pytest.importorskip("torch")
    from infometer.core.training import SMALL_NETWORK, small_network_threads

    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        with small_network_threads(torch.nn.Linear(4, 4)) as k:
            assert k == 1 == torch.get_num_threads()
        assert torch.get_num_threads() == 2
        big = torch.nn.Linear(1, SMALL_NETWORK)  # SMALL_NETWORK weights + biases
        with small_network_threads(big) as k:
            assert k == 2  # a large network keeps the caller's threads
        with pytest.raises(RuntimeError):
            with small_network_threads(torch.nn.Linear(4, 4)):
                raise RuntimeError("inside")
        assert torch.get_num_threads() == 2  # restored after an error too
    finally:
        torch.set_num_threads(before)
