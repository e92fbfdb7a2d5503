"""Matrix-based Rényi / von Neumann entropy against closed forms and exact identities."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import infometer as im
from infometer.estimators.matrix import _kernels as K
from infometer.estimators.matrix import effective_rank, von_neumann_entropy


def test_registered_and_reachable_from_the_api():
    for q in ("entropy", "mutual_info", "cond_mutual_info"):
        assert "matrix_renyi" in im.methods(q)
    rng = np.random.default_rng(0)
    z = rng.normal(size=(300, 4))
    e = im.entropy(z, method="matrix_renyi", kernel="linear")
    assert e.method == "matrix_renyi" and e.quantity == "entropy"
    assert e == im.entropy(z, method="matrix_renyi", kernel="linear")  # deterministic
    assert e.to("bits").value == pytest.approx(e.value / np.log(2))


def test_isotropic_gaussian_latents_give_log_d():
    # The sample covariance of n = 5000 draws in d = 8 has eigenvalues 1 ± O(sqrt(d/n)) = ±0.04;
    # the entropy deficit is about half their relative variance, ~d/(2n) = 0.001, so 0.01 is
    # ten times the expected error.
    z = np.random.default_rng(1).normal(size=(5000, 8))
    s = von_neumann_entropy(z)
    assert s.value == pytest.approx(np.log(8), abs=0.01)
    assert s.value <= np.log(8) + 1e-12  # the maximum of a spectrum with 8 entries
    assert s.diagnostics["effective_rank"] == pytest.approx(8, abs=0.1)


def test_collapsed_latents_give_zero():
    rng = np.random.default_rng(2)
    z = np.outer(rng.normal(size=400), rng.normal(size=6))  # rank 1
    assert abs(von_neumann_entropy(z).value) < 1e-9
    assert effective_rank(z) == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize("n,d", [(200, 5), (40, 60)])
def test_gram_and_covariance_forms_agree(n, d):
    rng = np.random.default_rng(n)
    f = rng.normal(size=(n, d)) @ rng.normal(size=(d, d))
    rep = K.linear_rep(f)
    gram = K.KernelRep(gram=rep.as_gram())
    for alpha in (0.5, 1.0, 2.0, 3.0):
        assert K.renyi_entropy(rep, alpha) == pytest.approx(K.renyi_entropy(gram, alpha), abs=1e-10)
    # the covariance spectrum of the Koopman code is the same normalised spectrum
    k = min(n, d)
    lam_cov = np.sort(K.covariance_spectrum(f))[-k:]
    np.testing.assert_allclose(lam_cov, np.sort(K.spectrum(gram))[-k:], atol=1e-12)


def test_alpha_near_one_is_von_neumann_to_first_order():
    # S_α = S_1 − (α − 1)/2 · Σ λ (log λ + S_1)² + O((α − 1)²): at α = 1.001 the remainder
    # is ~1e-6 × the third cumulant of log λ, far below the 1e-5 tolerance.
    rng = np.random.default_rng(3)
    lam = K.covariance_spectrum(rng.normal(size=(500, 6)) * np.arange(1, 7))
    s1 = K.renyi_from_spectrum(lam, 1.0)
    var = float(np.sum(lam * (np.log(lam) + s1) ** 2))
    assert K.renyi_from_spectrum(lam, 1.001) == pytest.approx(s1 - 0.0005 * var, abs=1e-5)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(0.0, 10.0), min_size=2, max_size=8).filter(lambda v: sum(v) > 1e-3))
def test_renyi_entropy_decreases_in_alpha(weights):
    lam = np.asarray(weights) / np.sum(weights)
    alphas = [0.3, 0.7, 1.0, 1.5, 2.0, 4.0]
    vals = [K.renyi_from_spectrum(lam, a) for a in alphas]
    assert all(b <= a + 1e-9 for a, b in zip(vals, vals[1:], strict=False))
    assert 0 - 1e-12 <= vals[-1] and vals[0] <= np.log(len(lam)) + 1e-9


def test_delta_kernel_is_the_plugin_estimator():
    # The normalised delta-kernel spectrum is the empirical pmf, so the matrix entropy, MI
    # and CMI of discrete data are the plug-in values exactly.
    rng = np.random.default_rng(4)
    x = rng.integers(0, 4, 600)
    y = (x + (rng.random(600) < 0.3)) % 4
    z = rng.integers(0, 3, 600)
    assert im.entropy(x, method="matrix_renyi").value == pytest.approx(
        im.entropy(x, method="plugin").value, abs=1e-10
    )
    assert im.mutual_info(x, y, method="matrix_renyi").value == pytest.approx(
        im.mutual_info(x, y, method="plugin").value, abs=1e-10
    )
    assert im.cond_mutual_info(x, y, z, method="matrix_renyi").value == pytest.approx(
        im.cond_mutual_info(x, y, z, method="plugin").value, abs=1e-10
    )
    p = np.bincount(x) / x.size
    assert im.entropy(x, method="matrix_renyi", alpha=2).value == pytest.approx(
        -np.log(np.sum(p**2)), abs=1e-12
    )


def test_rbf_renyi2_of_a_gaussian_matches_the_closed_form():
    # With K = exp(−‖Δ‖²/2σ²), S_2 = −log(Σ K_ij² / n²) → −log E exp(−‖X − X'‖²/σ²), which for
    # X ~ N(0, I_d) is (d/2) log(1 + 4/σ²); for jointly Gaussian (X, Y) with correlation ρ,
    # I_2 = log(1 + 4/σ²) − ½ log det(I + 4Σ/σ²).  Over 20 seeds at n = 1000 the spread was
    # sd 0.015 (H) and 0.007 (I) with bias −0.006 and +0.003: tolerances are 4 sd.
    sig = 1.5
    rng = np.random.default_rng(5)
    x = rng.normal(size=(1000, 2))
    h = im.entropy(x, method="matrix_renyi", alpha=2, sigma=sig)
    assert h.value == pytest.approx(np.log(1 + 4 / sig**2), abs=0.06)
    cov = np.array([[1.0, 0.8], [0.8, 1.0]])
    xy = rng.multivariate_normal([0, 0], cov, size=1000)
    true = np.log(1 + 4 / sig**2) - 0.5 * np.log(np.linalg.det(np.eye(2) + 4 * cov / sig**2))
    mi = im.mutual_info(xy[:, 0], xy[:, 1], method="matrix_renyi", alpha=2, sigma=sig)
    assert mi.value == pytest.approx(true, abs=0.03)


def test_mi_of_dependent_exceeds_independent_and_chain_rule():
    rng = np.random.default_rng(6)
    x = rng.normal(size=(300, 2))
    indep = im.mutual_info(x, rng.normal(size=(300, 2)), method="matrix_renyi").value
    same = im.mutual_info(x, x, method="matrix_renyi").value
    assert same > indep + 0.5
    # I(X;(Y,Z)) = I(X;Z) + I(X;Y|Z) holds exactly for the Hadamard-product joint
    y, z = x[:, :1] + rng.normal(size=(300, 1)), rng.normal(size=(300, 1))
    kw = {"method": "matrix_renyi", "sigma": 1.0}
    lhs = im.mutual_info(x, np.hstack([y, z]), **kw).value
    rhs = im.mutual_info(x, z, **kw).value + im.cond_mutual_info(x, y, z, **kw).value
    # the joint (y, z) as one 2-D variable has one RBF kernel = product of the 1-D ones
    assert lhs == pytest.approx(rhs, abs=1e-9)


def test_invariances():
    rng = np.random.default_rng(7)
    z = rng.normal(size=(200, 4)) * [3, 1, 0.5, 0.1]
    q, _ = np.linalg.qr(rng.normal(size=(4, 4)))
    base = von_neumann_entropy(z).value
    assert von_neumann_entropy(z @ q).value == pytest.approx(base, abs=1e-10)
    assert von_neumann_entropy(z[rng.permutation(200)]).value == pytest.approx(base, abs=1e-10)
    assert von_neumann_entropy(5 * z + 2).value == pytest.approx(base, abs=1e-10)


def test_bootstrap_interval_and_recorded_bandwidth():
    rng = np.random.default_rng(8)
    x = rng.normal(size=(120, 2))
    e = im.entropy(x, method="matrix_renyi", ci=0.9)
    assert e.ci is not None and e.ci[0] < e.ci[1]
    assert e.params["sigma"] == e.diagnostics["sigma"]
    assert e.params["sigma"][0] == pytest.approx(K.median_sigma(x))


def test_effective_rank_definitions():
    rng = np.random.default_rng(9)
    z = rng.normal(size=(4000, 5))
    assert effective_rank(z) == pytest.approx(5, abs=0.05)
    w = z * [4, 2, 1, 0.5, 0.25]
    assert effective_rank(w, spectrum="covariance") == pytest.approx(
        np.exp(von_neumann_entropy(w).value), rel=1e-10
    )
    # singular values are flatter than their squares: Roy-Vetterli rank is larger
    assert effective_rank(w) > effective_rank(w, spectrum="covariance")


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"alpha": 0}, "alpha"),
        ({"alpha": -1.0}, "alpha"),
        ({"kernel": "poly"}, "kernel"),
        ({"sigma": -1.0}, "sigma"),
        ({"sigma": [1.0, 2.0]}, "sigma"),
        ({"bandwidth": 1.0}, "bandwidth"),
    ],
)
def test_bad_parameters(kwargs, match):
    x = np.random.default_rng(0).normal(size=(50, 2))
    with pytest.raises((ValueError, TypeError), match=match):
        im.entropy(x, method="matrix_renyi", **kwargs)


def test_bad_data():
    with pytest.raises(ValueError, match="x is constant"):
        im.entropy(np.ones((20, 3)), method="matrix_renyi", kernel="linear")
    # a constant column is not "few distinct values" (one warning per cause, issue 41): the
    # Gram matrix of constant rows has rank 1, so the matrix entropy is exactly 0
    const = im.entropy(np.ones((20, 3)), method="matrix_renyi")
    assert const.value == pytest.approx(0, abs=1e-9)
    with pytest.raises(ValueError, match="NaN"):
        im.entropy(np.array([[0.0], [np.nan], [1.0]]), method="matrix_renyi")
    with pytest.raises(ValueError, match="z is constant"):
        effective_rank(np.zeros((10, 2)))
    with pytest.raises(ValueError, match="spectrum"):
        effective_rank(np.eye(3), spectrum="eigen")
    with pytest.raises(ValueError, match="rows"):
        im.mutual_info(np.zeros((5, 1)), np.zeros((6, 1)), method="matrix_renyi")


def test_copies_are_flagged_and_the_ceiling_bounds_the_mi():
    # S(A∘B) >= max(S(A), S(B)) makes min(S(A), S(B)) an upper bound of the matrix MI; a
    # copy of x (same normalised kernel) is flagged, an ordinary dependence is not
    rng = np.random.default_rng(3)
    x = rng.normal(size=300)
    for y, copy in ((x, True), (x + 1e-7 * rng.normal(size=300), True), (np.tanh(x), False)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            e = im.mutual_info(x, y, method="matrix_renyi")
        assert e.value <= e.diagnostics["ceiling"] + 1e-9
        assert e.diagnostics.get("near_ceiling", False) is copy
        assert any("coincide" in str(w.message) for w in caught) is copy
    # two discrete copies: the plug-in MI equals the entropy; nothing to flag
    c = rng.integers(0, 4, size=300)
    e = im.mutual_info(c, c, method="matrix_renyi")
    assert e.value == pytest.approx(e.diagnostics["ceiling"], abs=1e-9)
    assert "near_ceiling" not in e.diagnostics


def test_offsets_and_extreme_scales_change_nothing():
    """The kernels depend on differences of rows only, so a large offset or a common scale
    near the float limits must not change a matrix entropy or MI (an RBF Gram matrix built
    from ``|a|² + |b|² − 2 a·b`` of uncentred data gave 0.91 nats instead of 0.14 for an
    offset of 1e8).  Data are centred and scaled by a power of two first."""
    import warnings

    import infometer as im

    rng = np.random.default_rng(21)
    x = rng.standard_normal(300)
    y = 0.6 * x + 0.8 * rng.standard_normal(300)
    xy = np.c_[x, y]
    ref_mi = im.mutual_info(x, y, method="matrix_renyi").value
    ref_lin = im.entropy(xy, method="matrix_renyi", kernel="linear").value
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        for s, o in ((1.0, 1e8), (1.0, -1e9), (1e300, 0.0), (1e-300, 0.0), (2.0**900, 0.0)):
            got = im.mutual_info(x * s + o, y, method="matrix_renyi").value
            assert got == pytest.approx(ref_mi, abs=1e-6 if o else 1e-12), (s, o)
            lin = im.entropy(xy * s + o, method="matrix_renyi", kernel="linear").value
            assert lin == pytest.approx(ref_lin, abs=1e-6 if o else 1e-12), (s, o)
        # a bandwidth given in data units scales with the data
        h = im.entropy(x, method="matrix_renyi", sigma=0.7).value
        assert im.entropy(x * 1e-300, method="matrix_renyi", sigma=0.7e-300).value == (
            pytest.approx(h, abs=1e-12)
        )
        # a bandwidth far below every distance: the identity kernel, entropy log n exactly
        tiny = im.entropy(x, method="matrix_renyi", sigma=1e-300).value
        assert tiny == pytest.approx(np.log(300), abs=1e-9)
        assert effective_rank(xy * 1e300) == pytest.approx(effective_rank(xy), abs=1e-12)
        # bandwidths beyond the float range once the data are scaled: the two limits
        lo = im.entropy(x * 1e300, method="matrix_renyi", sigma=1e-30).value
        assert lo == pytest.approx(np.log(300), abs=1e-9)
        hi = im.entropy(x * 1e-300, method="matrix_renyi", sigma=1e300).value
        assert hi == pytest.approx(0.0, abs=1e-12)  # the all-ones kernel
