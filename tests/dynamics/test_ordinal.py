"""Ordinal (symbolic) transfer entropy against exact pattern probabilities."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import infometer as im
from infometer.measures.dynamics.ordinal import ordinal_patterns


def test_patterns_are_the_rankings_of_the_windows():
    x = np.array([3.0, 1.0, 2.0, 5.0, 4.0])
    codes = ordinal_patterns(x, 3)
    assert codes.shape == (3,)
    # all 6 rankings of 3 values get 6 distinct codes in 0..5
    perms = [np.array(p, dtype=float) for p in itertools.permutations([1, 2, 3])]
    allc = [int(ordinal_patterns(p[::-1], 3)[0]) for p in perms]
    assert sorted(allc) == list(range(6))
    # invariant under a strictly increasing map
    np.testing.assert_array_equal(ordinal_patterns(np.exp(x), 3), codes)


def test_ordinal_te_of_a_copy_is_the_pattern_entropy_rate():
    # y_t = x_{t-1}, x i.i.d.: with order 2 the target's next pattern is the source's
    # current pattern, so TE = H(s_t | s_{t-1}) of i.i.d. up/down patterns = h_b(1/3):
    # P(up, up) = P(x1 < x2 < x3) = 1/6 and P(up) = 1/2 give P(up | up) = 1/3
    rng = np.random.default_rng(0)
    x = rng.normal(size=20001)
    y = np.roll(x, 1)
    te = im.transfer_entropy(x[1:], y[1:], method="ordinal", order=2)
    hb = -(1 / 3 * np.log(1 / 3) + 2 / 3 * np.log(2 / 3))
    # plug-in on 8 cells at n = 2e4: bias ~ 4/n, sd ~ 0.005
    assert abs(te.value - hb) < 0.02
    back = im.transfer_entropy(y[1:], x[1:], method="ordinal", order=2)
    assert back.value < 0.1 * te.value
    assert te.diagnostics["alphabet"] == 2


def test_ordinal_te_is_rank_invariant_and_resamples():
    rng = np.random.default_rng(1)
    x = rng.normal(size=1500)
    y = np.zeros(1500)
    for t in range(1, 1500):
        y[t] = 0.3 * y[t - 1] + 0.8 * x[t - 1] + 0.3 * rng.normal()
    a = im.transfer_entropy(x, y, method="ordinal", order=3)
    b = im.transfer_entropy(np.exp(x), y**3, method="ordinal", order=3)
    assert a.value == b.value
    c = im.transfer_entropy(x, y, method="ordinal", order=3, ci=0.9, seed=0)
    assert c.ci[0] < c.value < c.ci[1]


def test_ordinal_order_is_checked():
    x = np.random.default_rng(2).normal(size=100)
    with pytest.raises(ValueError, match="order must be <= 8"):
        im.transfer_entropy(x, x, method="ordinal", order=9)
    with pytest.raises(ValueError, match="patterns per trial"):
        im.transfer_entropy(x[:20], x[:20], method="ordinal", order=6, pattern_delay=2)
