"""CLIB: redundancy selection, clustering metrics and the multi-view model."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from infometer.systems.probes import clib


def test_redundancy_score_known_values():
    c = 7
    s = clib.redundancy_score(np.vstack([np.full(c, 1 / c), np.eye(c)[2]]))
    assert s == pytest.approx([0.5, 1.0], abs=1e-12)
    # two equal clusters out of 4: H = log 2, S = 1 - log 2 / (2 log 4) = 0.75
    assert clib.redundancy_score([[0.5, 0.5, 0, 0]])[0] == pytest.approx(0.75, abs=1e-12)


@given(st.integers(0, 2**31 - 1), st.integers(2, 12), st.integers(1, 300), st.floats(0.05, 5.0))
@settings(max_examples=50, deadline=None)
def test_selection_keeps_at_least_half(seed, c, n, alpha):
    p = np.random.default_rng(seed).dirichlet(np.full(c, alpha), size=n)
    idx, lab, k = clib.select_pseudo_labels(p)
    s = clib.redundancy_score(p)
    assert k >= n // 2 and k == len(idx) == len(lab) <= n
    assert np.all(s[idx].min(initial=1.0) >= np.delete(s, idx).max(initial=0.0))
    assert np.array_equal(lab, p[idx].argmax(1))


def test_dirichlet_predictions_select_the_briefs_share():
    # the brief: K = 690 of 1000 for Dirichlet(0.3) predictions (C unstated; C = 10 fits).
    # For a symmetric Dirichlet(a) on C cells E[H] = psi(C a + 1) - psi(a + 1) nats, so
    # E[K] = 1000 (1 - E[H] / (2 log C)) = 690.5; the sd of sum S over 1000 rows is about 3,
    # so +-15 is 5 sd
    from scipy.special import digamma

    e_k = 1000 * (1 - (digamma(10 * 0.3 + 1) - digamma(1.3)) / (2 * math.log(10)))
    assert abs(e_k - 690.5) < 0.5
    p = np.random.default_rng(0).dirichlet(np.full(10, 0.3), size=1000)
    assert abs(clib.select_pseudo_labels(p)[2] - e_k) <= 15


def test_one_hot_predictions_select_everything():
    p = np.eye(4)[np.arange(10) % 4]
    assert clib.select_pseudo_labels(p)[2] == 10


@given(st.permutations(range(6)), st.integers(0, 2**31 - 1))
@settings(max_examples=30, deadline=None)
def test_hungarian_accuracy_is_one_under_relabelling(perm, seed):
    y = np.random.default_rng(seed).integers(0, 6, 200)
    relabelled = np.asarray(perm)[y]
    assert clib.cluster_accuracy(y, relabelled) == 1.0
    assert clib.normalized_mutual_info(y, relabelled) == pytest.approx(1.0, abs=1e-12)


def test_accuracy_and_nmi_against_scikit_learn():
    from sklearn.metrics import normalized_mutual_info_score

    rng = np.random.default_rng(3)
    y = rng.integers(0, 4, 500)
    pred = np.where(rng.random(500) < 0.7, (y + 1) % 4, rng.integers(0, 5, 500))
    # 70% of the clusters are a relabelling of y, so ACC is about 0.7 + 0.3/5
    assert 0.7 < clib.cluster_accuracy(y, pred) < 0.82
    assert clib.normalized_mutual_info(y, pred) == pytest.approx(
        normalized_mutual_info_score(y, pred), abs=1e-12
    )
    assert clib.normalized_mutual_info(np.zeros(5), np.zeros(5)) == 1.0
    assert clib.normalized_mutual_info(np.zeros(5), np.arange(5)) == 0.0
    m = clib.hungarian_map(["a", "b", "b"], [7, 3, 3])
    assert m == {3: "b", 7: "a"}


def test_ece_closed_form_and_calibrated_limit():
    # ten predictions at confidence 0.9, six of them right: ECE = |0.6 - 0.9| = 0.3
    p = np.tile([0.9, 0.1], (10, 1))
    y = np.array([0] * 6 + [1] * 4)
    assert clib.expected_calibration_error(p, y) == pytest.approx(0.3, abs=1e-12)
    # labels drawn from the predictor's own probabilities: ECE -> 0 as N grows.  Its
    # finite-N bias is about sum_b sqrt(n_b p(1-p))/N ~ 0.5 sqrt(15/N): 0.06 at 1e3,
    # 0.006 at 1e5
    eces = []
    for n in (1_000, 10_000, 100_000):
        rng = np.random.default_rng(n)
        pr = rng.dirichlet(np.full(5, 0.7), size=n)
        lab = (rng.random(n)[:, None] > pr.cumsum(1)).sum(1)
        eces.append(clib.expected_calibration_error(pr, lab))
    assert eces[0] > eces[1] > eces[2] and eces[2] < 0.01
    with pytest.raises(ValueError, match=r"proba slice \[0\] along axis -1 sums to 1.1"):
        clib.expected_calibration_error([[0.5, 0.6]], [0])


def test_make_multiview_shapes_and_corruption():
    views, y = clib.make_multiview(200, 3, (4, 5), corrupted=[1], seed=2)
    assert [v.shape for v in views] == [(200, 4), (200, 5)] and y.shape == (200,)

    # the clean view separates the clusters, the corrupted one does not
    def ratio(v):
        between = np.var([v[y == c].mean(0) for c in range(3)], axis=0).sum()
        return between / v.var(0).sum()

    assert ratio(views[0]) > 0.5 and ratio(views[1]) < 0.05


@pytest.mark.slow
def test_clib_fits_clusters_and_a_noise_view_is_selected_less():
    pytest.importorskip("torch")
    pytest.importorskip("sklearn")
    views, y = clib.make_multiview(
        600, 4, (12, 12, 12), noise=(1.5, 1.5, 1.0), corrupted=[2], seed=0
    )
    tr = [v[:300] for v in views]
    te = [v[300:] for v in views]
    m = clib.CLIB(4, ablation="full", warmup_epochs=25, epochs=25, batch_size=100, seed=0).fit(tr)
    ev = m.evaluate(te, y[300:])
    # k-means on the two clean views reaches ACC 1.0 here; the model must find the clusters
    assert ev["acc"] > 0.85 and 0 <= ev["ece"] < 0.2
    k = m.selection_counts(te)
    # held-out rows: the noise view's calibration head is flatter, so fewer are selected
    assert k[2] < min(k[0], k[1]) and min(k) >= 150
    assert m.fusion_weights.sum() == pytest.approx(1.0)
    with pytest.raises(ValueError, match="dims"):
        m.predict([v[:, :3] for v in te])


def test_clib_input_errors():
    with pytest.raises(ValueError, match="ablation must be one of"):
        clib.CLIB(3, ablation="nope")
    m = clib.CLIB(3)
    with pytest.raises(RuntimeError, match="fit"):
        m.predict([np.zeros((3, 2)), np.zeros((3, 2))])
    with pytest.raises(TypeError, match="list of at least two"):
        m.fit(np.zeros((5, 2)))
    with pytest.raises(ValueError, match="same number of rows"):
        m.fit([np.zeros((5, 2)), np.zeros((4, 2))])


def test_selection_score_uses_natural_logs_consistently():
    # S depends only on H/log C, so the base of the logarithm cannot matter
    p = np.array([[0.7, 0.2, 0.1]])
    h2 = -(p * np.log2(p)).sum()
    assert clib.redundancy_score(p)[0] == pytest.approx(1 - h2 / (2 * math.log2(3)), abs=1e-12)
