"""The information bottleneck on joint pmfs with known optimal clusterings (issue 26 §3)."""

from __future__ import annotations

import numpy as np
import pytest

import infometer as im

# four x's, two of each conditional p(y|x): the optimal 2-cluster encoder merges {0, 1}
# and {2, 3}, which keeps all of I(X;Y) at I(X;T) = log 2
PXY = np.array([[0.225, 0.025], [0.225, 0.025], [0.025, 0.225], [0.025, 0.225]])
IXY = im.exact.mutual_info(PXY).value


@pytest.mark.parametrize("method", ["iterative", "deterministic"])
def test_known_optimal_clustering(method):
    ib = im.exact.information_bottleneck(PXY, beta=20, n_clusters=2, method=method)
    c = ib.clusters
    assert c[0] == c[1] and c[2] == c[3] and c[0] != c[2]
    assert ib.i_ty == pytest.approx(IXY, abs=1e-9)
    assert ib.i_xt == pytest.approx(np.log(2), abs=1e-6)
    assert ib.h_t == pytest.approx(np.log(2), abs=1e-6)


def test_small_beta_compresses_everything():
    # below the first phase transition (beta < 1 / (largest non-trivial eigenvalue) > 1
    # here) the trivial encoder T independent of X is optimal: I(X;T) = 0
    ib = im.exact.information_bottleneck(PXY, beta=0.5, n_clusters=2)
    assert ib.i_xt == pytest.approx(0.0, abs=1e-6)
    assert ib.i_ty == pytest.approx(0.0, abs=1e-6)


def test_three_groups_with_three_clusters():
    rows = np.array([[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]])
    pxy = np.repeat(rows, 2, axis=0) / 6  # x = 0..5, pairs share p(y|x)
    ib = im.exact.information_bottleneck(pxy, beta=50, n_clusters=3, method="deterministic")
    c = ib.clusters
    assert len(set(c)) == 3 and c[0] == c[1] and c[2] == c[3] and c[4] == c[5]
    assert ib.i_ty == pytest.approx(im.exact.mutual_info(pxy).value, abs=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("method", ["iterative", "deterministic"])
def test_curve_respects_the_information_plane(method, tmp_path):
    rng = np.random.default_rng(0)
    pxy = rng.dirichlet(np.ones(12)).reshape(6, 2)
    curve = im.exact.ib_curve(pxy, betas=np.geomspace(0.5, 200, 12), method=method, n_init=4)
    df = curve.to_frame()
    ixy = im.exact.mutual_info(pxy).value
    # data processing: I(T;Y) <= I(X;Y) and I(T;Y) <= I(X;T) <= H(T) <= H(X)
    assert np.all(df["i_ty"] <= ixy + 1e-12)
    assert np.all(df["i_ty"] <= df["i_xt"] + 1e-12)
    assert np.all(df["i_xt"] <= df["h_t"] + 1e-12) and np.all(df["i_xt"] <= curve.h_x + 1e-12)
    if method == "deterministic":  # T = f(X): H(T) <= H(X) (soft encoders add noise)
        assert np.all(df["h_t"] <= curve.h_x + 1e-12)
    # larger beta never keeps less about Y (the warm start carries the previous optimum)
    assert np.all(np.diff(df["i_ty"]) >= -1e-6)
    # at beta = 200 with as many clusters as x values nearly all of I(X;Y) is kept
    assert df["i_ty"].iloc[-1] == pytest.approx(ixy, rel=1e-2)
    curve.plot(path=tmp_path / "ib.png")


def test_seed_reproducible():
    rng = np.random.default_rng(5)
    pxy = rng.dirichlet(np.ones(15)).reshape(5, 3)
    a = im.exact.information_bottleneck(pxy, beta=3, n_clusters=2, seed=4, n_init=3)
    b = im.exact.information_bottleneck(pxy, beta=3, n_clusters=2, seed=4, n_init=3)
    np.testing.assert_array_equal(a.encoder, b.encoder)


@pytest.mark.parametrize(
    "pxy, kw, match",
    [
        (PXY, {"beta": 0}, "beta"),
        (PXY, {"beta": 1, "n_clusters": 0}, "n_clusters"),
        (PXY, {"beta": 1, "method": "greedy"}, "method"),
        (PXY * 2, {"beta": 1}, "pxy"),
        (PXY.ravel(), {"beta": 1}, "pxy"),
    ],
)
def test_bad_input(pxy, kw, match):
    with pytest.raises((ValueError, TypeError), match=match):
        im.exact.information_bottleneck(pxy, **kw)
