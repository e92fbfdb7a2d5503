"""kNN estimators against closed-form ground truth, and the policies they promise.

Tolerances: at N = 3000 the seed-to-seed sd of KSG-1 for MI ~ 0.4 nats is ~0.011 nats and
its bias in 1-D is below 0.01 (Kraskov et al. 2004, Fig. 4; re-measured over 8 seeds when
these tests were written), so 0.05 is about 4 sd.  Each test states its own reasoning.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import digamma

import infometer as im
from infometer.core.data import InfometerWarning

from .truth import (
    additive_uniform_mi,
    gauss_cmi,
    gauss_entropy,
    gauss_kl,
    mixed_uniform_mi,
    student_mi,
)

N = 3000
RHO = 0.75
MI_RHO = -0.5 * np.log(1 - RHO**2)


def gauss_pair(n=N, seed=0, rho=RHO):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n)
    return x, rho * x + np.sqrt(1 - rho**2) * rng.standard_normal(n)


def quiet(f, *a, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InfometerWarning)
        return f(*a, **kw)


# ------------------------------------------------------------------ ground truth
@pytest.mark.parametrize("method", ["ksg1", "ksg2", "gkov"])
def test_bivariate_gaussian_mi(method):
    x, y = gauss_pair()
    assert abs(im.mutual_info(x, y, method=method).value - MI_RHO) < 0.05  # ~4 sd, see top


COV4 = np.array([[1, 0.3, 0.6, 0.2], [0.3, 1, 0.1, 0.5], [0.6, 0.1, 1, 0.3], [0.2, 0.5, 0.3, 1]])


@pytest.mark.parametrize("method", ["ksg1", "ksg2"])
def test_multivariate_gaussian_mi(method):
    a = np.random.default_rng(1).multivariate_normal(np.zeros(4), COV4, N)
    truth = gauss_cmi(COV4, [0, 1], [2, 3], [])
    # 2x2 at N=3000: sd ~0.02 nats, bias < 0.01 (4-D joint space) -> 0.07 is > 3 sd
    assert abs(im.mutual_info(a[:, :2], a[:, 2:], method=method).value - truth) < 0.07


@pytest.mark.parametrize("method", ["frenzel_pompe", "ksg1", "gkov"])
def test_gaussian_cmi(method):
    cov = np.full((3, 3), 0.5) + 0.5 * np.eye(3)
    a = np.random.default_rng(2).multivariate_normal(np.zeros(3), cov, N)
    truth = gauss_cmi(cov, [0], [1], [2])  # 0.0589
    # FP at N=3000: sd ~0.012, bias ~+0.01 (3-D joint) -> 0.045 is ~3 sd beyond the bias
    est = im.cond_mutual_info(a[:, 0], a[:, 1], a[:, 2], method=method)
    assert abs(est.value - truth) < 0.045
    assert est.method == method


@pytest.mark.parametrize("metric", ["max", "euclidean"])
def test_gaussian_entropy(metric):
    cov = np.array([[2.0, 0.6], [0.6, 0.5]])
    a = np.random.default_rng(3).multivariate_normal([0, 0], cov, N)
    # KL entropy at N=3000 in 2-D: sd ~0.013, bias ~-0.01 -> 0.05 is ~3 sd beyond the bias
    assert abs(im.entropy(a, metric=metric).value - gauss_entropy(cov)) < 0.05
    h1 = im.entropy(a[:, 0] * 7.0, method="kozachenko_leonenko").value
    assert abs(h1 - gauss_entropy(cov[:1, :1] * 49.0)) < 0.05


@pytest.mark.parametrize("metric", ["euclidean", "max"])
def test_gaussian_kl(metric):
    c0, c1, m1 = np.array([[1, 0.5], [0.5, 1]]), np.array([[2, -0.3], [-0.3, 1]]), [0.5, -0.5]
    rng = np.random.default_rng(4)
    p = rng.multivariate_normal([0, 0], c0, N)
    q = rng.multivariate_normal(m1, c1, N + 500)
    # WKV at N=3000 in 2-D: sd ~0.03 nats, bias ~-0.01 -> 0.1 is ~3 sd
    est = im.kl_divergence(p, q, metric=metric)
    assert abs(est.value - gauss_kl([0, 0], c0, m1, c1)) < 0.1
    p2 = rng.multivariate_normal([0, 0], c0, N)
    assert abs(im.kl_divergence(p, p2, method="wkv").value) < 0.1  # D(P||P) = 0


def test_additive_uniform_noise():
    rng = np.random.default_rng(5)
    x = rng.random(N)
    y = x + rng.uniform(-0.1, 0.1, N)
    # true 1.709; KSG's boundary bias on uniform supports is ~-0.03 at N=3000, sd 0.014
    assert abs(im.mutual_info(x, y).value - additive_uniform_mi(0.1)) < 0.08


def test_student_t_asinh():
    """Student-t (nu=1) MI from the entropy formula; asinh per coordinate keeps the MI."""
    rng = np.random.default_rng(6)
    w = np.sqrt(rng.chisquare(1, N) / 1)
    x, y = rng.standard_normal(N) / w, rng.standard_normal(N) / w
    # 0.2242 nats; after asinh, KSG-1 sd ~0.02 and bias < 0.01 at N=3000 -> 0.07 > 3 sd
    est = im.mutual_info(np.arcsinh(x), np.arcsinh(y), method="ksg1").value
    assert abs(est - student_mi(1, 1, 1)) < 0.07


def test_monotone_transform_invariance():
    x, y = gauss_pair(seed=7)
    # MI is invariant to strictly monotone maps of each variable; KSG is not exactly, but
    # its bias on exp/cube-distorted data is ~-0.02 at N=3000 (sd 0.017) -> 0.07
    a = im.mutual_info(np.exp(x), y**3).value
    assert abs(a - MI_RHO) < 0.07
    assert abs(im.mutual_info(-x, 3 * y + 1).value - im.mutual_info(x, y).value) < 0.01


@pytest.mark.parametrize("m", [2, 5])
def test_gkov_mixed_sampler(m):
    rng = np.random.default_rng(8)
    x = rng.integers(0, m, N)
    y = x + 2 * rng.random(N)
    est = im.mutual_info(x, y)
    assert est.method == "gkov" and "GKOV" in est.diagnostics["auto_reason"]
    # GKOV at N=3000: sd ~0.008-0.02, bias ~-0.01 -> 0.06 is ~3 sd beyond the bias
    assert abs(est.value - mixed_uniform_mi(m)) < 0.06


def test_gkov_mixed_columns_and_cmi():
    rng = np.random.default_rng(9)
    m = 5
    x = rng.integers(0, m, N)
    z = rng.integers(0, 3, N)
    y = x + z + 2 * rng.random(N)
    noise = rng.standard_normal(N)
    # x with one discrete and one (independent) continuous column: same MI as x alone;
    # the extra dimension adds bias (~-0.03) -> 0.08
    import pandas as pd

    xm = pd.DataFrame({"a": x, "b": noise})
    assert im.mutual_info(xm, x + 2 * rng.random(N)).method == "gkov"
    assert abs(im.mutual_info(xm, x + 2 * rng.random(N)).value - mixed_uniform_mi(m)) < 0.08
    # I(X;Y|Z) with Y = X + Z + U(0, 2): given Z it is the mixed sampler again
    assert abs(im.cond_mutual_info(x, y, z).value - mixed_uniform_mi(m)) < 0.06
    # conditioning on X itself leaves nothing: I(X;Y|X) = 0 exactly, estimate within 0.02
    assert abs(im.cond_mutual_info(x, y, x, method="gkov").value) < 0.02


# ------------------------------------------------------------------ exact identities
def test_ksg1_matches_sklearn_without_noise():
    from sklearn.feature_selection._mutual_info import _compute_mi_cc

    x, y = gauss_pair(n=2000, seed=10)
    xs = (x - x.mean()) / x.std()
    ys = (y - y.mean()) / y.std()
    ours = im.mutual_info(x, y, method="ksg1", k=3).value
    assert abs(ours - _compute_mi_cc(xs, ys, 3)) < 1e-9
    ours5 = im.mutual_info(x, y, method="ksg1", k=5).value
    assert abs(ours5 - _compute_mi_cc(xs, ys, 5)) < 1e-9


def test_ksg1_matches_public_mutual_info_regression(monkeypatch):
    """The public function, with its 1e-10 noise replaced by zeros (and its own scaling)."""
    from sklearn.feature_selection import _mutual_info, mutual_info_regression

    class NoNoise:
        def standard_normal(self, size=None):
            return np.zeros(size)

    monkeypatch.setattr(_mutual_info, "check_random_state", lambda _: NoNoise())
    for seed, rho in ((23, 0.75), (24, 0.3)):
        x, y = gauss_pair(n=3000, seed=seed, rho=rho)
        theirs = mutual_info_regression(x.reshape(-1, 1), y, n_neighbors=3)[0]
        assert theirs > 0  # (sklearn clips at 0; positive here, so nothing was clipped)
        assert abs(im.mutual_info(x, y, method="ksg1").value - theirs) < 1e-9


def test_gkov_reduces_to_ksg1_on_continuous_data():
    x, y = gauss_pair(n=1500, seed=11)
    a = im.mutual_info(x, y, method="gkov").value
    b = im.mutual_info(x, y, method="ksg1").value
    n = len(x)
    assert abs(a - (b + np.log(n) - digamma(n))) < 1e-12


def test_frenzel_pompe_without_information_in_z_is_ksg1():
    x, y = gauss_pair(n=1500, seed=12)
    z = np.column_stack([np.full_like(x, 3.0)])
    with pytest.warns(InfometerWarning, match="constant"):
        cmi = im.cond_mutual_info(x, y, z, method="frenzel_pompe").value
    assert abs(cmi - im.mutual_info(x, y, method="ksg1").value) < 1e-12  # same counts


@pytest.mark.parametrize("method", ["ksg1", "ksg2"])
def test_symmetry_and_power_of_two_scaling(method):
    x, y = gauss_pair(n=1000, seed=13)
    v = im.mutual_info(x, y, method=method).value
    assert abs(im.mutual_info(y, x, method=method).value - v) < 1e-12  # same counts
    # standardising makes the estimate invariant to rescaling; exact for powers of two
    assert im.mutual_info(x * 2.0**10, y * 2.0**-7, method=method).value == v
    assert abs(im.mutual_info(x * 3.7, y * 0.013, method=method).value - v) < 1e-3


def test_standardize_false_is_not_scale_invariant():
    x, y = gauss_pair(n=1000, seed=14)
    a = im.mutual_info(x, y * 50, standardize=False).value
    b = im.mutual_info(x, y, standardize=False).value
    assert abs(a - b) > 1e-3  # the max-norm mixes scales: why standardising is the default
    h = im.entropy(x, standardize=False).value
    assert abs(h - im.entropy(x).value) < 1e-10  # entropy adds back log sd either way


# ------------------------------------------------------------------ policies
def test_constant_column_gives_zero_not_growing():
    for n in (500, 5000):
        x, y = gauss_pair(n=n, seed=15)
        with pytest.warns(InfometerWarning, match="constant"):
            est = im.mutual_info(np.full(n, 2.5), y, method="ksg1")
        assert est.value == 0.0 and "exact_zero" in est.diagnostics
        with pytest.warns(InfometerWarning, match="constant"):
            assert im.mutual_info(np.zeros(n), y).value == 0.0
    # a constant column inside a multivariate x is dropped, the rest is used
    x, y = gauss_pair(n=1000, seed=16)
    xx = np.column_stack([x, np.ones_like(x)])
    with pytest.warns(InfometerWarning, match="constant"):
        assert im.mutual_info(xx, y, method="ksg1").value == im.mutual_info(x, y).value
    with pytest.warns(InfometerWarning, match="-inf"):
        assert im.entropy(np.ones(100)).value == float("-inf")


def test_ties_warn_and_jitter_is_seeded():
    x, y = gauss_pair(n=2000, seed=17)
    xr = np.round(x, 1)
    with pytest.warns(InfometerWarning, match="jitter"):
        a = im.mutual_info(xr, y, method="ksg1", seed=1)
    assert a.diagnostics["jittered_columns"] == {"x": [0]}
    assert a.diagnostics["tie_fraction"]["x"]["0"] > 0.9
    b = quiet(im.mutual_info, xr, y, method="ksg1", seed=1)
    c = quiet(im.mutual_info, xr, y, method="ksg1", seed=2)
    assert a.value == b.value and a.value != c.value
    # rounding to 0.1 sd loses little information: the jittered estimate stays near truth
    assert abs(a.value - MI_RHO) < 0.06
    # tie-free data is never jittered, so the seed does not matter
    assert quiet(im.mutual_info, x, y, seed=1).value == quiet(im.mutual_info, x, y, seed=9).value
    with pytest.warns(InfometerWarning, match="jitter='never'"):
        im.mutual_info(xr, y, method="ksg1", jitter="never")
    with pytest.raises(ValueError, match="jitter"):  # explicit: no dequantisation
        quiet(im.entropy, np.repeat(x[:100], 5), method="kozachenko_leonenko", jitter="never")


def test_negative_values_are_reported_not_clipped():
    values = []
    for s in range(12):
        rng = np.random.default_rng(100 + s)
        est = quiet(im.mutual_info, rng.standard_normal(200), rng.standard_normal(200))
        values.append(est.value)
        assert est.diagnostics.get("negative", False) == (est.value < 0)
    assert min(values) < 0  # independence: about half the estimates fall below 0


def test_saturation_near_ceiling_is_flagged():
    rng = np.random.default_rng(18)
    x = rng.random(500)
    y = x + rng.uniform(-1e-5, 1e-5, 500)  # true MI = 10.8 nats, far above log(500)
    with pytest.warns(InfometerWarning, match="ceiling"):
        est = im.mutual_info(x, y, method="ksg1")
    assert est.diagnostics["near_ceiling"] and est.value < est.diagnostics["ceiling"] + 0.5
    assert est.value < additive_uniform_mi(1e-5) - 3  # the saturation the flag is about


def test_auto_choices_and_reasons():
    x, y = gauss_pair(n=500, seed=19)
    z = np.random.default_rng(0).standard_normal(500)
    assert im.entropy(x).method == "kozachenko_leonenko"
    e = im.mutual_info(x, y)
    assert e.method == "ksg1" and "KSG-1" in e.diagnostics["auto_reason"]
    assert im.cond_mutual_info(x, y, z).method == "frenzel_pompe"
    assert im.kl_divergence(x, y).method == "wkv"
    assert quiet(im.mutual_info, np.round(x), y).method == "gkov"  # tied floats
    assert im.mutual_info((x > 0).astype(int), y).method == "gkov"  # discrete + continuous
    assert im.cond_mutual_info(x, y, (z > 0)).method == "gkov"
    assert im.mutual_info((x > 0).astype(int), (y > 0).astype(int)).method != "gkov"


def test_bad_parameters_name_the_argument():
    x, y = gauss_pair(n=100, seed=20)
    with pytest.raises(TypeError, match="k must be an integer"):
        im.mutual_info(x, y, method="ksg1", k=2.5)
    with pytest.raises(ValueError, match="k must be"):
        im.mutual_info(x, y, method="ksg1", k=0)
    with pytest.raises(ValueError, match="k must be smaller"):
        im.mutual_info(x, y, method="ksg2", k=100)
    with pytest.raises(ValueError, match="jitter"):
        im.mutual_info(x, y, method="ksg1", jitter="sometimes")
    with pytest.raises(ValueError, match="jitter_scale"):
        im.mutual_info(x, y, method="ksg1", jitter_scale=0.0)
    with pytest.raises(ValueError, match="metric"):
        im.entropy(x, metric="manhattan")
    with pytest.raises(TypeError, match="standardize"):
        im.mutual_info(x, y, method="ksg1", standardize="yes")
    with pytest.raises(TypeError, match="no parameter"):
        im.mutual_info(x, y, method="gkov", metric="max")
    with pytest.raises(ValueError, match="jitter"):
        im.mutual_info(x, y, method="gkov", jitter="sometimes")
    with pytest.raises(ValueError, match="continuous"):
        im.mutual_info((x > 0).astype(int), y, method="ksg1")


def test_subsampling_interval():
    x, y = gauss_pair(n=1000, seed=21)
    est = im.estimate("mutual_info", {"x": x, "y": y}, method="ksg1", ci=0.9)
    lo, hi = est.ci
    assert lo < est.value < hi and "subsampling" in est.diagnostics["ci_method"]
    assert lo < MI_RHO + 0.05 and hi > MI_RHO - 0.05


@settings(max_examples=15, deadline=None)
@given(
    st.integers(0, 2**31 - 1),
    st.integers(-20, 20),
    st.integers(-20, 20),
    st.sampled_from(["ksg1", "ksg2", "gkov"]),
)
def test_property_symmetry_and_scale_invariance(seed, ex, ey, method):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((150, 2))
    y = x[:, :1] * rng.uniform(-1, 1) + rng.standard_normal((150, 1))
    v = im.mutual_info(x, y, method=method).value
    assert np.isfinite(v)
    assert abs(im.mutual_info(y, x, method=method).value - v) < 1e-12
    assert im.mutual_info(x * 2.0**ex, y * -(2.0**ey), method=method).value == v


def test_gkov_constant_z_is_mi():
    rng = np.random.default_rng(22)
    x = rng.integers(0, 4, 800)
    y = x + 2 * rng.random(800)
    with pytest.warns(InfometerWarning, match="constant"):
        cmi = im.cond_mutual_info(x, y, np.zeros(800, int), method="gkov").value
    assert cmi == im.mutual_info(x, y, method="gkov").value


def test_gkov_jitters_rounding_ties_but_keeps_atoms():
    # X | Y ~ N(2Y, 1), Y ~ Bernoulli(0.37): I = H(Y) - H(Y|X) = 0.659 - 0.341 = 0.318 nats, with
    # H(Y|X) by quadrature (error < 1e-8).  Rounding
    # X to 2 decimals makes ~30% of rows tied; counted as atoms those ties inflate GKOV, jittered
    # they do not.  Tolerance: sd of GKOV at n = 2000 is ~0.02 nats.
    from scipy import integrate, stats

    p, mu = 0.37, 2.0

    def f(t):
        a, b = (1 - p) * stats.norm.pdf(t), p * stats.norm.pdf(t, mu)
        return a * np.log(a / (a + b)) + b * np.log(b / (a + b))

    h_y = -(p * np.log(p) + (1 - p) * np.log(1 - p))
    truth = h_y + integrate.quad(f, -12, 14)[0]  # f integrates to -H(Y|X)
    assert abs(truth - 0.318) < 0.001
    rng = np.random.default_rng(3)
    y = (rng.random(2000) < p).astype(int)
    x = np.round(rng.normal(mu * y, 1.0), 2)
    auto = quiet(im.mutual_info, x, y, method="gkov")
    atoms = quiet(im.mutual_info, x, y, method="gkov", jitter="never")
    assert abs(auto.value - truth) < 0.06
    assert atoms.value - truth > 0.1  # the bias the jitter removes
    assert auto.diagnostics["jittered_columns"] == {"x": [0]}
    # zero-inflated: the exact zeros are atoms and stay exact (same value with or without jitter)
    xz = np.where(rng.random(2000) < 0.3, 0.0, x)
    a = quiet(im.mutual_info, xz, y, method="gkov")
    b = quiet(im.mutual_info, xz, y, method="gkov", jitter="never")
    assert a.diagnostics["atom_values"] == {"x": {"0": 1}}
    assert a.value < b.value  # rounding ties jittered, the zero atom kept
