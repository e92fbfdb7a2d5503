"""PCMCI+ (method="pcmciplus"): exact ground truth from a d-separation oracle on the known
time-series graph, hand-derived orientations (colliders, R1, unorientable links), the
conflict / ambiguity marks on a given independence model, data runs and bad input."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

import infometer as im
from infometer.measures.dynamics._algorithms import pc1
from infometer.measures.dynamics._pcmciplus import pcmciplus_graph

# --------------------------------------------------------------------------- the oracle


class DSepOracle:
    """CI test X_i(t - tau) _||_ X_j(t) | Z by d-separation in the time-series DAG of
    ``links`` {(i, j, lag)} (X_i(t - lag) -> X_j(t)), unrolled over ``window`` steps (the
    d-connecting paths of these small graphs span a few max lags; the earliest slices
    only lose paths far in the past)."""

    def __init__(self, n: int, links: set[tuple[int, int, int]], window: int = 24):
        self.t = window - 1
        g = nx.DiGraph()
        g.add_nodes_from((k, s) for k in range(n) for s in range(window))
        for i, j, lag in links:
            for s in range(lag, window):
                g.add_edge((i, s - lag), (j, s))
        self.g = g

    def __call__(self, i, tau, j, z):
        zs = {(k, self.t - lag) for k, lag in z}
        sep = nx.is_d_separator(self.g, {(i, self.t - tau)}, {(j, self.t)}, zs)
        return (0.0, 1.0) if sep else (1.0, 0.0)


def oracle_pcmciplus(n: int, links: set, tau_max: int) -> np.ndarray:
    """PCMCI+ with the oracle for every test, PC1 included (alpha 0.5: p is 0 or 1)."""
    test = DSepOracle(n, links)
    parents = {}
    for j in range(n):
        cands = [(i, g) for g in range(1, tau_max + 1) for i in range(n)]
        parents[j], _ = pc1(cands, lambda c, cond, j=j: test(c[0], c[1], j, tuple(cond)), 0.5)
    return pcmciplus_graph(n, test, parents, tau_min=0, tau_max=tau_max, alpha=0.5)["graph"]


def expected(n: int, tau_max: int, directed=(), unoriented=()) -> np.ndarray:
    g = np.full((n, n, tau_max + 1), "", dtype="<U3")
    for i, j, lag in directed:
        g[i, j, lag] = "-->"
        if lag == 0:
            g[j, i, 0] = "<--"
    for i, j in unoriented:
        g[i, j, 0] = g[j, i, 0] = "o-o"
    return g


# Runge (2020)'s example: X -> Y and X -> Z contemporaneous, Y(t-1) -> Z(t), all
# autocorrelated.  Every contemporaneous link is oriented by a collider with the
# target's own past (Y(t-1) -> Y(t) <- X(t), Y(t-1) not adjacent to X(t)).
RUNGE = {(0, 0, 1), (1, 1, 1), (2, 2, 1), (0, 1, 0), (0, 2, 0), (1, 2, 1)}


def test_oracle_runge_example_is_the_true_graph():
    g = oracle_pcmciplus(3, RUNGE, tau_max=2)
    assert (g == expected(3, 2, directed=RUNGE)).all()


@pytest.mark.parametrize(
    ("links", "directed", "unoriented", "why"),
    [
        # X(t) -> Y(t), no autocorrelation: the Markov class cannot orient it
        ({(0, 1, 0)}, set(), {(0, 1)}, "unorientable"),
        # X autocorrelated only: X(t-1) -> X(t) o-o Y(t), X(t-1) separated from Y(t) by
        # X(t): R1 orients X(t) -> Y(t)
        ({(0, 0, 1), (0, 1, 0)}, {(0, 0, 1), (0, 1, 0)}, set(), "R1"),
        # Y autocorrelated only: Y(t-1) -> Y(t) <- X(t), a collider (marginal independence)
        ({(1, 1, 1), (0, 1, 0)}, {(1, 1, 1), (0, 1, 0)}, set(), "collider"),
        # contemporaneous chain X - Y - Z with no past at all: one Markov class, unoriented
        ({(0, 1, 0), (1, 2, 0)}, set(), {(0, 1), (1, 2)}, "chain"),
        # contemporaneous collider X(t) -> Z(t) <- Y(t), then R1 on Z(t) -> W(t)
        (
            {(0, 2, 0), (1, 2, 0), (2, 3, 0)},
            {(0, 2, 0), (1, 2, 0), (2, 3, 0)},
            set(),
            "v-structure + R1",
        ),
        # R2: X(t) -> Y(t) by a lagged collider, Y(t) -> Z(t) by R1, X(t) - Z(t) then by R2
        (
            {(1, 1, 1), (0, 1, 0), (1, 2, 0), (0, 2, 0)},
            {(1, 1, 1), (0, 1, 0), (1, 2, 0), (0, 2, 0)},
            set(),
            "R2",
        ),
        # lagged links only, with an indirect path X(t-1) -> Y(t) -> Z(t+1)
        ({(0, 1, 1), (1, 2, 1), (0, 0, 1)}, {(0, 1, 1), (1, 2, 1), (0, 0, 1)}, set(), "lagged"),
    ],
)
def test_oracle_returns_the_markov_equivalence_class(links, directed, unoriented, why):
    n = 1 + max(max(i, j) for i, j, _ in links)
    g = oracle_pcmciplus(n, links, tau_max=2)
    assert (g == expected(n, 2, directed=directed, unoriented=unoriented)).all(), why


def test_oracle_r3():
    # I o-o K, I o-o L, K -> J <- L (collider, K and L not adjacent), I o-o J: R3 orients
    # I -> J.  Contemporaneous DAG I->K, I->L, K->J, L->J, I->J: its class orients only the
    # v-structure and, by R3, I -> J; I - K and I - L stay unoriented.
    i, k, l, j = 0, 1, 2, 3
    links = {(i, k, 0), (i, l, 0), (k, j, 0), (l, j, 0), (i, j, 0)}
    g = oracle_pcmciplus(4, links, tau_max=1)
    want = expected(4, 1, directed={(k, j, 0), (l, j, 0), (i, j, 0)}, unoriented={(i, k), (i, l)})
    assert (g == want).all()


# ------------------------------------------------- conflicts and ambiguity (given models)


def listed_model(statements: set[tuple[int, int, frozenset]]):
    """A CI test that holds exactly the listed contemporaneous independences
    {(a, b, frozenset of conditioning processes)} (not faithful to any DAG)."""

    def test(i, tau, j, z):
        key = (min(i, j), max(i, j), frozenset(k for k, _ in z))
        return (0.0, 1.0) if tau == 0 and key in statements else (1.0, 0.0)

    return test


def test_conflicting_colliders_are_marked_xx():
    # a - b - c - d with a _||_ c and b _||_ d marginally: colliders at b (a -> b <- c) and
    # at c (b -> c <- d) orient b - c both ways: x-x (Tigramite's conflict_resolution)
    e = frozenset()
    test = listed_model({(0, 2, e), (1, 3, e), (0, 3, e)})
    out = pcmciplus_graph(4, test, {j: [] for j in range(4)}, tau_min=0, tau_max=1, alpha=0.5)
    g = out["graph"][:, :, 0]
    assert g[0, 1] == "-->" and g[1, 0] == "<--"
    assert g[3, 2] == "-->" and g[2, 3] == "<--"
    assert g[1, 2] == "x-x" and g[2, 1] == "x-x"
    assert g[0, 2] == g[0, 3] == g[1, 3] == ""


def test_majority_tie_leaves_the_triple_ambiguous_and_unoriented():
    # a _||_ c given {} and given {b}: b is in half of the separating sets -> ambiguous,
    # so neither the collider nor R1 may orient a - b - c
    test = listed_model({(0, 2, frozenset()), (0, 2, frozenset({1}))})
    out = pcmciplus_graph(3, test, {j: [] for j in range(3)}, tau_min=0, tau_max=1, alpha=0.5)
    g = out["graph"][:, :, 0]
    assert g[0, 1] == g[1, 0] == g[1, 2] == g[2, 1] == "o-o" and g[0, 2] == ""
    assert out["ambiguous_triples"]


# ------------------------------------------------------------------------------ on data


def runge_data(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    e = rng.normal(size=(n + 100, 3))
    x = np.zeros_like(e)
    for t in range(1, n + 100):
        x[t, 0] = 0.8 * x[t - 1, 0] + e[t, 0]
        x[t, 1] = 0.8 * x[t - 1, 1] + 0.5 * x[t, 0] + e[t, 1]
        x[t, 2] = 0.8 * x[t - 1, 2] - 0.5 * x[t - 1, 1] + 0.4 * x[t, 0] + e[t, 2]
    return x[100:]


def test_gaussian_recovers_runge_example_at_n2000():
    # every true link has |partial corr| >= 0.2 at N = 2000 (p < 1e-20); the ~19 absent
    # links are each kept with probability ~alpha = 0.01: the fixed seed's run is exact
    net = im.infer_network(runge_data(2000, 0), method="pcmciplus", max_lag=2, alpha=0.01)
    assert (net.graph == expected(3, 2, directed=RUNGE)).all()
    got = net.edges[["source", "target", "lag", "link"]].values.tolist()
    assert got == [["x0", "x1", 0, "-->"], ["x0", "x2", 0, "-->"], ["x1", "x2", 1, "-->"]]
    assert list(net.targets["self_lags"]) == [[1], [1], [1]]
    assert (net.edges["p_value"] < 1e-20).all()
    # the skeleton's p-value of a contemporaneous link is the larger of its two tests
    pm = net.diagnostics["p_matrix"]
    assert pm[0, 1, 0] == pm[1, 0, 0]
    # estimate = the CMI of the reported test: -1/2 log(1 - r^2) with r = 0.5 / sd's ~ 0.4
    assert 0.03 < net.edges["estimate"].min() and net.edges["estimate"].max() < 0.3


def test_unoriented_link_in_every_view():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(500, 2))
    x[:, 1] += 0.8 * x[:, 0]  # X(t) - Y(t), nothing to orient it
    net = im.infer_network(x, method="pcmciplus", max_lag=1, alpha=0.01)
    assert net.edges[["source", "target", "lag", "link"]].values.tolist() == [
        ["x0", "x1", 0, "o-o"]
    ]
    assert net.graph[0, 1, 0] == net.graph[1, 0, 0] == "o-o"
    a = net.adjacency
    assert a[0, 1] == a[1, 0] > 0
    assert net.lag_adjacency[0, 1, 0] and net.lag_adjacency[1, 0, 0]
    g = net.to_networkx()
    assert {(s, t, d["link"]) for s, t, d in g.edges(data=True)} == {
        ("x0", "x1", "o-o"),
        ("x1", "x0", "o-o"),
    }
    ax = net.plot()
    drawn = [p for p in ax.patches if p.get_gid() in ("-->", "o-o", "x-x")]
    assert [p.get_gid() for p in drawn] == ["o-o"]
    assert drawn[0].get_arrowstyle().__class__.__name__ == "Curve"  # no head


def test_discrete_plugin_orients_the_contemporaneous_link():
    # Y(t) copies X(t) (prob 0.7) or keeps Y(t-1): Y(t-1) -> Y(t) <- X(t), X iid
    rng = np.random.default_rng(5)
    n = 1500
    x = rng.integers(0, 2, n)
    y = np.zeros(n, dtype=np.int64)
    for t in range(1, n):
        y[t] = x[t] if rng.random() < 0.7 else y[t - 1]
    net = im.infer_network(
        np.column_stack([x, y]), method="pcmciplus", max_lag=1, n_permutations=100, alpha=0.02
    )
    assert net.cmi == "plugin"
    assert net.edges[["source", "target", "lag", "link"]].values.tolist() == [
        ["x0", "x1", 0, "-->"]
    ]
    assert list(net.targets["self_lags"]) == [[], [1]]


def test_pcmci_is_unchanged_by_the_tau_min_alias():
    x = runge_data(600, 1)
    a = im.infer_network(x, method="pcmci", max_lag=2)
    b = im.infer_network(x, method="pcmci", max_lag=2, tau_min=1)
    assert a.edges.equals(b.edges)
    assert "link" not in a.edges


# ------------------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"method": "pcmciplus", "tau_min": -1}, "tau_min"),
        ({"method": "pcmciplus", "tau_min": 3}, "tau_min"),
        ({"method": "mte", "tau_min": 0}, "contemporaneous.*mte"),
        ({"method": "bivariate_te", "min_lag": 0}, "contemporaneous.*bivariate_te"),
        ({"method": "pcmci", "tau_min": 0}, "contemporaneous.*pcmci"),
        ({"method": "pcmciplus", "tau_min": 0, "min_lag": 1}, "give one of them"),
        ({"method": "pcmciplus", "pc_alpha": 0.1}, "pc_alpha"),
    ],
)
def test_bad_lags_and_levels(kw, match):
    x = runge_data(300, 2)
    with pytest.raises(ValueError, match=match):
        im.infer_network(x, max_lag=2, **kw)


def test_skeleton_tests_are_budgeted():
    from infometer.measures.dynamics import _pcmciplus

    g = np.full((6, 6, 2), "", dtype="<U3")
    g[:, :, 0] = "o-o"
    g[np.arange(6), np.arange(6), 0] = ""
    always = listed_model(set())  # everything dependent: the contemporaneous graph stays full
    tester = _pcmciplus._Tester(always, {j: [] for j in range(6)}, 0.5, None, None)
    pm, vm = np.ones(g.shape), np.zeros(g.shape)
    with pytest.raises(ValueError, match="max_conds_dim"):
        _pcmciplus._skeleton(g, tester, 0, 1, None, pm, vm, max_tests=100)


def test_collider_subsets_are_budgeted():
    from infometer.measures.dynamics import _pcmciplus

    test = listed_model({(0, 2, frozenset())})
    with pytest.raises(ValueError, match="majority collider rule"):
        _pcmciplus.pcmciplus_graph(
            3, test, {j: [] for j in range(3)}, tau_min=0, tau_max=1, alpha=0.5, max_subsets=1
        )


def test_oracle_window_is_long_enough():
    # every query PCMCI+ asks on Runge's example gets the same answer when the unrolled
    # window doubles (24 -> 48 steps)
    small, big = DSepOracle(3, RUNGE, 24), DSepOracle(3, RUNGE, 48)
    asked = []

    def record(i, tau, j, z):
        asked.append((i, tau, j, z))
        return small(i, tau, j, z)

    parents = {}
    for j in range(3):
        cands = [(i, g) for g in range(1, 3) for i in range(3)]
        parents[j], _ = pc1(cands, lambda c, cond, j=j: record(c[0], c[1], j, tuple(cond)), 0.5)
    pcmciplus_graph(3, record, parents, tau_min=0, tau_max=2, alpha=0.5)
    assert len(asked) > 50
    for q in set(asked):
        assert small(*q) == big(*q)


def test_gram_parcorr_equals_the_qr_route():
    # the correlation-matrix ParCorr of PCMCI+'s tests against the engine's QR route (the
    # one PCMCI uses): equal to rounding; collinear conditions fall back to the QR route
    from infometer.measures.dynamics._algorithms import LinkTests, ci_test

    x = runge_data(800, 4)
    x = np.column_stack([x, x[:, 0] + x[:, 1]])  # a 4th series = x0 + x1: collinear
    s = {"max_lag": 1, "trials": 1, "cmi": "gaussian", "discrete": False, "cmi_params": {}}
    s |= {"seed": 0, "null": "permutation", "n_permutations": 10}
    lt = LinkTests(x, s)
    eng, index, gram = lt.engine(2)
    rng = np.random.default_rng(0)
    for cand, cond in [((0, 0), []), ((0, 1), [(1, 0)]), ((1, 1), [(0, 0), (2, 1), (1, 2)])]:
        fast = lt._gram_test(eng, gram, index[cand], [index[c] for c in cond])
        slow = ci_test(eng, index[cand], [index[c] for c in cond], 10, rng)
        assert fast == pytest.approx(slow, rel=1e-9, abs=1e-300)
    collinear = [index[(0, 0)], index[(1, 0)], index[(3, 0)]]
    assert lt._gram_test(eng, gram, index[(0, 1)], collinear) is None
    val, p = lt(0, 1, 2, ((0, 0), (1, 0), (3, 0)))  # answered by the QR route (rank 2)
    assert (val, p) == ci_test(eng, index[(0, 1)], collinear, 10, rng)


@pytest.mark.slow
def test_ksg_pcmciplus_finds_a_nonlinear_contemporaneous_link():
    # Y(t) = 0.6 Y(t-1) + X(t)^2 + noise, X iid: X(t)^2 (variance 2) dominates the noise
    # (variance 0.25), so every one of 30 permutations falls below the KSG CMI (p = 1/31,
    # the floor, < alpha); X(t) is independent of Y(t-1) (the collider that orients
    # X(t) -> Y(t)) and of its own past
    rng = np.random.default_rng(7)
    n = 300
    x, e, y = rng.normal(size=n), rng.normal(size=n), np.zeros(n)
    for t in range(1, n):
        y[t] = 0.6 * y[t - 1] + x[t] ** 2 + 0.5 * e[t]
    net = im.infer_network(
        np.column_stack([x, y]), method="pcmciplus", max_lag=1, cmi="ksg1", k=8, n_permutations=30
    )
    assert net.edges[["source", "target", "lag", "link"]].values.tolist() == [
        ["x0", "x1", 0, "-->"]
    ]
    assert net.edges["p_value"].iloc[0] == pytest.approx(1 / 31)
    assert list(net.targets["self_lags"]) == [[], [1]]


def test_store_targets_and_unit(tmp_path):
    x = runge_data(1000, 3)
    a = im.infer_network(x, method="pcmciplus", max_lag=2, alpha=0.01)
    first = im.infer_network(x, method="pcmciplus", max_lag=2, alpha=0.01, store=tmp_path)
    again = im.infer_network(x, method="pcmciplus", max_lag=2, alpha=0.01, store=tmp_path)
    assert a.edges.equals(first.edges) and a.edges.equals(again.edges)
    assert (a.graph == again.graph).all()
    assert "2 contemporaneous" in repr(a)
    # targets= keeps the links into x2; the algorithm still runs on every series
    only = im.infer_network(x, method="pcmciplus", max_lag=2, alpha=0.01, targets=["x2"])
    assert set(only.edges["target"]) == {"x2"}
    assert only.edges.equals(a.edges[a.edges["target"] == "x2"].reset_index(drop=True))
    bits = im.infer_network(x, method="pcmciplus", max_lag=2, alpha=0.01, unit="bits")
    np.testing.assert_allclose(bits.edges["estimate"], a.edges["estimate"] / np.log(2))


@pytest.mark.slow
def test_n_jobs_gives_the_same_graph():
    x = runge_data(1000, 3)
    a = im.infer_network(x, method="pcmciplus", max_lag=2, alpha=0.01)
    b = im.infer_network(x, method="pcmciplus", max_lag=2, alpha=0.01, n_jobs=2)
    assert a.edges.equals(b.edges) and (a.graph == b.graph).all()
