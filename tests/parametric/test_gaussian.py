"""Gaussian and Gaussian-copula estimators against closed-form Gaussian ground truth."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import infometer as im
from infometer.estimators.parametric import gaussian_entropy, gaussian_entropy_terms, gaussian_kl


def logdet(s: np.ndarray) -> float:
    return float(np.linalg.slogdet(s)[1])


def h_true(s: np.ndarray) -> float:
    """Closed form h(N(mu, S)) = 1/2 log det(2 pi e S)."""
    return 0.5 * (logdet(s) + s.shape[0] * (1 + np.log(2 * np.pi)))


def cmi_true(s: np.ndarray, ix, iy, iz=()) -> float:
    """I(X;Y|Z) = h(XZ) + h(YZ) - h(XYZ) - h(Z) for a Gaussian with covariance S."""

    def h(idx):
        idx = list(idx)
        return h_true(s[np.ix_(idx, idx)]) if idx else 0.0

    ix, iy, iz = list(ix), list(iy), list(iz)
    return h(ix + iz) + h(iy + iz) - h(ix + iy + iz) - h(iz)


def random_cov(rng: np.random.Generator, d: int) -> np.ndarray:
    a = rng.normal(size=(d, d))
    return a @ a.T / d + 0.3 * np.eye(d)


@pytest.fixture(scope="module")
def gauss5():
    rng = np.random.default_rng(11)
    s = random_cov(rng, 5)
    data = rng.multivariate_normal(np.zeros(5), s, size=8000)
    return s, data


def test_entropy_mi_cmi_match_closed_form(gauss5):
    s, a = gauss5
    n = a.shape[0]
    x, y, z = a[:, :2], a[:, 2:4], a[:, 4]
    # Var(1/2 log det S_hat) ~ d/(2n) for Gaussian data, so the sd of h_hat(5-dim) at
    # n=8000 is sqrt(5/16000) = 0.018; MI/CMI estimates have sd <= sqrt(sum rho_i^2 / n)
    # <= sqrt(2/8000) = 0.016.  Tolerance: 4 sd.
    assert im.entropy(a, method="gaussian").value == pytest.approx(h_true(s), abs=4 * 0.018)
    assert im.mutual_info(x, y, method="gaussian").value == pytest.approx(
        cmi_true(s, [0, 1], [2, 3]), abs=4 * 0.016
    )
    assert im.cond_mutual_info(x, y, z, method="gaussian").value == pytest.approx(
        cmi_true(s, [0, 1], [2, 3], [4]), abs=4 * 0.016
    )
    # the copula version sees the same Gaussian (normal scores of Gaussian data are
    # Gaussian up to O(log n / n) in the tails)
    assert im.mutual_info(x, y, method="gaussian_copula").value == pytest.approx(
        cmi_true(s, [0, 1], [2, 3]), abs=4 * 0.016 + 0.01
    )
    assert n == 8000


@pytest.mark.parametrize("bias_correct", [True, False])
def test_bias_correction_is_unbiased_at_small_n(bias_correct):
    """Mean over 3000 data sets of n=12 (d=4): the Wishart correction is exactly unbiased."""
    rng = np.random.default_rng(5)
    s = random_cov(rng, 4)
    n, reps = 12, 3000
    groups = [[0, 1], [2, 3]]
    mi_terms = [(1.0, (0,)), (1.0, (1,)), (-1.0, (0, 1))]
    h, mi = np.empty(reps), np.empty(reps)
    for r in range(reps):
        a = rng.multivariate_normal(np.zeros(4), s, size=n)
        h[r] = gaussian_entropy(a, bias_correct)
        mi[r] = gaussian_entropy_terms(a, groups, mi_terms, bias_correct)
    # tolerance: 4 standard errors of the Monte Carlo mean
    tol_h = 4 * h.std() / np.sqrt(reps)
    tol_mi = 4 * mi.std() / np.sqrt(reps)
    ok_h = bool(abs(h.mean() - h_true(s)) < tol_h)
    ok_mi = bool(abs(mi.mean() - cmi_true(s, [0, 1], [2, 3])) < tol_mi)
    # the uncorrected (maximum-likelihood) estimates are biased far beyond the tolerance
    assert ok_h is bias_correct and ok_mi is bias_correct


def test_kl_closed_form_and_unbiased():
    rng = np.random.default_rng(2)
    sp, sq = random_cov(rng, 2), random_cov(rng, 2)
    mp, mq = np.array([0.0, 0.5]), np.array([0.3, -0.2])
    iq = np.linalg.inv(sq)
    dm = mq - mp
    kl = 0.5 * (np.trace(iq @ sp) + dm @ iq @ dm - 2 + logdet(sq) - logdet(sp))
    p = rng.multivariate_normal(mp, sp, size=6000)
    q = rng.multivariate_normal(mq, sq, size=5000)
    # sd of the estimate at these n and covariances: 0.069 (300 simulated replications;
    # it is dominated by tr(Sq^-1 Sp) with an ill-conditioned Sq).  Tolerance: 4 sd.
    assert im.kl_divergence(p, q, method="gaussian").value == pytest.approx(kl, abs=4 * 0.069)
    # unbiasedness at n_p = n_q = 10: mean over 4000 data sets within 4 Monte Carlo se
    vals = {True: [], False: []}
    for _ in range(4000):
        p = rng.multivariate_normal(mp, sp, size=10)
        q = rng.multivariate_normal(mq, sq, size=10)
        for bc in vals:
            vals[bc].append(gaussian_kl(p, q, bc))
    for bc, v in vals.items():
        v = np.asarray(v)
        ok = bool(abs(v.mean() - kl) < 4 * v.std() / np.sqrt(v.size))
        assert ok is bc


monotone = st.sampled_from(
    [
        np.exp,
        np.arctan,
        lambda t: t**3,
        lambda t: 2.5 * t - 1,
        np.sinh,
        lambda t: np.log1p(np.exp(t)),
    ]
)


@settings(max_examples=25, deadline=None)
@given(f=monotone, g=monotone, h=monotone, seed=st.integers(0, 10_000))
def test_copula_invariant_under_monotone_transforms(f, g, h, seed):
    rng = np.random.default_rng(seed)
    a = rng.multivariate_normal(
        np.zeros(3), [[1, 0.5, 0.3], [0.5, 1, 0.4], [0.3, 0.4, 1]], size=300
    )
    x, y, z = a.T
    mi = im.mutual_info(x, y, method="gaussian_copula").value
    cmi = im.cond_mutual_info(x, y, z, method="gaussian_copula").value
    # strictly increasing maps keep the ranks, hence the normal scores: equal to rounding
    assert im.mutual_info(f(x), g(y), method="gaussian_copula").value == pytest.approx(mi, abs=1e-9)
    assert im.cond_mutual_info(f(x), g(y), h(z), method="gaussian_copula").value == pytest.approx(
        cmi, abs=1e-9
    )


def test_copula_recovers_mi_through_nonlinear_marginals():
    rng = np.random.default_rng(3)
    rho, n = 0.6, 5000
    x = rng.normal(size=n)
    y = rho * x + np.sqrt(1 - rho**2) * rng.normal(size=n)
    truth = -0.5 * np.log(1 - rho**2)
    # sd of the bivariate estimate ~ rho/sqrt(n) = 0.0085; 4 sd
    cop = im.mutual_info(np.exp(3 * x), y**3, method="gaussian_copula").value
    assert cop == pytest.approx(truth, abs=4 * 0.0085)
    # the plain Gaussian fit is fooled by the marginals (it is not invariant)
    gau = im.mutual_info(np.exp(3 * x), y**3, method="gaussian").value
    assert gau < truth - 0.05


def test_symmetry_and_affine_invariance():
    rng = np.random.default_rng(4)
    a = rng.multivariate_normal(
        np.zeros(3), [[1, 0.7, 0.2], [0.7, 1, 0.1], [0.2, 0.1, 1]], size=500
    )
    x, y, z = a.T
    for m in ("gaussian", "gaussian_copula"):
        assert im.mutual_info(x, y, method=m).value == pytest.approx(
            im.mutual_info(y, x, method=m).value, abs=1e-12
        )
        assert im.cond_mutual_info(x, y, z, method=m).value == pytest.approx(
            im.cond_mutual_info(-3 * y + 1, 2 * x, z, method=m).value, abs=1e-9
        )
    # h(aX + b) = h(X) + log|a|
    assert im.entropy(4 * x + 2, method="gaussian").value == pytest.approx(
        im.entropy(x, method="gaussian").value + np.log(4), abs=1e-9
    )


def test_copula_has_no_entropy():
    with pytest.raises(ValueError, match="valid methods"):
        im.entropy(np.random.default_rng(0).normal(size=50), method="gaussian_copula")


def test_singular_and_bad_input():
    x = np.random.default_rng(0).normal(size=100)
    with pytest.warns(im.InfometerWarning, match="singular"):
        e = im.mutual_info(x, 2 * x + 1, method="gaussian")
    assert e.value == np.inf and e.diagnostics["singular_covariance"]
    with pytest.warns(im.InfometerWarning, match="singular"):
        assert im.entropy(np.column_stack([x, x]), method="gaussian").value == -np.inf
    with pytest.raises(TypeError, match="bias_correct"):
        im.mutual_info(x, x[::-1], method="gaussian", bias_correct="yes")
    with pytest.raises(ValueError, match="more samples than dimensions"):
        im.mutual_info(np.ones((4, 2)) + np.arange(8).reshape(4, 2) ** 2, x[:4], method="gaussian")
    with pytest.raises(TypeError, match="no parameter"):
        im.mutual_info(x, x[::-1], method="gaussian", k=3)
    with pytest.raises(ValueError, match="continuous"):
        im.mutual_info([1, 2, 3, 1, 2] * 4, [1, 2, 2, 1, 1] * 4, method="gaussian")


def test_negative_estimate_is_reported_not_clipped():
    rng = np.random.default_rng(1)
    vals = []
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        for _ in range(20):
            e = im.mutual_info(rng.normal(size=200), rng.normal(size=200), method="gaussian")
            vals.append(e.value)
            if e.value < 0:
                assert e.diagnostics["negative"]
    assert min(vals) < 0  # unbiased under independence: about half are negative


def test_bootstrap_error_bar_matches_asymptotic_sd():
    rng = np.random.default_rng(8)
    rho, n = 0.6, 2000
    x = rng.normal(size=n)
    y = rho * x + np.sqrt(1 - rho**2) * rng.normal(size=n)
    e = im.mutual_info(x, y, method="gaussian", ci=0.9)
    # delta method: Var(-1/2 log(1 - r^2)) ~ rho^2 / n -> sd 0.0134; the bootstrap se of
    # 200 resamples is within ~10% of it (its own sampling error is 1/sqrt(2*200) = 5%)
    assert e.stderr == pytest.approx(rho / np.sqrt(n), rel=0.25)
    assert e.ci[0] < e.value < e.ci[1]


# ------------------------------------------------------------- GCMI with discrete variables
def test_copula_cmi_given_discrete_z_matches_closed_form():
    """(X, Y) | Z=z is a bivariate normal with correlation rho_z: I(X;Y|Z) = Σ p(z) I_z."""
    rng = np.random.default_rng(9)
    n = 6000
    z = (rng.random(n) < 0.7).astype(int)  # p(z=1) = 0.7
    rho = np.where(z == 1, 0.2, 0.8)
    x = rng.normal(size=n)
    y = rho * x + np.sqrt(1 - rho**2) * rng.normal(size=n)
    truth = 0.3 * -0.5 * np.log(1 - 0.8**2) + 0.7 * -0.5 * np.log(1 - 0.2**2)
    # per-class sd rho_z/sqrt(n_z): 0.3·0.8/sqrt(1800) + 0.7·0.2/sqrt(4200) = 0.008 (summed
    # conservatively); tolerance 4 sd.  Monotone maps of x within the data keep the value.
    e = im.cond_mutual_info(np.exp(x), y**3, z, method="gaussian_copula")
    assert e.value == pytest.approx(truth, abs=4 * 0.008)
    assert e.value == pytest.approx(
        im.cond_mutual_info(x, y, z, method="gaussian_copula").value, abs=1e-9
    )
    assert e.diagnostics["z_classes"] == 2


def test_copula_mi_continuous_discrete_population_value():
    """X | Y=y ~ N(mu_y, 1), Y uniform on 3 classes.  The 'cd' model's population value is
    1/2 log Var(T) − Σ p(y) 1/2 log Var(T | y) with T = Φ⁻¹(F(X)) (so Var(T) = 1), computed
    here by quadrature; it is below the true MI h(X) − h(X|Y) in this example."""
    from scipy.integrate import quad
    from scipy.stats import norm

    mus = np.array([-1.5, 0.0, 1.5])

    def f(t):
        return norm.pdf(t - mus).mean()

    def cdf(t):
        return norm.cdf(t - mus).mean()

    def tnorm(t):
        return norm.ppf(np.clip(cdf(t), 1e-300, 1 - 1e-16))

    pop = 0.0
    for mu in mus:
        m1 = quad(lambda t, mu=mu: tnorm(t) * norm.pdf(t - mu), -12, 12, limit=200)[0]
        m2 = quad(lambda t, mu=mu: tnorm(t) ** 2 * norm.pdf(t - mu), -12, 12, limit=200)[0]
        pop -= 0.5 * np.log(m2 - m1**2) / 3
    h_mix = -quad(lambda t: f(t) * np.log(f(t)), -12, 12, limit=200)[0]
    true_mi = h_mix - 0.5 * np.log(2 * np.pi * np.e)
    assert pop < true_mi
    rng = np.random.default_rng(10)
    n = 6000
    y = rng.integers(0, 3, size=n)
    x = mus[y] + rng.normal(size=n)
    e = im.mutual_info(x, y, method="gaussian_copula")
    # sd ~ sqrt(Var(pointwise log-ratio)/n) < 0.9/sqrt(6000) = 0.012; 4 sd
    assert e.value == pytest.approx(pop, abs=4 * 0.012)
    # argument order does not matter; a monotone map of x does not either
    assert im.mutual_info(y, np.arctan(x), method="gaussian_copula").value == pytest.approx(
        e.value, abs=1e-9
    )
    assert e.diagnostics["model"].startswith("cd")


def test_copula_discrete_validation():
    rng = np.random.default_rng(11)
    x, c = rng.normal(size=100), rng.integers(0, 3, size=100)
    with pytest.raises(ValueError, match="at least one continuous"):
        im.mutual_info(c, c[::-1], method="gaussian_copula")
    with pytest.raises(ValueError, match="discrete z"):
        im.cond_mutual_info(x, c, rng.normal(size=100), method="gaussian_copula")
    with pytest.raises(ValueError, match="class"):
        im.mutual_info(x, np.r_[np.zeros(99, int), 1], method="gaussian_copula")


@pytest.mark.parametrize("method", ["gaussian", "gaussian_copula"])
def test_constant_columns_carry_no_information(method):
    # a constant column used to make the covariance singular and the MI "+inf"; kNN and
    # im.pairwise give 0, and so must the parametric family (I(X; c) = 0 exactly)
    rng = np.random.default_rng(3)
    x = rng.normal(size=400)
    y = x + rng.normal(size=400)
    c = np.full(400, 2.5)
    with pytest.warns(im.InfometerWarning, match="constant"):
        e = im.mutual_info(x, c, method=method)
    assert e.value == 0.0 and e.diagnostics["constant"] == ["y"]
    plain = im.mutual_info(x, y, method=method).value
    with pytest.warns(im.InfometerWarning, match="constant"):
        # a constant extra column of y, and a constant z, change nothing
        assert im.mutual_info(x, np.column_stack([y, c]), method=method).value == pytest.approx(
            plain, rel=1e-12
        )
    with pytest.warns(im.InfometerWarning, match="constant"):
        assert im.cond_mutual_info(x, y, c, method=method).value == pytest.approx(plain, rel=1e-12)
