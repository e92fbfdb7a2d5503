"""Network-level error control of ``infer_network(correction=)`` (issue 38 §1).

Calibration on null networks (5 independent series, N = 250, max_lag 2, Gaussian CMI):
white noise and independent AR(1) with φ = 0.7, 40 networks each, alpha = 0.1.

* ``"fwer"``: the count of networks with any edge is Binomial(40, r) with r ≤ 0.1; the test
  asserts count ≤ 11, the 99.9% quantile of Binomial(40, 0.1) (expected ≤ 4).  The seeds
  are fixed, so the count is one number on a given platform; the bound leaves 7 networks of
  margin for a platform whose rounding flips a borderline permutation p-value.
* ``"none"`` on the same networks must show the per-target level's inflation (about
  1 − 0.9⁵ = 41% of networks): count ≥ 9, above the 97.5% quantile of Binomial(40, 0.1)
  (8), so the calibration test above can fail (a null that always passes would not).
* The FDR rules run over **every** analysed target: with p-values [0.03, 1, 1, 1, 1]
  no edge survives (infometer used to keep it), exact (a stubbed run).
* ``"fdr_bh"`` over the targets' gate p-values controls the network rate on null networks
  (FDR = FWER there): the same bound as ``"fwer"``.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import infometer as im
from infometer.measures.dynamics import network, simulate

NETS, N, D, ALPHA = 40, 250, 5, 0.1


def _nets(kind: str) -> list[np.ndarray]:
    out = []
    for k in range(NETS):
        if kind == "white":
            out.append(np.random.default_rng(700 + k).normal(size=(N, D)))
        else:
            a = np.zeros((1, D, D))
            a[0][np.diag_indices(D)] = 0.7
            out.append(simulate.var(a, N, seed=900 + k))
    return out


def _false_networks(kind: str, method: str, correction: str, perms: int = 100) -> int:
    hits = 0
    for k, x in enumerate(_nets(kind)):
        net = im.infer_network(
            x,
            method=method,
            max_lag=2,
            cmi="gaussian",
            alpha=ALPHA,
            correction=correction,
            n_permutations=perms,
            n_permutations_omnibus=perms,
            seed=k,
            progress=False,
        )
        hits += len(net.edges) > 0
    return hits


@pytest.mark.parametrize("kind", ["white", "ar1"])
@pytest.mark.parametrize(
    "method, correction", [("mte", "fwer"), ("pcmci", "fwer"), ("mte", "fdr_bh")]
)
def test_network_rules_keep_the_false_positive_rate_at_alpha(kind, method, correction):
    bound = stats.binom.ppf(0.999, NETS, ALPHA)
    assert bound == 11
    hits = _false_networks(kind, method, correction)
    assert hits <= bound, (kind, method, correction, hits)


@pytest.mark.parametrize("kind", ["white", "ar1"])
def test_per_target_level_inflates_the_network_rate(kind):
    # the contrast that makes the test above meaningful
    hits = _false_networks(kind, "mte", "none")
    assert hits >= 9 > stats.binom.ppf(0.975, NETS, ALPHA), (kind, hits)


def _stub(monkeypatch, omnibus: list[float]):
    """Target results as the jobs return them: target 0 with one edge, its omnibus and gate
    p-values at ``omnibus[0]``."""

    def fake_run(func, payloads, ex, desc, store=None):
        out = {}
        for j in payloads:
            p = omnibus[j]
            out[j] = {
                "target": j,
                "target_lags": [1],
                "omnibus_te": 0.1 if p < 1 else 0.0,
                "omnibus_p": p,
                "gate_p": p,
                "edges": [(1, 1, 0.1, 0.001)] if p < 1 else [],
                "rows": 100,
            }
        return out

    monkeypatch.setattr(network, "_run", fake_run)


@pytest.mark.parametrize(
    "correction, kept", [("none", 1), ("fdr_bh", 0), ("fdr_by", 0), ("fwer", 0)]
)
def test_fdr_runs_over_every_target(monkeypatch, correction, kept):
    _stub(monkeypatch, [0.03, 1.0, 1.0, 1.0, 1.0])
    x = np.random.default_rng(0).normal(size=(200, 5))
    kw = {"n_permutations": 200, "n_permutations_omnibus": 200}
    net = im.infer_network(x, max_lag=1, correction=correction, progress=False, **kw)
    assert len(net.edges) == kept
    expect = {"none": 0.03, "fdr_bh": 0.15, "fdr_by": 0.15 * 137 / 60, "fwer": 0.15}
    assert net.targets["p_corrected"].iloc[0] == pytest.approx(expect[correction])
    assert net.correction == correction


def test_a_strong_edge_survives_every_correction(monkeypatch):
    _stub(monkeypatch, [0.001, 1.0, 1.0, 1.0, 1.0])
    x = np.random.default_rng(0).normal(size=(200, 5))
    for corr in ("none", "fdr_bh", "fdr_by", "fwer"):
        net = im.infer_network(x, max_lag=1, correction=corr, progress=False)
        assert len(net.edges) == 1, corr
        assert net.edges["p_corrected"].iloc[0] <= 0.05


def test_fwer_refuses_too_few_permutations_and_bad_choices():
    x = np.random.default_rng(0).normal(size=(200, 5))
    with pytest.raises(ValueError, match="n_permutations"):
        im.infer_network(x, max_lag=1, correction="fwer", n_permutations=50, progress=False)
    with pytest.raises(ValueError, match="correction"):
        im.infer_network(x, max_lag=1, correction="bh", progress=False)
    with pytest.raises(TypeError, match="fdr"):
        im.infer_network(x, max_lag=1, fdr=True, progress=False)


def test_true_edges_survive_fwer():
    # a 3-node chain with strong coupling: the network-wide level costs no true edge here
    rng = np.random.default_rng(2)
    x = np.zeros((600, 3))
    e = rng.normal(size=(600, 3))
    for t in range(1, 600):
        x[t, 0] = 0.5 * x[t - 1, 0] + e[t, 0]
        x[t, 1] = 0.6 * x[t - 1, 0] + e[t, 1]
        x[t, 2] = 0.6 * x[t - 1, 1] + e[t, 2]
    for method in ("mte", "pcmci"):
        net = im.infer_network(x, method=method, max_lag=2, correction="fwer", progress=False)
        assert net.edge_set() == {(0, 1, 1), (1, 2, 1)}, method


def test_pcmciplus_correction_removes_links_and_their_mirrors():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(500, 4))
    x[:, 1] += 0.8 * x[:, 0]
    x[1:, 2] += 0.7 * x[:-1, 1]
    none = im.infer_network(x, method="pcmciplus", max_lag=1, alpha=0.2, progress=False)
    fwer = im.infer_network(
        x, method="pcmciplus", max_lag=1, alpha=0.2, correction="fwer", progress=False
    )
    assert none.correction == "none"
    q = fwer.diagnostics["q_matrix"]
    np.testing.assert_allclose(q[:, :, 0], q[:, :, 0].T)
    g = fwer.graph
    assert (g[:, :, 0] == "").sum() >= (none.graph[:, :, 0] == "").sum()
    # every link left has q <= alpha; the mirror of a contemporaneous link goes with it
    for i, j, lag in zip(*np.nonzero(g != ""), strict=True):
        assert q[i, j, lag] <= 0.2
        if lag == 0:
            assert g[j, i, 0] != ""
    assert {(0, 1, 0), (1, 2, 1)} <= {
        (i, j, lag) for i, j, lag in zip(*np.nonzero(g != ""), strict=True)
    }


def test_fdr_warns_when_the_omnibus_permutations_cannot_reach_its_threshold():
    x = np.random.default_rng(0).normal(size=(200, 5))
    with pytest.warns(im.InfometerWarning, match="n_permutations >= 500"):
        im.infer_network(x, max_lag=1, alpha=0.01, n_permutations=200, progress=False)
