"""Rényi / Tsallis estimators from samples against exact values (issue 26 §1)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import infometer as im
from infometer.measures.generalized import (
    exponential_renyi_entropy,
    gaussian_renyi_entropy,
    renyi_to_tsallis,
)


def test_plugin_of_balanced_samples_is_exact():
    x = np.repeat([0, 1, 2, 3], [40, 20, 20, 20])
    p = np.array([0.4, 0.2, 0.2, 0.2])
    for a in (0, 0.5, 2, math.inf):
        assert im.renyi_entropy(x, order=a).value == pytest.approx(
            im.exact.renyi_entropy(p, a).value, abs=1e-14
        )
    assert im.tsallis_entropy(x, order=2).value == pytest.approx(1 - (p**2).sum(), abs=1e-14)


def test_entropy_routing_and_default_unchanged():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 5, 300)
    assert im.entropy(x, order=2).value == im.renyi_entropy(x, order=2).value
    assert im.entropy(x, order=2).quantity == "renyi_entropy"
    t = im.entropy(x, kind="tsallis", order=3)
    assert t.quantity == "tsallis_entropy" and t.value == im.tsallis_entropy(x, order=3).value
    # the default path is the Shannon estimator as before, bit for bit
    assert im.entropy(x).value == im.estimate("entropy", {"x": x}).value
    assert im.entropy(x, kind="shannon").value == im.entropy(x).value
    with pytest.raises(ValueError, match="order"):
        im.entropy(x, kind="renyi")
    with pytest.raises(ValueError, match="kind"):
        im.entropy(x, kind="havrda", order=2)


@pytest.mark.slow
def test_unbiased_power_sum_is_unbiased_where_plugin_is_not():
    # Tsallis-2 is linear in sum p^2, so the falling-factorial estimate is exactly
    # unbiased: over R = 4000 samples of n = 15 its mean is within 4 standard errors of
    # the truth, while the plug-in's bias (sum p(1-p)/n ~ 0.05 here) is > 10 se.
    rng = np.random.default_rng(1)
    p = np.array([0.4, 0.3, 0.2, 0.1])
    truth = 1 - (p**2).sum()
    R, n = 4000, 15
    # the replicates go through the kernels (the API call is checked once below)
    from infometer.measures.generalized.kernels import falling_power_sum, tsallis

    ub, pl = [], []
    for _ in range(R):
        c = np.bincount(rng.choice(4, size=n, p=p), minlength=4)
        ub.append(1 - falling_power_sum(c[c > 0], 2))
        pl.append(tsallis(c / n, 2.0))
    x = rng.choice(4, size=n, p=p)
    c = np.bincount(x)
    api = im.tsallis_entropy(x, order=2, method="unbiased").value
    assert api == pytest.approx(1 - (c * (c - 1)).sum() / (n * (n - 1)), abs=1e-15)
    se = np.std(ub) / np.sqrt(R)
    assert abs(np.mean(ub) - truth) < 4 * se
    assert truth - np.mean(pl) > 10 * se


# LPS kNN (k = 5) on N = 5000: over 8 seeds the sd is 0.01 (a = 0.5, 2), 0.025 (a = 3),
# 0.02 (exponential) and the bias <= 0.012; the tolerance 0.08 is > 3 sd + bias
@pytest.mark.parametrize("a", [0.5, 2.0, 3.0])
def test_lps_gaussian(a):
    x = np.random.default_rng(2).normal(0, 1.5, 5000)
    est = im.renyi_entropy(x, order=a)
    assert est.method == "lps"
    assert est.value == pytest.approx(gaussian_renyi_entropy(1.5**2, a), abs=0.08)


def test_lps_tsallis_and_shannon_limit_and_exponential():
    rng = np.random.default_rng(3)
    x = rng.normal(size=5000)
    t = im.tsallis_entropy(x, order=2).value
    assert t == pytest.approx(renyi_to_tsallis(gaussian_renyi_entropy(1.0, 2), 2), abs=0.05)
    h1 = im.renyi_entropy(x, order=1).value
    assert h1 == pytest.approx(gaussian_renyi_entropy(1.0, 1), abs=0.08)
    e = rng.exponential(0.5, 5000)
    assert im.renyi_entropy(e, order=2).value == pytest.approx(
        exponential_renyi_entropy(2.0, 2), abs=0.08
    )


def test_lps_multivariate_gaussian_and_scale():
    rng = np.random.default_rng(4)
    cov = np.array([[1.0, 0.6], [0.6, 2.0]])
    x = rng.multivariate_normal([0, 0], cov, 5000)
    assert im.renyi_entropy(x, order=2).value == pytest.approx(
        gaussian_renyi_entropy(cov, 2), abs=0.08
    )
    # H_a(cX) = H_a(X) + d log c, exactly (standardisation is an exact power of two)
    a = im.renyi_entropy(x, order=2).value
    b = im.renyi_entropy(x * 8.0, order=2).value
    assert b - a == pytest.approx(2 * math.log(8.0), abs=1e-9)


def test_ci_on_renyi_estimators():
    rng = np.random.default_rng(5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = im.renyi_entropy(rng.normal(size=400), order=2, ci=0.9)
        d = im.renyi_entropy(rng.integers(0, 4, 400), order=2, ci=0.9)
    assert e.ci[0] <= e.value <= e.ci[1] and d.ci[0] <= d.ci[1]


def test_divergences_from_samples():
    rng = np.random.default_rng(6)
    p, q = np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.5, 0.3])
    xp = rng.choice(3, 20000, p=p)
    xq = rng.choice(3, 20000, p=q)
    # plug-in from 2 x 20000 draws: the sd of each pmf cell is <= 0.0035, so the divergences
    # (smooth in the cells, derivatives <= 3) move by < 0.03
    assert im.renyi_divergence(xp, xq, order=2).value == pytest.approx(
        im.exact.renyi_divergence(p, q, 2).value, abs=0.03
    )
    assert im.jensen_shannon_divergence(xp, xq).value == pytest.approx(
        im.exact.jensen_shannon_divergence(p, q).value, abs=0.01
    )
    assert im.jensen_renyi_divergence(xp, xq, order=2).value == pytest.approx(
        im.exact.jensen_renyi_divergence(p, q, 2).value, abs=0.01
    )


def test_jsd_knn_two_gaussians():
    # JSD(N(0,1), N(1,1)) by quadrature on a fine grid (error < 1e-8)
    g = np.linspace(-12, 13, 200001)
    f = np.exp(-(g**2) / 2) / np.sqrt(2 * np.pi)
    h = np.exp(-((g - 1) ** 2) / 2) / np.sqrt(2 * np.pi)
    m = (f + h) / 2
    dx = g[1] - g[0]
    truth = 0.5 * np.sum(f * np.log(f / m)) * dx + 0.5 * np.sum(h * np.log(h / m)) * dx
    rng = np.random.default_rng(7)
    est = im.jensen_shannon_divergence(rng.normal(size=4000), rng.normal(1, 1, 4000))
    # three kNN entropies at N = 4000-8000: each ~0.01 sd, their combination < 0.03
    assert est.value == pytest.approx(truth, abs=0.03)


def test_renyi_mutual_info_definition():
    x = np.array([0, 1] * 50)
    for a in (0.5, 1.0, 2.0):
        # X = Y uniform binary: D_a(P_XY || P_X P_Y) = log 2 for every order
        assert im.renyi_mutual_info(x, x, order=a).value == pytest.approx(math.log(2))
    rng = np.random.default_rng(8)
    u = rng.integers(0, 3, 500)
    v = (u + rng.integers(0, 2, 500)) % 3
    assert im.renyi_mutual_info(u, v, order=1).value == pytest.approx(
        im.mutual_info(u, v, method="plugin").value, abs=1e-12
    )


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda x: im.renyi_entropy(x, order=-1), "order"),
        (lambda x: im.tsallis_entropy(x, order=0), "order"),
        (lambda x: im.tsallis_entropy(x, order=-2), "order"),
        (lambda x: im.renyi_entropy(x, order=2.5, method="unbiased"), "order"),
        (lambda x: im.renyi_entropy(x.astype(float), order=7, k=5), "order"),
        (lambda x: im.renyi_entropy(x.astype(float), order=math.inf), "order"),
        (lambda x: im.renyi_entropy(x.astype(float), order=2, k=0), "k"),
        (lambda x: im.renyi_entropy(x, order=2, method="lps"), "lps"),
    ],
)
def test_bad_input(call, match):
    x = np.random.default_rng(9).integers(0, 50, 100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises((ValueError, TypeError), match=match):
            call(x)


def test_divergences_share_one_alphabet_for_any_symbols():
    # string symbols with different sets, and integers with negative values, take the
    # aligned-codes path; small non-negative integers are counted directly: same answer
    p = ["a"] * 6 + ["b"] * 4
    q = ["b"] * 5 + ["c"] * 5
    want = im.exact.jensen_shannon_divergence([0.6, 0.4, 0.0], [0.0, 0.5, 0.5]).value
    assert im.jensen_shannon_divergence(p, q).value == pytest.approx(want, abs=1e-15)
    ints = {"a": 0, "b": 1, "c": 2}
    pi, qi = [ints[s] for s in p], [ints[s] for s in q]
    assert im.jensen_shannon_divergence(pi, qi).value == pytest.approx(want, abs=1e-15)
    neg = [v - 5 for v in pi], [v - 5 for v in qi]
    assert im.jensen_shannon_divergence(*neg).value == pytest.approx(want, abs=1e-15)
    assert im.renyi_divergence(qi, pi, order=0).value == pytest.approx(-math.log(0.4))


def test_knn_renyi_divergence_of_gaussians():
    # N(0,1) vs N(1,1): D_a = a (mu difference)^2 / 2.  N(0, I_2) vs N(0, 2.25 I_2):
    # D_a = -log(|S_a| / (|S_p|^(1-a) |S_q|^a)) / (2 (a - 1)), S_a = a S_q + (1 - a) S_p
    # (Gil, Alajaji & Linder 2013), at a = 1/2 log(1.625^2 / 2.25) = 0.160.  At
    # n = m = 4000, k = 5, over 6 seeds: 1-D sd 0.019, bias 0.002; 2-D sd 0.009, bias
    # +0.023 (the kNN estimator's finite-N bias); tolerance 0.04
    rng = np.random.default_rng(10)
    est = im.renyi_divergence(rng.normal(size=4000), rng.normal(1, 1, 4000), order=0.5)
    assert est.method == "poczos_schneider"
    assert est.value == pytest.approx(0.25, abs=0.04)
    x, y = rng.normal(size=(4000, 2)), rng.normal(size=(4000, 2)) * 1.5
    assert im.renyi_divergence(x, y, order=0.5).value == pytest.approx(
        math.log(1.625**2 / 2.25), abs=0.04
    )
    with pytest.raises(ValueError, match="order"):
        im.renyi_divergence(x, y, order=1.0)
