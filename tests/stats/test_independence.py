"""Permutation tests: calibration under H0, power, schemes, multiple-testing corrections."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import infometer as im
from infometer.core import registry
from infometer.core.data import as_variables
from infometer.measures.stats import block_permutation, local_permutation, multipletests

# Under H0 the rejection rate of 100 tests at alpha = 0.05 is Binomial(100, 0.05)
# (sd 0.022): the window [0.01, 0.11] is about ±2.7 sd.
LOW, HIGH = 0.01, 0.11


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", im.InfometerWarning)
        yield


def test_mi_permutation_calibrated_and_powerful():
    rng = np.random.default_rng(0)
    rej = 0
    for r in range(100):
        x, y = rng.normal(size=200), rng.normal(size=200)
        rej += im.independence_test(x, y, method="gaussian", n_permutations=99, seed=r).rejects()
    assert LOW <= rej / 100 <= HIGH
    x = rng.normal(size=200)
    res = im.independence_test(x, x + rng.normal(size=200), method="gaussian", n_permutations=99)
    assert res.p_value == pytest.approx(1 / 100)  # the +1 correction: never 0


def _strong_z(rng, n):
    z = rng.normal(size=n)
    return z + 0.5 * rng.normal(size=n), z + 0.5 * rng.normal(size=n), z


@pytest.mark.slow
def test_cmi_local_permutation_calibrated_with_strong_z():
    """X ⟂ Y | Z with Z driving both.  The histogram CMI is biased upwards here (Z-bins
    leave X–Y dependence through Z), which a plain permutation cannot reproduce; the
    local conditional permutation keeps it in the null."""
    rng = np.random.default_rng(1)
    n, rej = 300, 0
    for r in range(100):
        x, y, z = _strong_z(rng, n)
        rej += im.independence_test(
            x, y, z, method="histogram", bins=4, n_permutations=99, seed=r
        ).rejects()
    assert LOW <= rej / 100 <= HIGH


def test_plain_permutation_would_fail_there():
    """The same data with an unconditional permutation of x: far too many rejections."""
    rng = np.random.default_rng(2)
    spec = registry.get("cond_mutual_info", "histogram")
    n, rej = 300, 0
    for _ in range(20):
        vs = as_variables(dict(zip("xyz", _strong_z(rng, n), strict=True)))
        obs = spec.func(*vs.values(), bins=4).value
        null = [
            spec.func(vs["x"].select(rng.permutation(n)), vs["y"], vs["z"], bins=4).value
            for _ in range(99)
        ]
        rej += (1 + np.sum(np.asarray(null) >= obs)) / 100 <= 0.05
    assert rej / 20 > 0.3


@pytest.mark.slow
def test_knn_cmi_local_permutation_calibrated_with_nonlinear_z():
    """The usual case: KSG CMI, X = sin(2Z) + ε, Y = Z² + ε′ (n = 200, B = 49, so a
    calibrated test rejects at exactly 0.04).  Measured: local permutation 0.03; a plain
    permutation of x 0.37 (30 repetitions), checked here on 20."""
    rng = np.random.default_rng(11)
    spec = registry.get("cond_mutual_info", "ksg1")
    n, rej, plain = 200, 0, 0
    for r in range(100):
        z = rng.normal(size=n)
        x, y = np.sin(2 * z) + 0.3 * rng.normal(size=n), z**2 + 0.3 * rng.normal(size=n)
        res = im.independence_test(x, y, z, method="ksg1", n_permutations=49, seed=r)
        rej += res.rejects()
        if r < 20:
            vs = as_variables({"x": x, "y": y, "z": z})
            null = [
                spec.func(vs["x"].select(rng.permutation(n)), vs["y"], vs["z"]).value
                for _ in range(49)
            ]
            plain += (1 + np.sum(np.asarray(null) >= res.statistic.value)) / 50 <= 0.05
    assert LOW <= rej / 100 <= HIGH
    assert plain / 20 > 0.15


def test_cmi_power_and_discrete_strata():
    rng = np.random.default_rng(3)
    z = rng.integers(0, 3, size=300)
    x = z + rng.normal(size=300)
    y = x + z + rng.normal(size=300)  # X -> Y beyond Z
    res = im.independence_test(x, y, z, method="gkov", n_permutations=19)
    assert "strata" in res.scheme
    assert res.p_value == pytest.approx(1 / 20)
    # within-strata permutation keeps every row's z: each permuted x comes from its stratum
    codes = as_variables({"z": z})["z"].codes
    from infometer.measures.stats.nulls import strata_permutation as _strata_permutation

    perm = _strata_permutation(np.random.default_rng(0), codes)
    assert np.array_equal(codes[perm], codes) and np.array_equal(np.sort(perm), np.arange(300))


@pytest.mark.slow
def test_block_permutation_for_autocorrelated_series():
    """Two independent AR(1) series (phi = 0.8): a plain permutation ignores the
    autocorrelation and rejects far too often; permuting blocks of 40 rows is close to
    calibrated."""
    rng = np.random.default_rng(4)
    n, phi = 1000, 0.8

    def ar():
        e = rng.normal(size=n + 100)
        out = np.zeros(n + 100)
        for t in range(1, n + 100):
            out[t] = phi * out[t - 1] + e[t]
        return out[100:]

    plain = block = 0
    for r in range(100):
        x, y = ar(), ar()
        block += im.independence_test(
            x, y, method="gaussian", n_permutations=99, seed=r, block=40
        ).rejects()
        if r < 20:
            plain += im.independence_test(
                x, y, method="gaussian", n_permutations=99, seed=r
            ).rejects()
    assert plain / 20 > 0.15
    assert LOW <= block / 100 <= HIGH


def test_local_permutation_properties():
    rng = np.random.default_rng(5)
    z = rng.normal(size=500)
    from infometer.measures.stats.nulls import z_neighbors as _z_neighbors

    nb = _z_neighbors(as_variables({"z": z})["z"], 5)
    perm = local_permutation(rng, nb)
    # every row draws from its own Z-neighbourhood, and most rows are used once
    assert all(perm[i] in nb[i] for i in range(500))
    assert len(np.unique(perm)) > 0.8 * 500
    assert np.array_equal(np.sort(block_permutation(rng, 10, 3)), np.arange(10))


def test_result_object_and_validation():
    rng = np.random.default_rng(6)
    x = rng.normal(size=100)
    y = x + rng.normal(size=100)
    a = im.independence_test(x, y, method="gaussian", n_permutations=30, seed=3, unit="bits")
    b = im.independence_test(x, y, method="gaussian", n_permutations=30, seed=3, unit="bits")
    assert np.array_equal(a.null, b.null) and a.p_value == b.p_value
    assert a.statistic.unit == "bits" and a.method == "gaussian"
    assert "p = " in repr(a) and "permutation" in repr(a)
    assert set(a.null_summary) == {"mean", "sd", "median", "q95", "q99"}
    assert a.to_dict()["n_permutations"] == 30
    with pytest.raises(ValueError, match="n_permutations"):
        im.independence_test(x, y, method="gaussian", n_permutations=0)
    with pytest.raises(ValueError, match="block"):
        im.independence_test(x, y, x, method="gaussian", block=5)
    with pytest.raises(TypeError, match="progress"):
        im.independence_test(x, y, method="gaussian", progress="yes")
    with pytest.raises(TypeError, match="no parameter"):
        im.independence_test(x, y, method="gaussian", bins=3)


def test_knn_statistic_runs():
    rng = np.random.default_rng(7)
    x = rng.normal(size=150)
    res = im.independence_test(
        x, x**2 + 0.2 * rng.normal(size=150), method="ksg1", n_permutations=19
    )
    assert res.p_value == pytest.approx(1 / 20)


def test_bh_holm_bonferroni_by_hand():
    p = np.array([0.01, 0.04, 0.03, 0.005, 0.5])
    bh = multipletests(p, "fdr_bh")
    # sorted 0.005 0.01 0.03 0.04 0.5 -> ×5/rank: 0.025 0.025 0.05 0.05 0.5, then cumulative min
    np.testing.assert_allclose(bh.p_adjusted, [0.025, 0.05, 0.05, 0.025, 0.5])
    assert bh.reject.tolist() == [True, True, True, True, False]
    holm = multipletests(p, "holm")
    # ×(5,4,3,2,1) in sorted order: 0.025 0.04 0.09 0.08->0.09 0.5
    np.testing.assert_allclose(holm.p_adjusted, [0.04, 0.09, 0.09, 0.025, 0.5])
    np.testing.assert_allclose(
        multipletests(p, "bonferroni").p_adjusted, [0.05, 0.2, 0.15, 0.025, 1.0]
    )
    with pytest.raises(ValueError, match="correction"):
        multipletests(p, "fdr")
    with pytest.raises(ValueError, match="0, 1"):
        multipletests([0.1, 1.5])
    with pytest.raises(TypeError, match="maxstat"):
        multipletests(p, "maxstat")


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=30))
def test_adjusted_pvalues_properties(ps):
    p = np.asarray(ps)
    for m in ("fdr_bh", "fdr_by", "holm", "bonferroni"):
        adj = multipletests(p, m).p_adjusted
        assert np.all(adj >= p - 1e-15) and np.all(adj <= 1)
        order = np.argsort(p, kind="stable")
        assert np.all(np.diff(adj[order]) >= -1e-12)  # monotone in p


@pytest.mark.slow
def test_maxstat_controls_familywise_error():
    rng = np.random.default_rng(8)
    fwe = 0
    for r in range(40):
        y = rng.normal(size=150)
        tests = [
            im.independence_test(
                rng.normal(size=150), y, method="gaussian", n_permutations=49, seed=r
            )
            for _ in range(4)
        ]
        adj = multipletests(tests, "maxstat").p_adjusted
        raw = np.array([t.p_value for t in tests])
        assert np.all(adj >= raw - 1e-12)
        fwe += np.any(adj <= 0.05)
    # family-wise error at 0.05 over 40 families: Binomial(40, 0.05) -> <= 6 is 2.5 sd
    assert fwe <= 6
