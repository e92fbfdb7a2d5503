"""ARACNE and CLR: known answers (chain, tree-shaped Gaussian graphical model), plots."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np
import pandas as pd
import pytest

from infometer.workflows.allpairs import aracne, clr, pairwise


def mi_from_corr(rho):
    return -0.5 * np.log1p(-(rho**2))


def test_aracne_removes_the_indirect_edge_of_a_chain_exact_mi():
    # X -> Y -> Z Gaussian: rho_xz = rho_xy * rho_yz, so I(X;Z) < min(I(X;Y), I(Y;Z))
    r_xy, r_yz = 0.8, 0.6
    mi = mi_from_corr(np.array([[0, r_xy, r_xy * r_yz], [r_xy, 0, r_yz], [r_xy * r_yz, r_yz, 0]]))
    np.fill_diagonal(mi, np.nan)
    m = pd.DataFrame(mi, index=list("XYZ"), columns=list("XYZ"))
    net = aracne(m)
    assert {frozenset((r.x, r.y)) for r in net.edges.itertuples()} == {
        frozenset("XY"),
        frozenset("YZ"),
    }
    assert net.matrix.loc["X", "Z"] == 0.0 and net.matrix.loc["X", "Y"] == m.loc["X", "Y"]
    # a tolerance above 1 - I_xz / min(...) keeps the triangle
    ratio = m.loc["X", "Z"] / min(m.loc["X", "Y"], m.loc["Y", "Z"])
    assert len(aracne(m, tolerance=1 - ratio + 0.01).edges) == 3


def test_aracne_removes_the_indirect_edge_of_a_chain_from_data():
    rng = np.random.default_rng(0)
    n = 2000
    x = rng.standard_normal(n)
    y = np.tanh(x) + 0.3 * rng.standard_normal(n)  # non-linear links: KSG
    z = y**3 + 0.3 * rng.standard_normal(n)
    res = pairwise(pd.DataFrame({"x": x, "y": y, "z": z}), method="ksg", n_permutations=49)
    assert res.edges.significant.all()  # all three pairs are dependent ...
    edges = {frozenset((r.x, r.y)) for r in res.aracne().edges.itertuples()}
    assert edges == {frozenset("xy"), frozenset("yz")}  # ... but x-z only through y


def random_tree_ggm(p, seed):
    """A Gaussian whose precision matrix is a random tree: exactly the tree's edges."""
    rng = np.random.default_rng(seed)
    parent = [None] + [int(rng.integers(0, i)) for i in range(1, p)]
    rho = np.eye(p)
    for i in range(1, p):  # corr along the tree: product of edge correlations on the path
        r = rng.uniform(0.55, 0.8) * rng.choice([-1, 1])
        rho[i, :i] = rho[parent[i], :i] * r
        rho[:i, i] = rho[i, :i]
    theta = np.linalg.inv(rho)
    tree = {frozenset((str(i), str(parent[i]))) for i in range(1, p)}
    return rho, theta, tree


def test_aracne_recovers_a_tree_shaped_gaussian_graphical_model():
    """Known edges from the precision matrix; pairwise MI from the covariance."""
    p, n = 10, 3000
    rho, theta, tree = random_tree_ggm(p, seed=5)
    off = ~np.eye(p, dtype=bool)
    prec_edges = {
        frozenset((str(i), str(j)))
        for i, j in zip(*np.nonzero(np.abs(theta) > 1e-9 * off), strict=True)
        if i < j
    }
    assert prec_edges == tree
    x = np.random.default_rng(6).multivariate_normal(np.zeros(p), rho, size=n)
    res = pairwise(x, method="copula")
    iu = np.triu_indices(p, 1)
    # copula MI sd ~ |rho| / sqrt(n) = 0.015 at most: 5 sd
    assert np.max(np.abs(res.matrix.to_numpy()[iu] - mi_from_corr(rho[iu]))) < 0.075
    # DPI margins (max over k of min(I_ik, I_jk) - I_ij): with the exact MI the smallest
    # over non-edges is 0.025 nats and the largest over edges -0.077; on this seeded sample
    # the estimates give 0.031 and -0.082, so no rounding on any machine can flip a decision
    net = aracne(res)
    assert {frozenset((r.x, r.y)) for r in net.edges.itertuples()} == tree


