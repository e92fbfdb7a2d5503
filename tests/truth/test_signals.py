"""Signal, generalised-entropy and channel tasks: each truth is met by its own estimators,
and the benchmark never scores a measure against another measure's truth."""

from __future__ import annotations

import math

import pytest

import infometer as im
from infometer.measures import truth
from infometer.workflows.bench import runner, suites


def _tasks():
    return truth.tasks("signals")


def test_suite_holds_every_signal_task():
    names = {t.name for t in suites.suite_tasks("signals")}
    assert names == {t.name for t in _tasks()} and len(names) == 16


@pytest.mark.parametrize("task", _tasks(), ids=lambda t: t.name)
def test_truth_is_met_by_its_estimators(task):
    # n = 20,000 and three seeds: the estimators' sd here is <= ~0.01 nats (block
    # spread of the permutation family, the plug-in's sqrt(Var/n)), and the finite-n biases
    # are <= 0.01 (log 6 - E[plug-in] ~ 5/(2n) for permutation entropy; the SVD entropy's
    # singular values at N = 2e4 differ from their limit by ~1/sqrt(N)); 0.03 nats is
    # 3 sd plus the bias.
    methods = task.methods or [m for m in im.methods(task.quantity)]
    for method in methods:
        if runner.applicable(task, method, 200) is not None:
            continue
        vals = []
        for seed in range(3):
            data = task.sample(20_000, seed=seed)
            vals.append(float(runner._estimate(task, data, method, seed)))
        mean = sum(vals) / 3
        assert math.isfinite(mean)
        assert mean == pytest.approx(task.truth, abs=0.03), (task.name, method, vals)


def test_a_measure_is_never_scored_against_another_measures_truth():
    task = truth.get_task("white-permutation-m3")
    assert runner.applicable(task, "permutation", 200) is None
    why = runner.applicable(task, "sample", 200)
    assert why is not None and "permutation" in why
