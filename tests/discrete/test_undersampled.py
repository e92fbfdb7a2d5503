"""Undersampled entropy and NSB robustness."""

import math
import warnings

import numpy as np
import pytest
from scipy.special import xlogy

import infometer as im
from infometer.estimators.discrete import kernels
from infometer.estimators.discrete.kernels import _nsb_moments

TRUE = math.log(1000)  # 6.908 nats


def _draws(seeds=10):
    return [np.random.default_rng(s).integers(0, 1000, 200) for s in range(seeds)]


def test_nsb_with_known_alphabet_within_015():
    # NSB's error on one draw has sd ~ 0.06 nats here (its posterior sd is ~0.1);
    # the mean over 10 draws must be within 0.15 nats of log(1000), and no draw off by > 0.3.
    vals = [im.entropy(x, method="nsb", alphabet_size=1000).value for x in _draws()]
    assert abs(np.mean(vals) - TRUE) < 0.15
    assert max(abs(v - TRUE) for v in vals) < 0.3


def test_chao_shen_within_03():
    # Chao-Shen's sd per draw is ~0.23 nats at n=200; its mean over 10 draws is within 0.3.
    vals = [im.entropy(x, method="chao_shen").value for x in _draws()]
    assert abs(np.mean(vals) - TRUE) < 0.3


def test_plugin_is_far_off_and_warns():
    # the reason the others exist: plug-in is > 1.5 nats low here
    with pytest.warns(im.InfometerWarning, match="undersampled"):
        e = im.entropy(_draws(1)[0], method="plugin")
    assert TRUE - e.value > 1.5
    assert "warnings" in e.diagnostics


def test_nsb_posterior_sd_is_the_stderr_and_gives_a_ci():
    x = _draws(1)[0]
    e = im.entropy(x, method="nsb", alphabet_size=1000, ci=0.95)
    assert e.stderr is not None and 0.01 < e.stderr < 0.5
    assert e.ci[0] == pytest.approx(e.value - 1.959964 * e.stderr, rel=1e-5)
    assert e.ci[0] < TRUE < e.ci[1]


def test_alphabet_estimated_by_chao1_when_not_given():
    e = im.entropy(_draws(1)[0], method="nsb")
    assert e.diagnostics["alphabet_size_estimated"] == "Chao1"
    assert 500 < e.diagnostics["alphabet_size"] < 2000  # Chao1 of this sample, true K = 1000
    assert e.params["alphabet_size"] is None  # re-running re-estimates it


@pytest.mark.parametrize("n", [10, 100, 10_000, 1_000_000])
@pytest.mark.parametrize("k", [2, 10, 1000, 100_000])
def test_nsb_never_nan_or_inf(n, k):
    rng = np.random.default_rng(n + k)
    for p in (None, "zipf"):
        if p is None:
            x = rng.integers(0, k, n)
        else:
            w = 1.0 / np.arange(1, k + 1) ** 1.1
            x = rng.choice(k, size=n, p=w / w.sum())
        c = np.bincount(x)
        h, sd, _ = kernels.nsb(c, k)
        assert math.isfinite(h) and math.isfinite(sd)
        assert 0 <= h <= math.log(k) + 1e-9
    # degenerate samples: one symbol only, and all-distinct
    for c in (np.array([n]), np.ones(min(n, k), int)):
        h, sd, _ = kernels.nsb(c, k)
        assert math.isfinite(h) and math.isfinite(sd)


def test_nsb_near_truth_when_well_sampled():
    rng = np.random.default_rng(0)
    p = rng.dirichlet(np.ones(20))
    x = rng.choice(20, size=200_000, p=p)
    h_true = float(-xlogy(p, p).sum())
    e = im.entropy(x, method="nsb", alphabet_size=20)
    # n = 2e5: sampling sd ~ 0.002 nats; the posterior sd must be of that order too
    assert e.value == pytest.approx(h_true, abs=0.01)
    assert 0.0005 < e.stderr < 0.01


def test_dirichlet_posterior_moments_match_monte_carlo():
    # E[H | n, alpha] and E[H^2 | n, alpha] (Wolpert-Wolf) against draws of the posterior
    rng = np.random.default_rng(5)
    k, alpha = 12, 0.7
    c = np.bincount(rng.integers(0, 8, 30), minlength=k)  # 4 bins unseen
    nz = c[c > 0]
    vals, mult = np.unique(nz, return_counts=True)
    _, mean, second = _nsb_moments(
        np.array([alpha]), vals.astype(float), mult.astype(float), float(k), float(c.sum())
    )
    draws = rng.dirichlet(c + alpha, size=200_000)
    h = -xlogy(draws, draws).sum(1)
    se = h.std() / math.sqrt(len(h))
    assert mean[0] == pytest.approx(h.mean(), abs=5 * se)
    var = second[0] - mean[0] ** 2
    assert var == pytest.approx(h.var(), rel=0.03)  # MC relative se of a variance ~ 0.3%


def test_nsb_matches_direct_quadrature():
    # independent check of the NSB integral with scipy.integrate.quad over log(alpha)
    from scipy import integrate, special

    c = np.bincount(np.random.default_rng(1).integers(0, 50, 60))
    c = c[c > 0].astype(float)
    k, n = 50.0, c.sum()

    def logw(xi):
        a = math.exp(xi)
        return (
            special.gammaln(k * a)
            - special.gammaln(n + k * a)
            + np.sum(special.gammaln(c + a) - special.gammaln(a))
            + math.log(k * special.polygamma(1, k * a + 1) - special.polygamma(1, a + 1))
            + xi
        )

    def mean(xi):
        a = math.exp(xi)
        big_a = n + k * a
        return (
            special.digamma(big_a + 1)
            - (
                np.sum((c + a) * special.digamma(c + a + 1))
                + (k - c.size) * a * special.digamma(a + 1)
            )
            / big_a
        )

    ref = logw(0.0)
    num = integrate.quad(lambda t: math.exp(logw(t) - ref) * mean(t), -15, 12, limit=400)[0]
    den = integrate.quad(lambda t: math.exp(logw(t) - ref), -15, 12, limit=400)[0]
    assert kernels.nsb(c, k)[0] == pytest.approx(num / den, abs=1e-4)


def test_shrinkage_lambda_and_grassberger_known_cases():
    # all counts equal -> target already matched -> H = log K whatever lambda
    assert kernels.shrinkage(np.full(10, 7), 10) == pytest.approx(math.log(10))
    # Grassberger with all counts 1: G(1) = psi(1) - 0.5*(psi(1) - psi(0.5)) = -gamma - log 2
    n = 50
    want = math.log(n) - (-0.5772156649015329 - math.log(2))
    assert kernels.grassberger(np.ones(n)) == pytest.approx(want, rel=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert kernels.chao_shen(np.ones(5)) > math.log(5)  # unseen mass is credited
