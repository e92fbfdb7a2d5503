"""Continuous ground truth: published values, independent Monte Carlo / quadrature checks of
the closed forms, and checks that each sampler draws from the distribution it claims."""

import math

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.linalg import expm

from infometer.measures import truth
from infometer.measures.truth import beyond_normal as bn
from infometer.measures.truth import closed_forms as cf

# Published values (Czyż et al. 2023, bmi BENCHMARK_TASKS), 4 decimals.
PUBLISHED = {
    "1v1-normal-0.75": 0.4133,
    "normal_cdf-1v1-normal-0.75": 0.4133,
    "1v1-additive-0.1": 1.7094,
    "1v1-additive-0.75": 0.3333,
    "1v1-bimodal-0.75": 0.4133,
    "wiggly-1v1-normal-0.75": 0.4133,
    "half_cube-1v1-normal-0.75": 0.4133,
    "student-identity-1-1-1": 0.2242,
    "asinh-student-identity-1-1-1": 0.2242,
    "swissroll_x-normal_cdf-1v1-normal-0.75": 0.4133,
    "multinormal-dense-2-2-0.5": 0.2939,
    "multinormal-dense-3-3-0.5": 0.4133,
    "multinormal-dense-5-5-0.5": 0.5928,
    "multinormal-dense-25-25-0.5": 1.2922,
    "multinormal-dense-50-50-0.5": 1.6243,
    **{f"multinormal-sparse-{d}-{d}-2-2.0": 1.0217 for d in (2, 3, 5, 25)},
    "student-identity-2-2-1": 0.4319,
    "student-identity-2-2-2": 0.1931,
    "student-identity-3-3-2": 0.2909,
    "student-identity-3-3-3": 0.1787,
    "student-identity-5-5-2": 0.4482,
    "student-identity-5-5-3": 0.2985,
    **{
        f"{t}-multinormal-sparse-{d}-{d}-2-2.0": 1.0217
        for t in ("normal_cdf", "half_cube", "spiral", "spiral-normal_cdf")
        for d in (3, 5, 25)
    },
    "asinh-student-identity-2-2-1": 0.4319,
    "asinh-student-identity-3-3-2": 0.2909,
    "asinh-student-identity-5-5-2": 0.4482,
}


def test_forty_tasks_with_published_values():
    assert len(PUBLISHED) == 40
    assert sorted(bn.BEYOND_NORMAL) == sorted(PUBLISHED)
    assert len(truth.tasks("beyond-normal")) == 40
    for name, value in PUBLISHED.items():
        t = truth.get_task(name)
        assert round(t.truth, 4) == pytest.approx(value, abs=1e-12), name


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_beyond_normal_samples_are_standardized_and_finite(name):
    t = truth.get_task(name)
    s = t.sample(400, seed=1)
    assert s["x"].shape == (400, t.dims[0]) and s["y"].shape == (400, t.dims[1])
    for a in s.values():
        assert np.all(np.isfinite(a))
        np.testing.assert_allclose(a.mean(0), 0, atol=1e-10)
        np.testing.assert_allclose(a.std(0), 1, atol=1e-10)
    np.testing.assert_array_equal(s["x"], t.sample(400, seed=1)["x"])
    assert not np.array_equal(s["x"], t.sample(400, seed=2)["x"])


def test_student_t_closed_form_against_monte_carlo():
    # PMI average with scipy densities (independent of our entropy formula); 200k samples
    # give an MC standard error ~ 0.002; require 5 se.
    rng = np.random.default_rng(0)
    for dx, df in ((1, 1), (2, 2)):
        d = 2 * dx
        joint = stats.multivariate_t(np.zeros(d), np.eye(d), df=df)
        marg = stats.multivariate_t(np.zeros(dx), np.eye(dx), df=df)
        z = joint.rvs(200_000, random_state=rng).reshape(-1, d)
        pmi = joint.logpdf(z) - marg.logpdf(z[:, :dx]) - marg.logpdf(z[:, dx:])
        se = pmi.std() / math.sqrt(pmi.size)
        assert abs(pmi.mean() - cf.student_t_mutual_info(np.eye(d), dx, df)) < 5 * se
    assert cf.student_t_mutual_info(np.eye(4), 2, 2) == pytest.approx(math.log(2) - 0.5, abs=1e-14)


