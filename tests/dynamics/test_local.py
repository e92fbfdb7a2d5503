"""Local values average exactly to their estimators' values."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import infometer as im
from infometer.measures.dynamics import (
    local_cond_mutual_info,
    local_mutual_info,
    local_transfer_entropy,
)


def _cont(n=600, seed=0):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n)
    x = z + rng.normal(size=n)
    y = x + z + rng.normal(size=n)
    return x, y, z


def _disc(n=600, seed=0):
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 3, n)
    x = (z + (rng.random(n) < 0.3)) % 3
    y = (x + (rng.random(n) < 0.3)) % 3
    return x, y, z


@pytest.mark.parametrize(
    ("method", "data", "core"),
    [
        ("plugin", _disc, {}),
        ("gaussian", _cont, {"bias_correct": False}),
        ("ksg1", _cont, {"k": 4}),
    ],
)
def test_local_mi_and_cmi_average_to_the_estimate(method, data, core):
    x, y, z = data()
    kw = {"k": 4} if method == "ksg1" else {}
    lm = local_mutual_info(x, y, method=method, **kw)
    assert len(lm) == x.size
    assert lm.mean == pytest.approx(im.mutual_info(x, y, method=method, **core).value, abs=1e-10)
    lc = local_cond_mutual_info(x, y, z, method=method, **kw)
    ref = im.cond_mutual_info(x, y, z, method=method, **core).value
    assert lc.mean == pytest.approx(ref, abs=1e-10)
    assert lc.values.std() > 0  # genuinely pointwise, not the mean repeated


def test_local_plugin_mi_is_the_pointwise_log_ratio():
    # x = y uniform on 4 symbols: every local MI is log 4 exactly
    x = np.tile(np.arange(4), 25)
    np.testing.assert_allclose(local_mutual_info(x, x, method="plugin").values, np.log(4))
    # a rare co-occurrence is surprising: x=1,y=0 happens once in 4 rows
    x = np.array([0, 0, 1, 1])
    y = np.array([0, 0, 0, 1])
    v = local_mutual_info(x, y, method="plugin").values
    np.testing.assert_allclose(v, np.log([4 * 2 / (2 * 3), 4 * 2 / (2 * 3), 4 / (2 * 3), 4 / 2]))


def test_local_te_and_ais_average_to_te_and_ais():
    rng = np.random.default_rng(1)
    n = 800
    x = rng.normal(size=n)
    y = np.zeros(n)
    for t in range(1, n):
        y[t] = 0.5 * y[t - 1] + 0.6 * x[t - 1] + rng.normal()
    lt = local_transfer_entropy(x, y, k=2, method="gaussian")
    te = im.transfer_entropy(x, y, k=2, method="gaussian", bias_correct=False)
    assert lt.mean == pytest.approx(te.value, abs=1e-10)
    assert lt.times[0] == 2 and lt.times[-1] == n - 1
    lk = local_transfer_entropy(x, y, method="ksg1", cmi_k=4)
    assert lk.mean == pytest.approx(
        im.transfer_entropy(x, y, method="ksg1", cmi_k=4).value, abs=1e-10
    )
    la = im.active_info_storage(y, method="ksg1", local=True, k=2)
    ais = im.active_info_storage(y, method="ksg1", k=2)
    assert la.mean == pytest.approx(ais.value, abs=1e-10)
    assert la.diagnostics["lags"] == [1, 2]
    # local=True averages to the estimate of the same method and parameters: the default
    # (Wishart-corrected) Gaussian AIS, or the ML one with bias_correct=False
    bits = im.active_info_storage(y, method="gaussian", local=True, unit="bits")
    assert bits.unit == "bits"
    assert bits.estimate().to("nats").value == pytest.approx(
        im.active_info_storage(y, method="gaussian").value, abs=1e-10
    )
    ml = im.active_info_storage(y, method="gaussian", local=True, bias_correct=False)
    assert ml.mean == pytest.approx(
        im.active_info_storage(y, method="gaussian", bias_correct=False).value, abs=1e-10
    )
    # the named function keeps its ML default
    from infometer.measures.dynamics import local_active_info_storage

    assert local_active_info_storage(y, method="gaussian").mean == pytest.approx(ml.mean, abs=0)


def test_local_values_frame_and_plot(tmp_path):
    x, y, _ = _disc()
    lv = local_transfer_entropy(x, y, method="plugin")
    frame = lv.to_frame()
    assert list(frame.columns) == ["time", "local"] and len(frame) == len(lv)
    lv.plot(path=tmp_path / "local.png")
    assert (tmp_path / "local.png").stat().st_size > 1000


def test_unsupported_local_method_is_refused():
    x, y, _ = _cont()
    with pytest.raises(ValueError, match="available for methods"):
        local_mutual_info(x, y, method="histogram")
    with pytest.raises(ValueError, match="discrete data"):
        local_mutual_info(x, y, method="plugin")
    # the copula's discrete-variable models are class mixtures: no local values there
    with pytest.raises(ValueError, match="continuous variables only"):
        im.mutual_info(*_disc()[:2], method="gaussian_copula", local=True, discrete=True)


def test_local_copula_mi_is_the_gaussian_local_mi_of_the_normal_scores():
    # ground truth independent of the hook: the copula of (x, exp(y)) is the copula of
    # (x, y), and for Gaussian data the normal scores are close to the standardised data,
    # so the copula's local values match the Gaussian closed form pointwise up to the
    # rank transform's O(1/sqrt(n)) error (rho = 0.6, n = 20000)
    rng = np.random.default_rng(11)
    n, rho = 20_000, 0.6
    x = rng.normal(size=n)
    y = rho * x + np.sqrt(1 - rho**2) * rng.normal(size=n)
    lv = im.mutual_info(x, np.exp(y), method="gaussian_copula", local=True, bias_correct=False)
    exact = -0.5 * np.log(1 - rho**2) - (rho**2 * (x**2 + y**2) - 2 * rho * x * y) / (
        2 * (1 - rho**2)
    )
    assert np.sqrt(np.mean((lv.values - exact) ** 2)) < 0.03


# ---------------------------------------------------------------- local=True (issue 25)
# Each mean is compared with the ordinary estimate of the same method and parameters.
# Both are the same terms summed in a different order (or, for the Gaussian, the mean of
# the quadratic forms, d exactly up to rounding): the difference is float rounding,
# ~1e-16 per row times sqrt(n) rows, far below 1e-11.
ROUNDING = 1e-11

MI_CASES = [
    ("plugin", _disc, {}),
    ("gaussian", _cont, {}),
    ("gaussian", _cont, {"bias_correct": False}),
    ("ksg1", _cont, {"k": 4}),
    ("ksg1", _cont, {"k": 3, "theiler": 2}),
    ("ksg2", _cont, {"k": 5}),
    ("gaussian_copula", _cont, {}),
    ("gaussian_copula", _cont, {"bias_correct": False}),
]
CMI_CASES = [
    ("plugin", _disc, {}),
    ("gaussian", _cont, {}),
    ("gaussian", _cont, {"bias_correct": False}),
    ("frenzel_pompe", _cont, {"k": 4}),
    ("ksg1", _cont, {"k": 3, "theiler": 1}),
    ("gaussian_copula", _cont, {}),
]


@pytest.mark.parametrize(("method", "data", "params"), MI_CASES)
def test_mutual_info_local_true_averages_to_the_same_estimate(method, data, params):
    x, y, _ = data()
    lv = im.mutual_info(x, y, method=method, local=True, **params)
    est = im.mutual_info(x, y, method=method, **params)
    assert isinstance(lv, im.LocalValues) and len(lv) == x.size and lv.times is None
    assert lv.quantity == "mutual_info" and lv.method == method
    assert lv.mean == pytest.approx(est.value, abs=ROUNDING)
    assert lv.values.std() > 0
    # the recorded parameters re-run to the same values
    again = im.mutual_info(
        x, y, method=method, local=True, **{p: v for p, v in lv.params.items() if p != "seed"}
    )
    np.testing.assert_array_equal(again.values, lv.values)


@pytest.mark.parametrize(("method", "data", "params"), CMI_CASES)
def test_cond_mutual_info_local_true_averages_to_the_same_estimate(method, data, params):
    x, y, z = data()
    lv = im.cond_mutual_info(x, y, z, method=method, local=True, **params)
    est = im.cond_mutual_info(x, y, z, method=method, **params)
    assert lv.quantity == "cond_mutual_info" and len(lv) == x.size
    assert lv.mean == pytest.approx(est.value, abs=ROUNDING)


def _var(n=1500, seed=2):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    y = np.zeros(n)
    for t in range(1, n):
        y[t] = 0.5 * y[t - 1] + 0.6 * x[t - 1] + rng.normal()
    return x, y, rng.normal(size=n)


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("gaussian", {"k": 2}),
        ("gaussian", {"bias_correct": False, "l": 2, "delay": 2}),
        ("ksg1", {"cmi_k": 4, "theiler": 2}),
        ("frenzel_pompe", {"k": 2, "tau": 2}),
    ],
)
def test_transfer_entropy_local_true_averages_to_the_same_estimate(method, params):
    x, y, z = _var()
    lv = im.transfer_entropy(x, y, method=method, local=True, **params)
    assert lv.mean == pytest.approx(
        im.transfer_entropy(x, y, method=method, **params).value, abs=ROUNDING
    )
    assert lv.quantity == "transfer_entropy" and lv.diagnostics["embedded_rows"] == len(lv)
    lc = im.transfer_entropy(x, y, z, method=method, local=True, m=2, **params)
    ref = im.transfer_entropy(x, y, z, method=method, m=2, **params)
    assert lc.mean == pytest.approx(ref.value, abs=ROUNDING)


def test_discrete_transfer_entropy_local_with_trials():
    x, y, _ = _disc(n=900)
    y = np.roll(x, 1)
    lv = im.transfer_entropy(x, y, method="plugin", local=True, k=2, trials=3)
    ref = im.transfer_entropy(x, y, method="plugin", k=2, trials=3)
    assert lv.mean == pytest.approx(ref.value, abs=ROUNDING)
    # three trials of 300: the first predicted sample of each is index 2 of the trial
    # (k = 2 target lags), the last index 299; no row spans a boundary
    assert len(lv) == 3 * 298
    assert lv.times[0] == 2 and lv.times[297] == 299 and lv.times[298] == 302
    assert lv.times[-1] == 899


def test_local_gaussian_mi_is_the_true_pointwise_information():
    # standard bivariate normal with correlation rho: the local MI is
    # -1/2 log(1-rho^2) - (rho^2 x^2 - 2 rho x y + rho^2 y^2) / (2 (1 - rho^2))
    rho, n = 0.6, 20000
    rng = np.random.default_rng(0)
    x = rng.normal(size=n)
    y = rho * x + np.sqrt(1 - rho**2) * rng.normal(size=n)
    truth = -0.5 * np.log(1 - rho**2) - (rho**2 * (x**2 + y**2) - 2 * rho * x * y) / (
        2 * (1 - rho**2)
    )
    lv = im.mutual_info(x, y, method="gaussian", local=True)
    # the fit estimates 5 moments, each to ~1/sqrt(n); the local value's derivative in
    # each is O(1-2) at typical points: rms error ~ sqrt(5 * 4 / n) = 0.03 at most
    # (0.007-0.013 over seeds 0-2)
    assert np.sqrt(np.mean((lv.values - truth) ** 2)) < 0.03


def test_local_gaussian_te_is_the_true_pointwise_transfer():
    # y_{t+1} = a y_t + b x_t + e, x iid N(0,1) independent of y_t: the local TE is
    # log N(y_{t+1}; a y_t + b x_t, 1) - log N(y_{t+1}; a y_t, b^2 + 1)
    a, b, n = 0.5, 0.6, 20000
    rng = np.random.default_rng(1)
    x = rng.normal(size=n)
    y = np.zeros(n)
    for t in range(1, n):
        y[t] = a * y[t - 1] + b * x[t - 1] + rng.normal()
    lv = im.transfer_entropy(x, y, method="gaussian", local=True)
    t = lv.times - 1
    fut = y[t + 1]
    s2 = b**2 + 1
    truth = (
        -0.5 * (fut - a * y[t] - b * x[t]) ** 2
        + 0.5 * np.log(s2)
        + 0.5 * (fut - a * y[t]) ** 2 / s2
    )
    # as above: a few fitted moments, each to ~1/sqrt(n), O(1) derivatives
    assert np.sqrt(np.mean((lv.values - truth) ** 2)) < 0.03
    assert lv.mean == pytest.approx(0.5 * np.log(s2), abs=0.02)  # sd ~ 0.006 at n = 2e4


def test_local_plugin_cmi_is_the_pointwise_count_ratio():
    # z = (0,0,0,0,1,1), x = (0,0,1,1,0,1), y = x: i = log[c(xyz) c(z) / (c(xz) c(yz))]
    x = np.array([0, 0, 1, 1, 0, 1])
    z = np.array([0, 0, 0, 0, 1, 1])
    v = im.cond_mutual_info(x, x, z, method="plugin", local=True).values
    np.testing.assert_allclose(v, np.log([4 / 2] * 4 + [2 / 1] * 2))
    # entropy too: the plug-in hook serves every quantity the estimator does
    h = im.estimate("entropy", {"x": x}, method="plugin", local=True)
    np.testing.assert_allclose(h.values, -np.log([3 / 6] * 6))


def test_local_values_units():
    x, y, _ = _disc()
    nats = im.mutual_info(x, y, method="plugin", local=True)
    bits = im.mutual_info(x, y, method="plugin", local=True, unit="bits")
    np.testing.assert_allclose(bits.values, nats.values / np.log(2), rtol=1e-14)
    b3 = im.mutual_info(x, y, method="plugin", local=True, base=3)
    assert b3.unit == "base-3"
    assert b3.estimate().to("nats").value == pytest.approx(nats.mean, rel=1e-13)


def test_local_true_errors_name_the_argument():
    x, y, z = _cont()
    with pytest.raises(ValueError, match=r"method 'histogram' has no local values.*'ksg1'"):
        im.mutual_info(x, y, method="histogram", local=True)
    with pytest.raises(ValueError, match=r"'miller_madow'.*'frenzel_pompe'"):
        im.cond_mutual_info(*_disc(), method="miller_madow", local=True)
    with pytest.raises(ValueError, match=r"'ordinal' has no local values"):
        im.transfer_entropy(x, y, method="ordinal", local=True)
    # auto picks GKOV for tied floats: no local values, and the error says auto chose it
    tied = np.round(x)
    with pytest.raises(ValueError, match=r"'gkov'.*method='auto' chose it"):
        im.mutual_info(tied, tied + y, local=True)
    with pytest.raises(ValueError, match="no method of kl_divergence has local values"):
        im.estimate("kl_divergence", {"p": x, "q": y}, method="wkv", local=True, paired=False)
    with pytest.raises(ValueError, match="ci=0.95 with local=True"):
        im.mutual_info(x, y, local=True, ci=0.95)
    with pytest.raises(TypeError, match="local"):
        im.mutual_info(x, y, local="yes")
    with pytest.raises(TypeError, match="no parameter 'k'"):
        im.mutual_info(x, y, method="gaussian", local=True, k=3)
    with pytest.raises(ValueError, match="x is discrete.*accept this data: .*plugin$"):
        im.mutual_info(*_disc()[:2], method="ksg1", local=True, discrete=True)


def test_local_methods_table_matches_the_registry():
    from infometer.core.api import local_methods
    from infometer.measures.dynamics.local import LOCAL_METHODS

    for q, names in LOCAL_METHODS.items():
        assert tuple(local_methods(q)) == names
    assert set(local_methods("transfer_entropy")) >= {"plugin", "gaussian", "ksg1"}
    assert "ordinal" not in local_methods("transfer_entropy")
    from infometer.measures import dynamics

    assert dynamics.LocalValues is im.LocalValues


def _every_local_spec():
    from infometer.core import registry
    from infometer.core.api import local_methods

    out = []
    for q in ("entropy", "mutual_info", "cond_mutual_info", "transfer_entropy"):
        out += [registry.get(q, name) for name in local_methods(q)]
    out += [registry.get("active_info_storage", m) for m in local_methods("active_info_storage")]
    return out


@pytest.mark.parametrize("spec", _every_local_spec(), ids=lambda s: f"{s.quantity}-{s.name}")
def test_every_local_values_hook_averages_to_its_estimator(spec):
    # every estimator that exposes local values, whatever the quantity: the mean of the
    # hook's values is the estimator's own value (same variables, same parameters)
    continuous = "continuous" in spec.kinds
    x, y, z = (_cont if continuous else _disc)(n=300, seed=5)
    roles = {
        "entropy": {"x": x},
        "mutual_info": {"x": x, "y": y},
        "cond_mutual_info": {"x": x, "y": y, "z": z},
        "transfer_entropy": {"source": x, "target": y},
        "active_info_storage": {"x": y},
    }[spec.quantity]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lv = im.estimate(spec.quantity, roles, method=spec.name, local=True)
        est = im.estimate(spec.quantity, roles, method=spec.name)
    assert lv.mean == pytest.approx(est.value, abs=ROUNDING)


def test_local_ais_with_auto_history_uses_the_chosen_lags():
    x = simulate_ar2()
    est = im.active_info_storage(x, k="auto", method="gaussian", n_permutations=100)
    lv = im.active_info_storage(x, k="auto", method="gaussian", n_permutations=100, local=True)
    assert lv.diagnostics["chosen_lags"] == est.diagnostics["chosen_lags"] == [1, 2]
    assert lv.params["lags"] == [1, 2] and lv.mean == pytest.approx(est.value, abs=ROUNDING)
    assert lv.times[0] == 2


def simulate_ar2(n=2000, seed=6):
    from infometer.measures.dynamics import simulate

    a = np.zeros((2, 1, 1))
    a[:, 0, 0] = [0.5, 0.3]
    return simulate.var(a, n, seed=seed)[:, 0]


def test_local_values_of_constant_and_degenerate_inputs():
    x, y, z = _cont()
    const = np.ones_like(x)
    for method in ("gaussian", "ksg1"):
        with pytest.warns(im.InfometerWarning, match="exactly 0"):
            lv = im.mutual_info(const, y, method=method, local=True)
        np.testing.assert_array_equal(lv.values, 0.0)
        assert lv.diagnostics["warnings"]
    # a constant z leaves I(X;Y): the local values are those of the MI, as the estimate is
    with pytest.warns(im.InfometerWarning, match="constant"):
        lc = im.cond_mutual_info(x, y, const, method="gaussian", local=True)
    assert lc.mean == pytest.approx(im.mutual_info(x, y, method="gaussian").value, abs=ROUNDING)
    # y = 2x: the Gaussian MI is infinite, and so is no local value: a clear error
    with pytest.raises(ValueError, match="singular.*local Gaussian values are undefined"):
        im.mutual_info(x, 2 * x, method="gaussian", local=True)
    # tied floats get the kNN family's seeded jitter and its warning, in the user's names
    with pytest.warns(im.InfometerWarning, match="tied values"):
        lt = im.mutual_info(np.round(x, 1), y, method="ksg1", local=True)
    ref = im.mutual_info(np.round(x, 1), y, method="ksg1")
    assert lt.mean == pytest.approx(ref.value, abs=ROUNDING)