def _clr_by_hand(w):
    """CLR written out (Faith et al. 2007): z-scores against each row's other entries."""
    z = np.zeros_like(w)
    for i in range(w.shape[0]):
        others = np.delete(w[i], i)
        z[i] = np.maximum((w[i] - others.mean()) / others.std(), 0)
    want = np.sqrt(z**2 + z.T**2)
    np.fill_diagonal(want, 0)
    return want


def test_clr_scores_by_hand():
    m = np.array(
        [
            [np.nan, 0.9, 0.1, 0.2],
            [0.9, np.nan, 0.3, 0.1],
            [0.1, 0.3, np.nan, 0.1],
            [0.2, 0.1, 0.1, np.nan],
        ]
    )
    net = clr(pd.DataFrame(m, index=list("abcd"), columns=list("abcd")))
    want = _clr_by_hand(np.nan_to_num(m))
    assert np.allclose(net.matrix.to_numpy(), want)
    assert (net.edges.x.iloc[0], net.edges.y.iloc[0]) == ("a", "b")
    assert net.matrix.to_numpy().T.tolist() == net.matrix.to_numpy().tolist()


def test_significant_edges_only_and_input_checks():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((400, 6))
    x[:, 1] += x[:, 0]
    res = pairwise(x, method="copula", n_permutations=99)
    net = aracne(res)  # only the pairs that passed the test enter
    assert set(map(frozenset, zip(net.edges.x, net.edges.y, strict=True))) <= set(
        map(frozenset, zip(res.significant_edges.x, res.significant_edges.y, strict=True))
    )
    assert net.params["significant_only"] is True
    assert len(aracne(res, significant=False).edges) >= len(net.edges)
    with pytest.raises(ValueError, match="square"):
        aracne(np.ones((2, 3)))
    with pytest.raises(ValueError, match="symmetric"):
        aracne(np.array([[0, 1.0], [2.0, 0]]))
    with pytest.raises(ValueError, match="tolerance"):
        aracne(res, tolerance=1.0)
    with pytest.raises(ValueError, match="permutation test"):
        aracne(pairwise(x, method="copula"), significant=True)


def test_plots(tmp_path):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((300, 8))
    x[:, 1] += x[:, 0]
    x[:, 2] += x[:, 1]
    res = pairwise(x, method="copula", n_permutations=19)
    ax = res.heatmap(path=tmp_path / "h.png")
    assert (tmp_path / "h.png").stat().st_size > 5000 and ax.images
    net = res.aracne(significant=False)  # 19 permutations: no pair passes BH among 28
    ax = net.plot(path=tmp_path / "n.png")
    assert (tmp_path / "n.png").stat().st_size > 5000 and ax.collections
    big = pd.DataFrame(np.ones((100, 100)) - np.eye(100))
    with pytest.raises(ValueError, match="at most 80"):
        clr(big + np.arange(100)[:, None] + np.arange(100)[None, :]).plot(path=tmp_path / "x.png")
    plt.close("all")


def test_negative_estimates_are_kept_and_counted():
    # docs/pairwise.md: negative MI estimates are kept, not clipped (issue 29). CLR's
    # background statistics are those of the estimates as they are; ARACNE's result equals
    # that of the clipped matrix (a negative edge is never kept nor removes another).
    m = np.array(
        [
            [0.0, 0.9, -0.05, 0.2, 0.0],
            [0.9, 0.0, 0.3, -0.02, 0.1],
            [-0.05, 0.3, 0.0, 0.1, 0.4],
            [0.2, -0.02, 0.1, 0.0, -0.01],
            [0.0, 0.1, 0.4, -0.01, 0.0],
        ]
    )
    frame = pd.DataFrame(m, index=list("abcde"), columns=list("abcde"))
    net = clr(frame)
    want = _clr_by_hand(m)
    assert np.allclose(net.matrix.to_numpy(), want, rtol=1e-12, atol=0)
    assert net.diagnostics["negative_pairs"] == 3
    clipped = pd.DataFrame(np.maximum(m, 0), index=frame.index, columns=frame.columns)
    assert not np.allclose(clr(clipped).matrix.to_numpy(), want)  # the choice matters
    a = aracne(frame)
    assert a.diagnostics["negative_pairs"] == 3
    assert a.matrix.to_numpy().tolist() == aracne(clipped).matrix.to_numpy().tolist()
