"""The floor of the network searches (benchmarks/_floors.py ``network_floor``) is a correct
program: its statistics equal closed forms on a tiny system, and equal the library's on the
tests a real search made (recorded by benchmarks/_netrecord.py), with the same decisions.
The recorder leaves the library as it was: same results, nothing patched after its block.

Tolerances: every comparison is between two float64 routes to the same sample quantity
(least-squares residuals vs. a correlation-matrix formula or log-determinants) on
well-conditioned data of 200-400 rows: they agree to a few hundred ulps (1e-13 in the
statistics); 1e-12 leaves an order of magnitude.  Permutation p-values are counts and are
compared exactly (a tie within 1e-13 of the observed value would need a permutation that
reproduces the data's correlation to 13 digits).
"""

from __future__ import annotations

import importlib.util
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import infometer as im
from infometer.measures.dynamics import _algorithms as A
from infometer.measures.timeseries import _engine as E

_BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"bench{name}", _BENCH / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


F = _load("_floors")
R = _load("_netrecord")


def _tiny(n: int = 200, seed: int = 1) -> np.ndarray:
    """Three series: y_t depends on x_{t-1} and z_{t-1}, x on z (so conditioning matters)."""
    rng = np.random.default_rng(seed)
    d = rng.normal(size=(n, 3))
    d[:, 1] += 0.6 * d[:, 2]
    d[1:, 0] += 0.8 * d[:-1, 1] - 0.4 * d[:-1, 2]
    return d


def _by_hand(y, x, z):
    """Sample partial correlation of (y, x) given one z from the pairwise correlations, and
    Gaussian CMI from the log-determinants of the sample covariances."""
    c = np.corrcoef(np.column_stack([y, x, z]), rowvar=False)
    ryx, ryz, rxz = c[0, 1], c[0, 2], c[1, 2]
    r = (ryx - ryz * rxz) / np.sqrt((1 - ryz**2) * (1 - rxz**2))
    s = np.cov(np.column_stack([y, x, z]), rowvar=False)

    def ld(idx):
        return np.linalg.slogdet(s[np.ix_(idx, idx)])[1]

    cmi = 0.5 * (ld([1, 2]) + ld([0, 2]) - ld([0, 1, 2]) - ld([2]))
    return r, cmi


# engine 0: target 0 at t = 1..n-1; columns x = series 1 at lag 1, z = series 2 at lag 1
ENGINES = [(0, [(1, 1), (2, 1)], 1)]


def _cols(d):
    return d[1:, 0], d[:-1, 1], d[:-1, 2]


def test_parcorr_equals_the_correlation_formula_and_the_log_dets():
    d = _tiny()
    y, x, z = _cols(d)
    r, cmi = _by_hand(y, x, z)
    step = R.Step("parcorr", 0, [0], [[1]])
    [(vals, null, p)] = F.network_floor(d, ENGINES, [], [step])
    assert null is None
    assert vals[0] == pytest.approx(-0.5 * np.log1p(-(r**2)), abs=1e-12)
    assert vals[0] == pytest.approx(cmi, abs=1e-12)
    dof = len(y) - 3
    t = abs(r) * np.sqrt(dof / (1 - r**2))
    assert p[0] == pytest.approx(2 * stats.t.sf(t, dof), rel=1e-10)
    assert p[0] < 0.01  # the tiny system has the dependence: the check is not on a null


def test_parcorr_without_conditions_is_pearsons_test():
    d = _tiny()
    y, x, _ = _cols(d)
    step = R.Step("parcorr", 0, [0], [[]])
    [(vals, _, p)] = F.network_floor(d, ENGINES, [], [step])
    res = stats.pearsonr(y, x)  # scipy's own route (the beta distribution)
    assert vals[0] == pytest.approx(-0.5 * np.log1p(-(res.statistic**2)), abs=1e-12)
    assert p[0] == pytest.approx(res.pvalue, rel=1e-9)


def test_permutation_step_uses_the_recorded_permutations():
    d = _tiny()
    y, x, z = _cols(d)
    state = np.random.default_rng(7).bit_generator.state
    pools = [(state, len(y), 20)]
    step = R.Step("max", 0, [0], [[1]], pool=0, n_perm=20)
    [(vals, null, p)] = F.network_floor(d, ENGINES, pools, [step])
    [(_, null2, _)] = F.network_floor(d, ENGINES, pools, [step], projected=True)
    perms = np.random.default_rng(7).permuted(
        np.broadcast_to(np.arange(len(y)), (20, len(y))), axis=1
    )
    want = [_by_hand(y, x[q], z)[1] for q in perms]
    np.testing.assert_allclose(null[:, 0], want, rtol=0, atol=1e-12)
    np.testing.assert_allclose(null2[:, 0], want, rtol=0, atol=1e-12)
    assert vals[0] == pytest.approx(_by_hand(y, x, z)[1], abs=1e-12)
    assert p[0] == (1 + np.sum(np.asarray(want) >= vals[0])) / 21


def _search(method: str, **kw):
    d = _tiny(400, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = im.infer_network(d, method=method, cmi="gaussian", progress=False, **kw)
        with R.recording() as rec:
            net = im.infer_network(d, method=method, cmi="gaussian", progress=False, **kw)
    return plain, net, rec


@pytest.mark.parametrize(
    ("method", "kw", "levels", "kinds"),
    [
        (
            "mte",
            {"max_lag": 2, "n_permutations": 60, "n_permutations_omnibus": 80},
            (0.05,),
            {"max", "min", "omnibus", "stepdown"},
        ),
        ("pcmci", {"max_lag": 2}, (0.05, 0.2), {"parcorr"}),
        ("pcmciplus", {"max_lag": 2, "alpha": 0.01}, (0.01,), {"parcorr"}),
    ],
)
@pytest.mark.parametrize("projected", [False, True])
def test_floor_replays_a_search_with_the_library_statistics(method, kw, levels, kinds, projected):
    plain, net, rec = _search(method, **kw)
    # the recorder changes nothing: same edges, same p-values
    assert net.edge_set() == plain.edge_set() and len(net.edges) > 0
    np.testing.assert_array_equal(net.edges["p_value"], plain.edges["p_value"])
    assert {s.kind for s in rec.steps} == kinds
    replay = F.network_floor(rec.data, rec.engines, rec.pools, rec.steps, projected)
    check = R.compare(rec, replay, levels)
    assert check["tests"] == len(rec.steps) > 5
    assert check["max |d value|"] <= 1e-12
    assert check["max |d surrogate|"] <= 1e-12
    assert check["decisions differing"] == 0
    if method == "mte":
        assert check["max |d p|"] == 0.0  # permutation counts
    else:
        assert check["max |d p|"] <= 1e-12


def test_recorder_restores_what_it_patched():
    before = (A._engine, A.ci_test, A.include, A.LinkTests._gram_test, E.GaussianEngine.single)
    _search("pcmci", max_lag=1)
    after = (A._engine, A.ci_test, A.include, A.LinkTests._gram_test, E.GaussianEngine.single)
    assert before == after


def test_floor_detects_a_wrong_statistic():
    """The comparison is not vacuous: a replay off by 1e-9 in one value is reported."""
    _, _, rec = _search("pcmci", max_lag=1)
    replay = F.network_floor(rec.data, rec.engines, rec.pools, rec.steps)
    vals, null, p = replay[3]
    replay[3] = ([vals[0] + 1e-9], null, p)
    assert R.compare(rec, replay, (0.05,))["max |d value|"] > 5e-10
