"""Network inference: closed-form CMI kernels, recovery of known graphs, calibration."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import infometer as im
from infometer.core.data import InfometerWarning
from infometer.measures.dynamics import simulate
from infometer.measures.dynamics._embed import lag_matrix, present_rows
from infometer.measures.dynamics._engine import GaussianEngine, RegistryEngine
from infometer.measures.dynamics._select import permutations


def _chain(n: int, seed: int) -> np.ndarray:
    """0 -> 1 -> 2 at lag 1 (each AR(1) with 0.4 self-coupling)."""
    a = np.zeros((1, 3, 3))
    a[0][np.diag_indices(3)] = 0.4
    a[0, 1, 0] = 0.6
    a[0, 2, 1] = 0.6
    return simulate.var(a, n, seed=seed)


def _embedded(x: np.ndarray, target: int, items, max_lag: int):
    t = present_rows(x.shape[0], max_lag)
    return x[t, target], lag_matrix(x, items, t)


def test_gaussian_engine_is_the_log_det_cmi_of_the_same_rows():
    x = _chain(800, seed=0)
    items = [(0, 1), (1, 1), (2, 1), (0, 2), (1, 2)]
    y, cols = _embedded(x, 2, items, 2)
    eng = GaussianEngine(y, cols)
    reg = RegistryEngine(y, cols, "gaussian", False, {"bias_correct": False})
    for cond in ([], [2], [2, 0, 4]):
        cands = [c for c in range(5) if c not in cond]
        np.testing.assert_allclose(eng.single(cands, cond), reg.single(cands, cond), atol=1e-10)
        np.testing.assert_allclose(
            eng.joint(cands[:2], cond), reg.joint(cands[:2], cond), atol=1e-10
        )
    perms = permutations(np.random.default_rng(1), eng.n, 7)
    # surrogates: the CMI of the candidate column with its rows permuted, computed directly
    direct = np.array(
        [
            [
                GaussianEngine(y, np.column_stack([cols[p, c], cols[:, 2]])).single([0], [1])[0]
                for c in (0, 1)
            ]
            for p in perms.p
        ]
    )
    np.testing.assert_allclose(eng.single_surrogates([0, 1], [2], perms), direct, atol=1e-10)
    joint = np.array(
        [
            GaussianEngine(y, np.column_stack([cols[p][:, [0, 1]], cols[:, 2]])).joint([0, 1], [2])
            for p in perms.p
        ]
    )
    np.testing.assert_allclose(eng.joint_surrogates([0, 1], [2], perms), joint, atol=1e-10)


def test_mte_recovers_a_5_node_var_with_lags_1_to_3():
    a, truth = simulate.random_var(5, 6, lags=(1, 2, 3), seed=11)
    x = simulate.var(a, 1500, seed=12)
    net = im.infer_network(x, method="mte", max_lag=3, cmi="gaussian", n_permutations=100, seed=0)
    found = net.edge_set()
    assert set(truth) <= found  # recall 1 (weakest link ~0.02 nats, p ~ 1e-10 at n = 1500)
    assert len(found - set(truth)) <= 1  # family-wise alpha per target: ~0.25 expected FPs
    assert list(net.edges.columns) == [
        "source",
        "target",
        "lag",
        "estimate",
        "p_value",
        "p_corrected",
    ]
    assert (net.edges["p_value"] <= net.edges["p_corrected"] + 1e-15).all()


def test_mte_edge_estimates_are_the_closed_form_conditional_te():
    a, truth = simulate.random_var(4, 4, lags=(1, 2), seed=5)
    x = simulate.var(a, 20000, seed=6)
    net = im.infer_network(
        x, method="mte", max_lag=2, cmi="gaussian", n_permutations=50, n_permutations_omnibus=50
    )
    assert net.edge_set() == set(truth)
    for row, tgt in zip(net.targets.itertuples(), range(4), strict=True):
        srcs = [
            (int(s[1:]), int(g))
            for s, t, g in zip(net.edges.source, net.edges.target, net.edges.lag, strict=True)
            if t == row.target
        ]
        past = [(tgt, g) for g in row.target_lags]
        for s in srcs:
            others = [o for o in srcs if o != s]
            items = [(tgt, 0), s] + past + others
            c = simulate.var_lagged_cov(a, items)
            exact = simulate.gaussian_cond_mutual_info(c, [1], [0], list(range(2, len(items))))
            got = net.edges[
                (net.edges.target == row.target)
                & (net.edges.source == f"x{s[0]}")
                & (net.edges.lag == s[1])
            ].estimate.iloc[0]
            # Gaussian CMI at n = 2e4: sd ~ sqrt(2 I / n) + 1/n bias -> 0.006 covers > 4 sd
            assert abs(got - exact) < 0.006


def test_bivariate_te_sees_the_indirect_link_that_mte_explains_away():
    x = _chain(3000, seed=3)
    mte = im.infer_network(x, method="mte", max_lag=2, cmi="gaussian", n_permutations=100)
    biv = im.infer_network(x, method="bivariate_te", max_lag=2, cmi="gaussian", n_permutations=100)
    assert mte.edge_set() == {(0, 1, 1), (1, 2, 1)}
    assert (0, 2, 2) in biv.edge_set()  # x0(t-2) -> x1(t-1) -> x2(t): only given x1 is it gone


def test_pcmci_recovers_the_var_and_drops_the_indirect_link():
    a, truth = simulate.random_var(5, 6, lags=(1, 2, 3), seed=11)
    x = simulate.var(a, 1500, seed=12)
    net = im.infer_network(x, method="pcmci", max_lag=3, cmi="gaussian", pc_alpha=0.2)
    found = net.edge_set()
    assert set(truth) <= found
    assert len(found - set(truth)) <= 3  # 60 cross-link tests at alpha = 0.05, BH-corrected
    chain = im.infer_network(_chain(3000, seed=3), method="pcmci", max_lag=2, cmi="gaussian")
    assert chain.edge_set() == {(0, 1, 1), (1, 2, 1)}


def test_discrete_boolean_network_is_recovered_with_the_plugin_cmi():
    x, truth = simulate.boolean_network(5, 2, 800, flip=0.05, seed=1)
    net = im.infer_network(
        x, method="mte", max_lag=2, n_permutations=50, n_permutations_omnibus=100
    )
    assert net.cmi == "plugin"
    assert net.edge_set() == set(truth)


def test_coupled_logistic_maps_are_recovered_from_their_binned_values():
    truth = [(0, 1, 1), (1, 2, 1), (2, 3, 2), (3, 0, 1)]
    y = simulate.logistic_network(4, truth, 1000, seed=2)
    net = im.infer_network(np.floor(y * 4).astype(int), method="mte", max_lag=2, n_permutations=50)
    assert net.edge_set() == set(truth)


def test_null_network_false_positive_rate_is_within_its_binomial_interval():
    # 12 independent AR(1) nodes x 6 seeds = 72 targets; each target's omnibus test (after the
    # max-statistic selection) is a level-alpha test of "no parents" (no FDR here)
    hits = tests = 0
    for seed in range(6):
        a = np.zeros((1, 12, 12))
        a[0][np.diag_indices(12)] = 0.5
        x = simulate.var(a, 400, seed=100 + seed)
        net = im.infer_network(
            x,
            method="mte",
            max_lag=2,
            cmi="gaussian",
            n_permutations=100,
            n_permutations_omnibus=100,
            correction="none",
            seed=seed,
        )
        hits += int(net.targets.significant.sum())
        tests += len(net.targets)
    lo, hi = stats.binom.ppf([0.0005, 0.9995], tests, 0.05)
    assert lo <= hits <= hi, (hits, tests)


def test_same_seed_same_network_and_result_api(tmp_path):
    x = pd.DataFrame(_chain(600, seed=4), columns=["a", "b", "c"])
    r1 = im.infer_network(x, max_lag=2, n_permutations=50, seed=3)
    r2 = im.infer_network(x, max_lag=2, n_permutations=50, seed=3)
    pd.testing.assert_frame_equal(r1.edges, r2.edges)
    bits = im.infer_network(x, max_lag=2, n_permutations=50, seed=3, unit="bits")
    np.testing.assert_allclose(bits.edges.estimate * np.log(2), r1.edges.estimate, rtol=1e-12)
    assert r1.nodes == ("a", "b", "c")
    adj = r1.adjacency
    assert adj.shape == (3, 3) and adj[0, 1] > 0 and adj[1, 2] > 0 and adj[1, 0] == 0
    assert r1.lag_adjacency[0, 1, 1]
    g = r1.to_networkx()
    assert set(g.edges(keys=True)) == {("a", "b", 1), ("b", "c", 1)}
    ax = r1.plot(path=tmp_path / "net.png")
    assert (tmp_path / "net.png").stat().st_size > 1000
    assert ax is not None


@pytest.mark.slow
def test_parallel_targets_give_the_same_network():
    x = _chain(600, seed=4)
    r1 = im.infer_network(x, max_lag=2, n_permutations=50)
    r2 = im.infer_network(x, max_lag=2, n_permutations=50, n_jobs=2)
    pd.testing.assert_frame_equal(r1.edges, r2.edges)
    # the same through the one execution object shared with pairwise and bench
    r3 = im.infer_network(x, max_lag=2, n_permutations=50, execution=im.Execution(n_jobs=2))
    pd.testing.assert_frame_equal(r1.edges, r3.edges)


def test_execution_beside_its_shorthands_is_refused():
    x = _chain(100, seed=4)
    with pytest.raises(TypeError, match=r"execution= and n_jobs="):
        im.infer_network(x, max_lag=1, n_jobs=2, execution=im.Execution())
    with pytest.raises(TypeError, match="execution must be an infometer.Execution"):
        im.infer_network(x, max_lag=1, execution={"n_jobs": 2})
    with pytest.raises(ValueError, match="n_jobs"):
        im.infer_network(x, max_lag=1, n_jobs=0)


@pytest.mark.slow
def test_ksg_network_on_logistic_maps():
    truth = [(0, 1, 1), (1, 2, 1)]
    y = simulate.logistic_network(3, truth, 500, seed=2)
    # k = 8 neighbours: at the default k = 3 the KSG CMI of these wrapped maps is biased
    # up by ~0.06 nats for a true 0 (x1 -> x0), which any permutation test then reports
    net = im.infer_network(
        y,
        method="mte",
        max_lag=1,
        cmi="ksg1",
        n_permutations=30,
        n_permutations_omnibus=40,
        null="local",
        k=8,
    )
    assert net.edge_set() == set(truth)


def _bad(kind: str):
    rng = np.random.default_rng(0)
    good = rng.normal(size=(200, 3))
    if kind == "unequal":
        return {"a": good[:, 0], "b": good[:150, 1]}, {}, ValueError, "unequal lengths"
    if kind == "nan":
        g = good.copy()
        g[17, 1] = np.nan
        return g, {}, ValueError, "first at row 17"
    if kind == "max_lag":
        return good, {"max_lag": 100}, ValueError, "half the length"
    if kind == "text":
        return pd.DataFrame({"a": good[:, 0], "b": ["u"] * 200}), {}, TypeError, "'b'.*not numeric"
    if kind == "too_many":
        return rng.normal(size=(400, 60)), {"max_lag": 40}, ValueError, "above the limit"
    if kind == "method":
        return good, {"method": "granger"}, ValueError, "method must be one of"
    if kind == "cmi":
        return good, {"cmi": "plugin"}, ValueError, "takes discrete data"
    if kind == "one_series":
        return {"a": good[:, 0], "b": np.ones(200)}, {}, ValueError, "at least 2 non-constant"
    raise AssertionError(kind)


@pytest.mark.parametrize(
    "kind", ["unequal", "nan", "max_lag", "text", "too_many", "method", "cmi", "one_series"]
)
def test_bad_input_is_refused_with_a_clear_message(kind):
    data, kw, exc, match = _bad(kind)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InfometerWarning)
        with pytest.raises(exc, match=match):
            im.infer_network(data, **kw)


def test_a_constant_series_warns_and_is_left_out():
    x = _chain(500, seed=1)
    data = {"a": x[:, 0], "b": x[:, 1], "flat": np.full(500, 2.0)}
    with pytest.warns(InfometerWarning, match="'flat'.*constant"):
        net = im.infer_network(data, max_lag=1, n_permutations=50)
    assert net.nodes == ("a", "b")
    assert net.diagnostics["constant_series"] == ["flat"]
    assert (0, 1, 1) in net.edge_set()


def test_discrete_engine_is_the_registry_plugin_cmi():
    from infometer.measures.dynamics._engine import DiscreteEngine

    x, _ = simulate.boolean_network(4, 2, 600, seed=3)
    items = [(0, 1), (1, 1), (2, 1), (3, 1), (0, 2)]
    y, cols = _embedded(x, 2, items, 2)
    eng = DiscreteEngine(y, cols)
    reg = RegistryEngine(y, cols, "plugin", True)
    perms = permutations(np.random.default_rng(2), eng.n, 20)
    for cond in ([], [2], [2, 0, 4]):
        cands = [c for c in range(5) if c not in cond]
        np.testing.assert_allclose(eng.single(cands, cond), reg.single(cands, cond), atol=1e-12)
        np.testing.assert_allclose(
            eng.single_surrogates(cands, cond, perms),
            reg.single_surrogates(cands, cond, perms),
            atol=1e-12,
        )
        np.testing.assert_allclose(
            eng.joint(cands[:2], cond), reg.joint(cands[:2], cond), atol=1e-12
        )
        np.testing.assert_allclose(
            eng.joint_surrogates(cands[:2], cond, perms),
            reg.joint_surrogates(cands[:2], cond, perms),
            atol=1e-12,
        )


def test_store_resumes_and_refuses_another_analysis(tmp_path):
    x = _chain(600, seed=4)
    first = im.infer_network(x, max_lag=2, n_permutations=50, store=tmp_path / "s")
    targets = tmp_path / "s" / "targets"
    files = sorted(p.name for p in targets.glob("te-*.json"))
    assert files == ["te-0.json", "te-1.json", "te-2.json"]
    (targets / "te-1.json").unlink()
    keep = (targets / "te-0.json").stat().st_mtime_ns
    again = im.infer_network(x, max_lag=2, n_permutations=50, store=tmp_path / "s")
    pd.testing.assert_frame_equal(first.edges, again.edges)
    assert (targets / "te-1.json").exists()
    assert (targets / "te-0.json").stat().st_mtime_ns == keep  # not recomputed
    with pytest.raises(ValueError, match="another network inference .* differs in max_lag"):
        im.infer_network(x, max_lag=1, n_permutations=50, store=tmp_path / "s")
    p = im.infer_network(x, method="pcmci", max_lag=2, store=tmp_path / "p")
    assert p.edge_set() == im.infer_network(x, method="pcmci", max_lag=2).edge_set()


def test_targets_subset_and_trials():
    x = pd.DataFrame(_chain(800, seed=5), columns=["a", "b", "c"])
    sub = im.infer_network(x, max_lag=1, n_permutations=50, targets=["b"])
    assert list(sub.targets.target) == ["b"]
    assert sub.edge_set() == {(0, 1, 1)}
    with pytest.raises(ValueError, match="unknown target 'zz'"):
        im.infer_network(x, max_lag=1, targets=["zz"])
    # 4 trials of 200 rows: no lag reaches across a trial boundary (rows per trial - max_lag)
    tr = im.infer_network(x, max_lag=2, n_permutations=50, trials=4)
    assert set(tr.targets.rows) == {4 * (200 - 2)}
    assert (0, 1, 1) in tr.edge_set()
