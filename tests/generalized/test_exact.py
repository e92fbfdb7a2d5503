"""Exact Rényi / Tsallis entropies and divergences of pmfs (issue 26 §1)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import infometer as im
from infometer.measures.generalized import (
    exponential_renyi_entropy,
    gaussian_renyi_entropy,
    renyi_to_tsallis,
    uniform_renyi_entropy,
)

P = np.array([0.5, 0.25, 0.125, 0.125, 0.0])


def test_renyi_special_orders_are_exact():
    H = im.exact.renyi_entropy
    assert H(P, 0).value == pytest.approx(math.log(4))  # support size, zero cell excluded
    assert H(P, 1).value == pytest.approx(im.exact.entropy(P).value, abs=1e-15)
    assert H(P, 2).value == pytest.approx(-math.log((P**2).sum()), abs=1e-15)
    assert H(P, math.inf).value == pytest.approx(-math.log(0.5), abs=1e-15)
    assert H(P, 0.5).value == pytest.approx(2 * math.log(np.sqrt(P).sum()), abs=1e-15)


def test_renyi_is_continuous_at_one_and_non_increasing():
    shannon = im.exact.entropy(P).value
    for eps in (1e-4, -1e-4):
        # dH/da at a = 1 is -Var(log p)/2 = O(1): within 1e-4 of Shannon at |a - 1| = 1e-4
        assert im.exact.renyi_entropy(P, 1 + eps).value == pytest.approx(shannon, abs=1e-4)
    orders = [0, 0.3, 0.7, 1, 1.5, 2, 5, 50, math.inf]
    vals = [im.exact.renyi_entropy(P, a).value for a in orders]
    assert np.all(np.diff(vals) <= 1e-12)


def test_tsallis_values():
    T = im.exact.tsallis_entropy
    assert T(P, 2).value == pytest.approx(1 - (P**2).sum(), abs=1e-15)
    assert T(P, 1).value == pytest.approx(im.exact.entropy(P).value, abs=1e-15)
    assert T(P, 3).value == pytest.approx((1 - (P**3).sum()) / 2, abs=1e-15)
    h = im.exact.renyi_entropy(P, 0.5).value
    assert T(P, 0.5).value == pytest.approx(renyi_to_tsallis(h, 0.5), abs=1e-13)


def test_renyi_divergence_orders():
    p, q = np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.5, 0.3])
    D = im.exact.renyi_divergence
    assert D(p, q, 1).value == pytest.approx(im.exact.kl_divergence(p, q).value, abs=1e-15)
    bhatt = -2 * math.log(np.sqrt(p * q).sum())  # a = 1/2: twice the Bhattacharyya distance
    assert D(p, q, 0.5).value == pytest.approx(bhatt, abs=1e-14)
    assert D(p, q, 2).value == pytest.approx(math.log((p**2 / q).sum()), abs=1e-14)
    assert D(p, q, math.inf).value == pytest.approx(math.log((p / q).max()), abs=1e-14)
    assert D(p, q, 0).value == pytest.approx(0.0, abs=1e-15)  # q covers supp(p)
    assert D([1, 0], [0.5, 0.5], 0).value == pytest.approx(math.log(2))
    assert D([0.5, 0.5], [1, 0], 2).value == math.inf


def test_jensen_divergences():
    J = im.exact.jensen_shannon_divergence
    assert J([1, 0], [0, 1]).value == pytest.approx(math.log(2))
    p, q = np.array([0.7, 0.2, 0.1]), np.array([0.1, 0.3, 0.6])
    m = (p + q) / 2
    kl = im.exact.kl_divergence
    truth = 0.5 * kl(p, m).value + 0.5 * kl(q, m).value  # the usual definition
    assert J(p, q).value == pytest.approx(truth, abs=1e-15)
    assert J(p, q).value == pytest.approx(J(q, p).value, abs=1e-15)
    assert im.exact.jensen_renyi_divergence(p, q, 1).value == pytest.approx(truth, abs=1e-15)
    jr = im.exact.jensen_renyi_divergence(p, q, 2).value
    h2 = im.exact.renyi_entropy
    assert jr == pytest.approx(h2(m, 2).value - (h2(p, 2).value + h2(q, 2).value) / 2)


def test_closed_forms():
    s2 = 2.5
    # the formula: 1/2 ln(2 pi s^2) + ln a / (2 (a - 1))
    for a in (0.5, 2.0, 3.0):
        want = 0.5 * math.log(2 * math.pi * s2) + math.log(a) / (2 * (a - 1))
        assert gaussian_renyi_entropy(s2, a) == pytest.approx(want, abs=1e-15)
    assert gaussian_renyi_entropy(s2, 1) == pytest.approx(0.5 * math.log(2 * math.pi * math.e * s2))
    assert gaussian_renyi_entropy(np.diag([1.0, 4.0]), 2) == pytest.approx(
        gaussian_renyi_entropy(1.0, 2) + gaussian_renyi_entropy(4.0, 2)
    )
    assert uniform_renyi_entropy(-1, 3, 7) == pytest.approx(math.log(4))
    assert exponential_renyi_entropy(2.0, 2) == pytest.approx(-math.log(2) + math.log(2))
    assert exponential_renyi_entropy(2.0, math.inf) == pytest.approx(-math.log(2))


@pytest.mark.parametrize("order", [-0.5, -1, math.nan, "2", None])
def test_bad_renyi_order(order):
    with pytest.raises((ValueError, TypeError), match="order"):
        im.exact.renyi_entropy(P, order)


@pytest.mark.parametrize("order", [0, -1, math.inf])
def test_bad_tsallis_index(order):
    with pytest.raises(ValueError, match="order"):
        im.exact.tsallis_entropy(P, order)


def test_bad_pmfs_are_named():
    with pytest.raises(ValueError, match="p"):
        im.exact.renyi_entropy([0.5, 0.6], 2)
    with pytest.raises(ValueError, match="q"):
        im.exact.renyi_divergence([0.5, 0.5], [0.5, 0.6], 2)
    with pytest.raises(ValueError, match="weights"):
        im.exact.jensen_shannon_divergence([0.5, 0.5], [1, 0], weights=[0.2, 0.2])
