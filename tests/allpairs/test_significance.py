"""Permutation tests for every pair: shared null where exact, per-pair otherwise, FDR edges."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import infometer as im
from infometer.core.data import as_variable
from infometer.workflows.allpairs import pairwise
from infometer.workflows.allpairs._significance import shared_null
from infometer.workflows.allpairs.matrix import make_config


def blocks_gaussian(n, seed):
    """Two correlated blocks (0-3 and 4-6) that are independent of each other, plus noise 7-9."""
    rng = np.random.default_rng(seed)
    cov = np.eye(10)
    for i, j in [(0, 1), (1, 2), (2, 3), (0, 2), (4, 5), (5, 6)]:
        cov[i, j] = cov[j, i] = 0.5
    cov[0, 3] = cov[3, 0] = cov[1, 3] = cov[3, 1] = 0.4
    x = rng.multivariate_normal(np.zeros(10), cov, size=n)
    dependent = {frozenset(map(str, e)) for e in np.argwhere(np.triu(cov, 1) != 0)}
    return pd.DataFrame(x, columns=[str(j) for j in range(10)]), dependent


def test_shared_null_is_the_copula_statistic_on_permuted_ranks():
    u = np.arange(300.0)
    cfg, _ = make_config([as_variable(u, "u")] * 2, "copula", {}, seed=3, n_permutations=40)
    null = shared_null(cfg)
    from infometer.workflows.allpairs.compute import permutations

    ref = sorted(im.mutual_info(u, u[p], method="gaussian_copula").value for p in permutations(cfg))
    assert np.allclose(null, ref, atol=1e-12)


@pytest.mark.parametrize("method, ranks", [("copula", False), ("ksg", True)])
def test_rank_statistics_use_one_shared_null_and_find_the_dependent_pairs(method, ranks):
    df, dependent = blocks_gaussian(1500, seed=1)
    res = pairwise(df, method=method, ranks=ranks, n_permutations=199, alpha=0.05)
    assert res.diagnostics["null"]["shared_pairs"] == 45
    assert res.diagnostics["null"]["own_null_pairs"] == 0
    found = {frozenset((r.x, r.y)) for r in res.significant_edges.itertuples()}
    # rho >= 0.4 at n = 1500 gives MI >= 0.087 nats: 4.5 null sd for KSG (sd 0.019 at this
    # n, measured), 60 for the copula (sd ~ 1/n); each of the 37 independent pairs beats
    # all 199 nulls with probability 1/200, so a few false discoveries may occur
    assert dependent <= found
    assert len(found - dependent) <= 3
    p = res.edges.set_index(["x", "y"]).p_value
    assert p.min() == pytest.approx(1 / 200)
    assert res.p_values.loc["0", "1"] == res.p_values.loc["1", "0"]


def test_pair_nulls_and_the_shared_null_agree_under_independence():
    """Under H0 both schemes give (about) uniform p-values; compare their distributions."""
    rng = np.random.default_rng(12)
    x = rng.standard_normal((200, 30))  # 435 independent pairs
    shared = pairwise(x, method="copula", n_permutations=99, null="auto")
    own = pairwise(x, method="copula", n_permutations=99, null="pair")
    assert own.diagnostics["null"]["own_null_pairs"] == 435
    for res in (shared, own):
        p = res.edges.p_value.to_numpy()
        # p-values are discrete (k/100) and pairs share columns; a KS distance of 0.12 at
        # 435 values is beyond p = 1e-5 for independent uniforms
        assert stats.kstest(p, "uniform").statistic < 0.12
        assert 5 <= np.sum(p <= 0.05) <= 45  # binomial(435, 0.05): mean 22, sd 4.5
        assert res.edges.significant.sum() <= 2


def test_ksg_pair_nulls_ties_and_constant_columns():
    rng = np.random.default_rng(3)
    n = 300
    a = rng.standard_normal(n)
    df = pd.DataFrame(
        {
            "a": a,
            "b": np.round(a + rng.standard_normal(n), 1),  # ties: jittered, own null
            "c": rng.standard_normal(n),
            "k": np.zeros(n),
        }
    )
    res = pairwise(df, method="ksg", n_permutations=49)
    e = res.edges.set_index(["x", "y"])
    assert e.loc[("a", "b"), "p_value"] == pytest.approx(1 / 50)
    assert e.loc[("a", "c"), "p_value"] > 0.05
    assert e.loc[("a", "k"), "p_value"] == 1.0 and e.loc[("a", "k"), "value"] == 0.0
    assert res.diagnostics["null"]["shared_pairs"] == 0  # KSG on values is not rank-based


def test_conditional_tests_respect_the_given_variable():
    """Chain X -> Y -> Z and W <- X: given Y, X and Z are independent, X and W are not."""
    rng = np.random.default_rng(8)
    n = 800
    x = rng.standard_normal(n)
    y = x + 0.6 * rng.standard_normal(n)
    z = y + 0.6 * rng.standard_normal(n)
    w = x + rng.standard_normal(n)
    df = pd.DataFrame({"x": x, "y": y, "z": z, "w": w})
    for method in ("copula", "auto"):
        res = pairwise(df, method=method, given="y", n_permutations=49)
        assert res.diagnostics["null"]["scheme"].startswith("local conditional permutation")
        e = res.edges.set_index(["x", "y"]).p_value
        assert e[("x", "w")] == pytest.approx(1 / 50)  # I(X;W|Y) > 0
        assert e[("x", "z")] > 0.05  # I(X;Z|Y) = 0
    # discrete given: permutations within its strata
    df["s"] = (y > 0).astype(int)
    res = pairwise(df[["x", "w", "s"]], method="auto", given="s", n_permutations=19)
    assert res.diagnostics["null"]["scheme"] == "permutation within strata of given"
