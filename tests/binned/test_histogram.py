"""Histogram estimators against closed forms and against the exactly binned Gaussian."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import multivariate_normal, norm

import infometer as im
from infometer.estimators.binned import bins_per_column
from tests._tol import sqrt0


def sample_edges(col: np.ndarray, k: int, strategy: str) -> np.ndarray:
    """The documented bin edges: equal width over [min, max], or sample quantiles."""
    if strategy == "width":
        return np.linspace(col.min(), col.max(), k + 1)
    return np.unique(np.quantile(col, np.linspace(0, 1, k + 1)))


def binned_gaussian_mi(ex: np.ndarray, ey: np.ndarray, rho: float) -> tuple[float, float]:
    """Exact MI of the standard bivariate normal discretised on the grid ex × ey (outer
    edges extended to ±inf, where the estimator puts every point outside [min, max]), and
    the sd of the plug-in MI at n=1: sqrt(Var[log P(a,b)/(P(a)P(b))])."""
    bx = np.r_[-np.inf, ex[1:-1], np.inf].clip(-12, 12)
    by = np.r_[-np.inf, ey[1:-1], np.inf].clip(-12, 12)
    mvn = multivariate_normal(mean=[0, 0], cov=[[1, rho], [rho, 1]])
    gx, gy = np.meshgrid(bx, by, indexing="ij")
    f = mvn.cdf(np.column_stack([gx.ravel(), gy.ravel()])).reshape(gx.shape)
    p = f[1:, 1:] - f[:-1, 1:] - f[1:, :-1] + f[:-1, :-1]
    p = np.clip(p, 1e-300, None)
    px, py = np.diff(norm.cdf(bx)), np.diff(norm.cdf(by))
    lr = np.log(p / np.outer(px, py))
    mi = float((p * lr).sum())
    # Var = sum p (lr - mi)^2, never E[lr^2] - mi^2: that difference of two nearly equal
    # numbers can round below 0 (NaN sd) where the variance is ~0
    return mi, sqrt0((p * (lr - mi) ** 2).sum(), "Var[log ratio]")


@pytest.fixture(scope="module")
def bivariate():
    rng = np.random.default_rng(21)
    rho, n = 0.6, 5000
    x = rng.normal(size=n)
    y = rho * x + np.sqrt(1 - rho**2) * rng.normal(size=n)
    return x, y, rho, n


@pytest.mark.parametrize("strategy", ["width", "frequency"])
def test_mi_matches_exactly_binned_gaussian(bivariate, strategy):
    x, y, rho, n = bivariate
    k = 12
    e = im.mutual_info(x, y, method="histogram", bins=k, strategy=strategy)
    truth_k, sd1 = binned_gaussian_mi(
        sample_edges(x, k, strategy), sample_edges(y, k, strategy), rho
    )
    # data processing: the binned MI is below the true MI -1/2 log(1 - rho^2)
    assert truth_k < -0.5 * np.log(1 - rho**2)
    # plug-in sd = sd1/sqrt(n) (~0.008 here); Miller-Madow leaves an O(m/n^2) bias.
    # Tolerance: 4 sd + 0.005.
    assert e.value == pytest.approx(truth_k, abs=4 * sd1 / np.sqrt(n) + 0.005)
    assert e.diagnostics["bins_per_column"] == [k, k]


def test_cmi_with_independent_z_equals_binned_mi(bivariate):
    x, y, rho, n = bivariate
    z = np.random.default_rng(1).normal(size=n)
    k = 8  # 512 cells for 5000 samples
    truth_k, sd1 = binned_gaussian_mi(
        sample_edges(x, k, "frequency"), sample_edges(y, k, "frequency"), rho
    )
    e = im.cond_mutual_info(x, y, z, method="histogram", bins=k, strategy="frequency")
    # I(X;Y|Z) = I(X;Y) when Z is independent, binned or not.  With ~10 samples per
    # cell the Miller-Madow residual bias of the four entropy terms is ~0.01.
    assert e.value == pytest.approx(truth_k, abs=4 * sd1 / np.sqrt(n) + 0.015)


@pytest.mark.filterwarnings("ignore:histogram estimate is negative")
def test_plugin_is_biased_upwards_and_miller_madow_removes_it():
    rng = np.random.default_rng(3)
    n, k = 400, 10
    mm, pl = [], []
    for _ in range(60):
        x, y = rng.normal(size=n), rng.normal(size=n)
        mm.append(im.mutual_info(x, y, method="histogram", bins=k, strategy="frequency").value)
        pl.append(
            im.mutual_info(
                x, y, method="histogram", bins=k, strategy="frequency", correction="none"
            ).value
        )
    # independent data, true binned MI 0: plug-in bias ~ (k-1)^2/(2n) = 0.10
    assert np.mean(pl) == pytest.approx((k - 1) ** 2 / (2 * n), rel=0.15)
    assert abs(np.mean(mm)) < 0.02


def test_entropy_uniform_and_normal():
    rng = np.random.default_rng(4)
    u = rng.uniform(size=5000)
    # uniform cells: -log p_hat has no first-order variance; edge effects are O(k/n)
    for strategy in ("width", "frequency"):
        assert im.entropy(u, method="histogram", strategy=strategy).value == pytest.approx(
            0.0, abs=0.01
        )
    g = rng.normal(size=5000)
    # sd(log f(X))/sqrt(n) = sqrt(1/2)/sqrt(5000) = 0.010; FD binning bias h^2/24 = 0.001
    assert im.entropy(g, method="histogram").value == pytest.approx(
        0.5 * np.log(2 * np.pi * np.e), abs=4 * 0.010 + 0.001
    )
    # two independent columns: h adds up
    assert im.entropy(np.column_stack([g, u]), method="histogram", bins=30).value == pytest.approx(
        0.5 * np.log(2 * np.pi * np.e), abs=0.06
    )


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), a=st.floats(0.1, 10), b=st.floats(-5, 5))
def test_affine_and_monotone_invariance(seed, a, b):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=300)
    y = x + rng.normal(size=300)
    mi = im.mutual_info(x, y, method="histogram").value
    assert im.mutual_info(a * x + b, y, method="histogram").value == pytest.approx(mi, abs=1e-9)
    # h(aX + b) = h(X) + log a for equal-width bins
    assert im.entropy(a * x + b, method="histogram").value == pytest.approx(
        im.entropy(x, method="histogram").value + np.log(a), abs=1e-9
    )
    # equal-frequency bins follow any increasing map
    f = im.mutual_info(x, y, method="histogram", strategy="frequency").value
    assert im.mutual_info(
        np.exp(x), y**3, method="histogram", strategy="frequency"
    ).value == pytest.approx(f, abs=1e-9)


def test_bin_rules():
    rng = np.random.default_rng(5)
    x = rng.normal(size=1000)
    assert bins_per_column(x, 7, 1) == 7
    assert bins_per_column(x, "sturges", 1) == int(np.ceil(np.log2(1000))) + 1
    assert bins_per_column(x, "sqrt", 1) == int(np.ceil(np.sqrt(1000)))
    q75, q25 = np.percentile(x, [75, 25])
    fd = int(np.ceil((x.max() - x.min()) / (2 * (q75 - q25) * 1000 ** (-1 / 3))))
    assert bins_per_column(x, "fd", 1) == fd
    # auto: FD capped at (n/5)^(1/D)
    assert bins_per_column(x, "auto", 1) == fd
    assert bins_per_column(x, "auto", 2) == min(fd, int(np.sqrt(200)))
    assert bins_per_column(x, "auto", 3) == 5
    # heavy tails cannot ask for more bins than samples
    assert bins_per_column(rng.standard_cauchy(200), "fd", 1) <= 200
    e = im.mutual_info(x, x + rng.normal(size=1000), method="histogram")
    assert e.diagnostics["bins_per_column"] == [14, 14]


def test_validation_and_atoms():
    rng = np.random.default_rng(6)
    x = rng.normal(size=200)
    with pytest.raises(ValueError, match="bins"):
        im.entropy(x, method="histogram", bins="magic")
    with pytest.raises(ValueError, match="bins"):
        im.entropy(x, method="histogram", bins=0)
    with pytest.raises(TypeError, match="bins"):
        im.entropy(x, method="histogram", bins=2.5)
    with pytest.raises(ValueError, match="strategy"):
        im.entropy(x, method="histogram", strategy="quantile")
    with pytest.raises(ValueError, match="correction"):
        im.entropy(x, method="histogram", correction="mm")
    atoms = np.r_[np.zeros(150), rng.normal(size=50)]
    with pytest.warns(im.InfometerWarning, match="atom"):
        e = im.entropy(atoms, method="histogram", strategy="frequency", bins=10)
    assert e.diagnostics["atoms"]
    with pytest.warns(im.InfometerWarning, match="too fine"):
        im.mutual_info(x, rng.normal(size=200), method="histogram", bins=50)