@pytest.mark.parametrize("eps", [0.1, 0.5, 0.75, 2.0])
def test_additive_uniform_by_quadrature(eps):
    # I = h(Y) - h(Y|X) = h(Y) - log(2 eps); density of Y is a trapezoid
    def py(y):
        return (min(y + eps, 1.0) - max(y - eps, 0.0)) / (2 * eps)

    pts = sorted({-eps, eps, 1 - eps, 1 + eps, 0.0, 1.0})
    hy = -integrate.quad(
        lambda y: py(y) * math.log(py(y)) if py(y) > 0 else 0.0,
        -eps,
        1 + eps,
        points=pts[1:-1],
        limit=200,
    )[0]
    assert cf.additive_uniform_mutual_info(eps) == pytest.approx(hy - math.log(2 * eps), abs=1e-8)


def test_gaussian_forms():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((5, 5))
    cov = a @ a.T + np.eye(5)
    assert cf.gaussian_entropy(cov) == pytest.approx(
        stats.multivariate_normal(np.zeros(5), cov).entropy(), abs=1e-12
    )
    # MI = h(X) + h(Y) - h(X,Y)
    mi = (
        cf.gaussian_entropy(cov[:2, :2])
        + cf.gaussian_entropy(cov[2:, 2:])
        - cf.gaussian_entropy(cov)
    )
    assert cf.gaussian_mutual_info(cov, 2) == pytest.approx(mi, abs=1e-12)
    # 1-1-1 CMI = -1/2 log(1 - partial correlation^2)
    c = np.array([[2.0, 1.6, 1.0], [1.6, 2.0, 1.0], [1.0, 1.0, 1.0]])
    prec = np.linalg.inv(c)
    pc = -prec[0, 1] / math.sqrt(prec[0, 0] * prec[1, 1])
    assert cf.gaussian_cond_mutual_info(c, 1, 1) == pytest.approx(
        -0.5 * math.log(1 - pc**2), abs=1e-12
    )
    assert truth.get_task("gauss-cmi-markov-zero").truth == pytest.approx(0.0, abs=1e-12)
    # KL of a unit shift of N(0,1) is 1/2
    assert truth.get_task("gauss-kl-1d-shift").truth == pytest.approx(0.5, abs=1e-14)


def test_gaussian_kl_against_monte_carlo():
    t = truth.get_task("gauss-kl-3d")
    s = t.sample(100_000, seed=4)["p"]
    p = stats.multivariate_normal(np.zeros(3), np.diag([1.0, 2.0, 0.5]))
    q = stats.multivariate_normal(np.array([0.5, -0.5, 0.0]), np.eye(3) + 0.3)
    r = p.logpdf(s) - q.logpdf(s)
    assert abs(r.mean() - t.truth) < 5 * r.std() / math.sqrt(r.size)


def test_lvm_sparse_correlation():
    c = cf.lvm_correlation(5, 5, 2, lambd=2.0)
    want = np.eye(10)
    for i in range(2):
        want[i, 5 + i] = want[5 + i, i] = 0.8  # lambda^2 / (lambda^2 + eps^2)
    np.testing.assert_allclose(c, want, atol=1e-15)
    assert cf.gaussian_mutual_info(c, 5) == pytest.approx(
        2 * cf.bivariate_normal_mutual_info(0.8), abs=1e-12
    )


def test_gaussian_sampler_covariance():
    t = truth.get_task("multinormal-dense-3-3-0.5")
    s = t.sample(50_000, seed=0)
    c = np.corrcoef(np.column_stack([s["x"], s["y"]]).T)
    # sd of a sample correlation ~ (1 - r^2)/sqrt(n) < 0.005
    np.testing.assert_allclose(c, np.eye(6) * 0.5 + 0.5, atol=0.02)


