"""``k="auto"`` on transfer entropy: the target history chosen by the greedy (IDTxl) or
Ragwitz selection, against systems whose target history length is known."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import infometer as im
from infometer.measures.dynamics import simulate
from infometer.measures.timeseries._history import ragwitz_k

#: x -> y with y an AR(2) in its own past: y_t = 0.5 y_{t-1} + 0.3 y_{t-2} + 0.5 x_{t-1} + e
#: and x white noise, so y's own past is exactly two lags deep (x_{t-1} is independent of
#: it), while the source adds 0.5 x_{t-1}.
COEFS = np.zeros((2, 2, 2))
COEFS[0, 1, 1], COEFS[1, 1, 1], COEFS[0, 1, 0] = 0.5, 0.3, 0.5


def _var(n: int = 3000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    d = simulate.var(COEFS, n, seed=seed)
    return d[:, 0], d[:, 1]


def _te_truth(k: int) -> float:
    """I(y_{t+1}; x_t | y_t..y_{t-k+1}) from the exact stationary covariance."""
    items = [(1, 0), (0, 1)] + [(1, 1 + j) for j in range(k)]
    c = simulate.var_lagged_cov(COEFS, items)
    return simulate.gaussian_cond_mutual_info(c, [0], [1], list(range(2, 2 + k)))


def test_greedy_auto_k_finds_the_ar2_target_history():
    x, y = _var()
    est = im.transfer_entropy(x, y, k="auto", method="gaussian")
    assert est.params["k"] == 2 and est.diagnostics["chosen_k"] == 2
    assert est.diagnostics["chosen_lags"] == [1, 2]
    assert est.diagnostics["k_method"] == "greedy"
    assert est.diagnostics["k_selection_steps"][-1]["p_value"] > 0.05  # the stopping step
    # the same number as k=2 passed explicitly: the same embedding and estimator
    assert est.value == im.transfer_entropy(x, y, k=2, method="gaussian").value
    # and the closed form: sd of a Gaussian CMI of ~0.11 nats at n = 3000 is ~0.008
    assert _te_truth(2) == pytest.approx(0.5 * np.log(1 + 0.25), rel=1e-9)
    assert abs(est.value - _te_truth(2)) < 0.03
    # the history length matters: with one lag, the unexplained y_{t-1} part of y_{t+1}
    # dilutes the source's share (0.100 instead of 0.112 nats)
    assert _te_truth(1) < _te_truth(2) - 0.01


def test_auto_k_reruns_and_resamples_with_the_chosen_k():
    x, y = _var(n=1500, seed=1)
    est = im.transfer_entropy(x, y, k="auto", method="gaussian", ci=0.9, n_permutations=100)
    lo, hi = est.ci
    assert lo < est.value < hi
    data = {"source": x, "target": y}
    again = im.estimate("transfer_entropy", data, method=est.method, **est.params)
    assert again.value == est.value and again.params["k"] == est.params["k"]
    lv = im.transfer_entropy(x, y, k="auto", method="gaussian", local=True, n_permutations=100)
    assert lv.params["k"] == est.params["k"] and lv.diagnostics["chosen_k"] == est.params["k"]
    assert lv.mean == pytest.approx(est.value, abs=1e-11)
    assert lv.times[0] == est.params["k"]  # the first target sample with a full history


def test_greedy_auto_k_on_a_discrete_second_order_target():
    # y_t = y_{t-2} w.p. 0.8, else the source's x_{t-1}: y's past matters through y_{t-2}
    # only (the even and odd samples are independent chains), so the greedy set is [2]
    # and k = 2; TE(k=2) = h(0.9) - h(0.8)/2 nats (h the binary entropy)
    rng = np.random.default_rng(0)
    n = 3000
    x = rng.integers(0, 2, n)
    y = np.zeros(n, dtype=int)
    for t in range(2, n):
        y[t] = y[t - 2] if rng.random() < 0.8 else x[t - 1]
    # k_alpha 0.01: a spurious lag is let in with probability <= 1% per step
    est = im.transfer_entropy(x, y, k="auto", method="plugin", k_alpha=0.01, seed=3)
    assert est.diagnostics["chosen_lags"] == [2] and est.params["k"] == 2
    assert est.value == im.transfer_entropy(x, y, k=2, method="plugin").value

    def h(p: float) -> float:
        return -(p * np.log(p) + (1 - p) * np.log(1 - p))

    # plug-in bias ~ 4 / (2 n) = 7e-4, sd ~ 0.005 at n = 3000
    assert abs(est.value - (h(0.9) - 0.5 * h(0.8))) < 0.02
    # the source acts through x_{t-1} only: l = 1
    both = im.transfer_entropy(x, y, k="auto", l="auto", method="plugin", k_alpha=0.01, seed=3)
    assert both.diagnostics["source_lags"] == [1] and both.params["l"] == 1
    assert both.value == est.value


def test_ragwitz_auto_k_on_a_henon_target():
    n = 3000
    y = np.zeros(n)
    y[:2] = 0.1
    for t in range(2, n):
        y[t] = 1 - 1.4 * y[t - 1] ** 2 + 0.3 * y[t - 2]
    y = y[100:]
    x = np.random.default_rng(2).normal(size=y.size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the source carries nothing: TE ~ 0 may be < 0
        est = im.transfer_entropy(x, y, k="auto", k_method="ragwitz", max_lag=4, method="ksg1")
    assert est.params["k"] == ragwitz_k(y, max_lag=4)[0] == 2
    assert (
        est.diagnostics["chosen_lags"] == [1, 2] and len(est.diagnostics["prediction_errors"]) == 4
    )


def test_auto_k_errors_name_the_argument():
    x, y = _var(n=200)
    with pytest.raises(ValueError, match="tau=2"):
        im.transfer_entropy(x, y, k="auto", tau=2, method="gaussian")
    with pytest.raises(ValueError, match="k_method"):
        im.transfer_entropy(x, y, k="auto", k_method="nope", method="gaussian")
    with pytest.raises(ValueError, match="max_lag"):
        im.transfer_entropy(x, y, k="auto", max_lag=150, method="gaussian")
    with pytest.raises(ValueError, match="k_alpha"):
        im.transfer_entropy(x, y, k="auto", k_alpha=2.0, method="gaussian")
    with pytest.raises(TypeError, match="n_permutations"):
        im.transfer_entropy(x, y, k="auto", n_permutations="many", method="gaussian")
    with pytest.raises(TypeError, match="k must be a positive integer or 'auto', got 'two'"):
        im.transfer_entropy(x, y, k="two", method="gaussian")
    with pytest.raises(TypeError, match="l must be a positive integer or 'auto', got 'Auto'"):
        im.transfer_entropy(x, y, l="Auto", method="gaussian")
    # a CMI estimator's own alpha keeps its name (the selection's is k_alpha)
    assert "alpha" in im.registry.get("transfer_entropy", "matrix_renyi").params


def test_auto_l_finds_the_source_lags():
    # y_t = 0.5 y_{t-1} + 0.4 x_{t-1} + 0.4 x_{t-3} + e, x white: the source acts at lags
    # 1 and 3, so the greedy source set is {1, 3} and l = 3 (x_t, x_{t-1}, x_{t-2})
    a = np.zeros((3, 2, 2))
    a[0, 1, 1], a[0, 1, 0], a[2, 1, 0] = 0.5, 0.4, 0.4
    d = simulate.var(a, 3000, seed=3)
    x, y = d[:, 0], d[:, 1]
    est = im.transfer_entropy(x, y, k="auto", l="auto", method="gaussian")
    assert est.diagnostics["source_lags"] == [1, 3] and est.params["l"] == 3
    k = est.params["k"]
    explicit = im.transfer_entropy(x, y, k=k, l=3, method="gaussian")
    assert est.value == explicit.value
    items = [(1, 0)] + [(0, 1 + j) for j in range(3)] + [(1, 1 + j) for j in range(k)]
    c = simulate.var_lagged_cov(a, items)
    truth = simulate.gaussian_cond_mutual_info(c, [0], [1, 2, 3], list(range(4, 4 + k)))
    # sd of a Gaussian CMI of ~0.15 nats at n = 3000 is ~0.01: 3 sd
    assert abs(est.value - truth) < 0.03
    lv = im.transfer_entropy(x, y, k="auto", l="auto", method="gaussian", local=True)
    assert lv.params["l"] == 3 and lv.mean == pytest.approx(est.value, abs=1e-11)


def test_auto_l_of_an_independent_source_is_one_and_flagged():
    rng = np.random.default_rng(4)
    x, y = rng.normal(size=1500), rng.normal(size=1500)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TE ~ 0 may come out below 0
        est = im.transfer_entropy(x, y, l="auto", method="gaussian", n_permutations=100)
    assert est.params["l"] == 1 and est.diagnostics["no_significant_source_lag"] is True
    with pytest.raises(ValueError, match="tau=2"):
        im.transfer_entropy(x, y, l="auto", tau=2, method="gaussian")
    with pytest.raises(ValueError, match="max_lag"):
        im.transfer_entropy(x, y, l="auto", max_lag=800, method="gaussian")
    with pytest.raises(ValueError, match="one-column"):
        im.transfer_entropy(np.c_[x, y], y, l="auto", method="gaussian")
