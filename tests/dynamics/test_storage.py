"""AIS and entropy rate against closed forms (Gaussian AR processes, Markov chains)."""

from __future__ import annotations

import numpy as np
import pytest

import infometer as im
from infometer.measures.dynamics import simulate
from infometer.measures.dynamics.storage import ragwitz_k
from tests._tol import tol


def ar(coefs: list[float], n: int, seed: int) -> np.ndarray:
    a = np.zeros((len(coefs), 1, 1))
    a[:, 0, 0] = coefs
    return simulate.var(a, n, seed=seed)[:, 0]


def ais_truth(coefs: list[float], lags: list[int]) -> float:
    """I(x_t; x_{t-l}, l in lags) from the exact stationary covariance."""
    a = np.zeros((len(coefs), 1, 1))
    a[:, 0, 0] = coefs
    items = [(0, 0)] + [(0, lag) for lag in lags]
    c = simulate.var_lagged_cov(a, items)
    return simulate.gaussian_cond_mutual_info(c, [0], list(range(1, len(items))), [])


@pytest.mark.parametrize("phi", [0.3, 0.8])
def test_ais_of_gaussian_ar1_is_the_closed_form(phi):
    x = ar([phi], 20000, seed=1)
    est = im.active_info_storage(x, method="gaussian")
    truth = -0.5 * np.log(1 - phi**2)
    assert ais_truth([phi], [1]) == pytest.approx(truth, rel=1e-10)
    # sd of the Gaussian MI of correlation r at n rows is about r/sqrt(n) (delta method),
    # inflated by the AR autocorrelation ((1+phi^2)/(1-phi^2) at most ~4.6 here): 5 sd
    sd = phi / np.sqrt(20000) * np.sqrt((1 + phi**2) / (1 - phi**2))
    assert abs(est.value - truth) < tol(5 * sd, 1e-3)
    assert est.diagnostics["lags"] == [1]
    assert est.quantity == "active_info_storage"


def test_ais_of_ar2_needs_two_lags():
    coefs = [0.5, 0.3]
    x = ar(coefs, 20000, seed=2)
    for lags in ([1], [1, 2], [1, 2, 3]):
        truth = ais_truth(coefs, lags)
        est = im.active_info_storage(x, lags=lags, method="gaussian")
        assert abs(est.value - truth) < 0.03  # sd ~ 0.006 at n = 2e4
    # an AR(2) is fully stored in two lags: a third adds exactly nothing
    assert ais_truth(coefs, [1, 2, 3]) == pytest.approx(ais_truth(coefs, [1, 2]), abs=1e-10)
    assert ais_truth(coefs, [1, 2]) > ais_truth(coefs, [1]) + 0.03


def test_ais_knn_agrees_with_the_closed_form():
    x = ar([0.7], 4000, seed=3)
    est = im.active_info_storage(x, method="ksg1")
    # KSG at n = 4000 in 2-D: bias and sd both ~0.01 nats
    assert abs(est.value - (-0.5 * np.log(1 - 0.49))) < 0.05


def test_greedy_embedding_finds_the_non_uniform_lags():
    # x_t = 0.45 x_{t-1} + 0.4 x_{t-3} + e: lags 1 and 3 matter, lag 2 adds nothing given them
    x = ar([0.45, 0.0, 0.4], 3000, seed=4)
    est = im.active_info_storage(x, k="auto", max_lag=5, method="gaussian", n_permutations=100)
    assert est.diagnostics["chosen_lags"] == [1, 3]
    assert est.params["lags"] == [1, 3]
    assert abs(est.value - ais_truth([0.45, 0.0, 0.4], [1, 3])) < 0.05
    steps = est.diagnostics["selection_steps"]
    assert steps[-1]["p_value"] > 0.05  # the step that stopped the selection
    # a re-run with the recorded parameters uses the chosen lags
    again = im.estimate("active_info_storage", {"x": x}, method="gaussian", **est.params)
    assert again.value == est.value


def test_greedy_embedding_of_white_noise_selects_nothing():
    x = np.random.default_rng(5).normal(size=1500)
    est = im.active_info_storage(x, k="auto", method="gaussian", n_permutations=100, seed=1)
    assert est.diagnostics.get("no_significant_lag") is True


def test_ragwitz_picks_two_lags_for_the_henon_map():
    n = 3000
    x = np.zeros(n)
    x[:2] = 0.1
    for t in range(2, n):
        x[t] = 1 - 1.4 * x[t - 1] ** 2 + 0.3 * x[t - 2]
    k, errs = ragwitz_k(x[100:], max_lag=4)
    assert k == 2  # x_t is a function of (x_{t-1}, x_{t-2}): prediction error ~0 from k = 2
    assert errs[1] < 0.1 * errs[0]
    est = im.active_info_storage(x[100:], k="auto", k_method="ragwitz", max_lag=4, method="ksg1")
    assert est.diagnostics["chosen_lags"] == [1, 2]


def test_entropy_rate_of_a_markov_chain_is_exact():
    p = np.array([[0.9, 0.05, 0.05], [0.1, 0.6, 0.3], [0.3, 0.3, 0.4]])
    x = simulate.markov_chain(p, 30000, seed=6)
    truth = simulate.markov_entropy_rate(p)
    est = im.entropy_rate(x, method="plugin")
    # plug-in bias ~ (K(K-1))/(2n) = 1e-4; sd ~ 0.005 at n = 3e4 for this chain
    assert abs(est.value - truth) < 0.02
    # a first-order chain: a longer history changes nothing (beyond estimation error)
    assert abs(im.entropy_rate(x, k=2, method="plugin").value - truth) < 0.02


def test_entropy_rate_of_gaussian_ar1_is_the_innovation_entropy():
    x = ar([0.6], 20000, seed=7) * 2.0  # innovations of sd 2
    est = im.entropy_rate(x, method="gaussian")
    assert abs(est.value - 0.5 * np.log(2 * np.pi * np.e * 4.0)) < 0.03


def test_entropy_rate_with_ci_resamples_embedded_rows():
    x = simulate.markov_chain(np.array([[0.8, 0.2], [0.4, 0.6]]), 4000, seed=8)
    est = im.entropy_rate(x, method="plugin", ci=0.9)
    lo, hi = est.ci
    assert lo < est.value < hi
    truth = simulate.markov_entropy_rate(np.array([[0.8, 0.2], [0.4, 0.6]]))
    assert abs(est.value - truth) < 0.03


def test_history_parameters_are_checked():
    x = np.random.default_rng(0).normal(size=100)
    with pytest.raises(ValueError, match="max_lag"):
        im.active_info_storage(x, k="auto", max_lag=60, method="gaussian")
    with pytest.raises(ValueError, match="k_method"):
        im.active_info_storage(x, k="auto", k_method="nope", method="gaussian")
    with pytest.raises(TypeError, match="k must be an integer"):
        im.active_info_storage(x, k=1.5, method="gaussian")
    with pytest.raises(ValueError, match="too few"):
        im.active_info_storage(x[:12], k=5, method="gaussian")