def test_transforms_are_injective_and_spiral_matches_expm():
    x = np.linspace(-8, 8, 20001)
    for f in (bn.half_cube, bn.asinh, bn.wiggly_x, bn.wiggly_y, bn.normal_cdf):
        assert np.all(np.diff(f(x)) > 0) or f is bn.normal_cdf
    u = np.linspace(1e-6, 1 - 1e-6, 5001)
    for f, mix in (
        (bn.bimodal_x, lambda t: 0.3 * stats.norm.cdf(t) + 0.7 * stats.norm.cdf(t - 5)),
        (bn.bimodal_y, lambda t: 0.5 * stats.norm.cdf(t + 1) + 0.5 * stats.norm.cdf(t - 3)),
    ):
        v = f(u)
        assert np.all(np.diff(v) > 0)
        np.testing.assert_allclose(mix(v), u, atol=1e-10)
    rng = np.random.default_rng(1)
    z = rng.standard_normal((20, 5))
    g = bn.so_generator(5, 1, 2)
    got = bn.spiral(z, g, 0.2)
    want = np.stack([expm(0.2 * (v @ v) * g) @ v for v in z])
    np.testing.assert_allclose(got, want, atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), np.linalg.norm(z, axis=1))
    w = bn.swissroll2d(np.array([[0.1], [0.6]]))
    assert w.shape == (2, 2)


def test_high_mi_staircases():
    for d in (1, 20):
        for mi in (2.0, 10.0):
            t = truth.get_task(f"gauss-pairs-d{d}-mi{mi:g}")
            assert t.truth == pytest.approx(mi, abs=1e-10)
            s = t.sample(20_000, seed=0)
            r = np.corrcoef(s["x"][:, 0], s["y"][:, 0])[0, 1]
            assert r == pytest.approx(t.extra["rho"], abs=5 * (1 - r**2) / math.sqrt(20_000))
    assert truth.get_task("additive-eps0.001").truth == pytest.approx(6.2156, abs=1e-4)
    assert truth.get_task("additive-eps0.01").truth == pytest.approx(3.922, abs=1e-3)


def test_mixed_tasks():
    # Gao et al. values
    for m, v in ((2, 0.3466), (5, 1.0549), (10, 1.6788)):
        assert round(truth.get_task(f"mixed-uniform-m{m}").truth, 4) == v
    # without inflation the quadrature equals the closed form 2 log 2 - gamma - sum log k 2^-k
    c = 2 * math.log(2) - np.euler_gamma - sum(math.log(k) * 2.0**-k for k in range(1, 300))
    assert cf.zero_inflated_poissonization_mutual_info(0.0) == pytest.approx(c, abs=1e-9)
    # with inflation: Monte Carlo mean of the exact pointwise MI
    p = 0.15
    t = truth.get_task("mixed-zip-p0.15")
    s = t.sample(200_000, seed=5)
    x, y = s["x"][:, 0], s["y"][:, 0]
    pois = stats.poisson.pmf(y, x)
    cond = np.where(y == 0, p + (1 - p) * pois, (1 - p) * pois)
    marg = np.where(y == 0, p + (1 - p) / 2, (1 - p) / 2.0 ** (y + 1))
    pmi = np.log(cond / marg)
    assert abs(pmi.mean() - t.truth) < 5 * pmi.std() / math.sqrt(pmi.size)
    assert abs(t.truth - (1 - p) * c) > 0.02  # the (1-p)*c shortcut is not the MI


def test_consistency_tasks():
    base = truth.get_task("multinormal-sparse-3-3-2-2.0")
    assert truth.get_task(base.name + "~doubled").truth == pytest.approx(2.0433, abs=1e-4)
    assert truth.get_task(base.name + "~injective").truth == base.truth
    assert truth.get_task(base.name + "~independent").truth == 0.0
    lossy = truth.get_task(base.name + "~lossy")
    assert lossy.truth == pytest.approx(cf.bivariate_normal_mutual_info(0.8), abs=1e-12)
    assert lossy.truth < base.truth
    s = truth.get_task("1v1-normal-0.75~independent").sample(20_000, seed=0)
    assert abs(np.corrcoef(s["x"][:, 0], s["y"][:, 0])[0, 1]) < 0.04  # 5.6 sd
    for t in truth.tasks("consistency"):
        assert t.extra["relation"] in {"zero", "equal", "less", "double"}
