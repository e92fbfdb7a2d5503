"""Embedding alignment: JSD of coordinate softmaxes, InfoNCE, retrieval diagnostics."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import infometer as im
from infometer.systems.probes import alignment as al


def test_jsd_of_disjoint_and_equal_pmfs():
    assert al.js_divergence_pmf([1, 0], [0, 1], unit="bits").value == pytest.approx(1.0, abs=1e-12)
    assert abs(al.js_divergence_pmf([0.3, 0.7], [0.3, 0.7], unit="bits").value) < 1e-12
    # rows kernel agrees with the exact-entropy form on random pmfs
    rng = np.random.default_rng(0)
    p, q = rng.dirichlet(np.ones(5), 20), rng.dirichlet(np.ones(5), 20)
    rows = al.jsd_rows(p, q)
    want = [al.js_divergence_pmf(a, b, unit="nats").value for a, b in zip(p, q, strict=True)]
    assert rows == pytest.approx(want, abs=1e-12)


def test_jsd_equals_kl_form():
    rng = np.random.default_rng(1)
    p, q = rng.dirichlet(np.ones(4)), rng.dirichlet(np.ones(4))
    m = (p + q) / 2
    kl = im.exact.kl_divergence(p, m).value + im.exact.kl_divergence(q, m).value
    assert al.js_divergence_pmf(p, q, unit="nats").value == pytest.approx(kl / 2, abs=1e-12)


pmf3 = arrays(np.float64, 4, elements=st.floats(0.0, 1.0)).filter(lambda a: a.sum() > 1e-3)


@given(pmf3, pmf3, pmf3)
@settings(max_examples=150, deadline=None)
def test_sqrt_jsd_is_a_metric_on_random_triples(a, b, c):
    p, q, r = (x / x.sum() for x in (a, b, c))
    d = lambda u, v: math.sqrt(max(al.jsd_rows(u[None], v[None])[0] / math.log(2), 0.0))  # noqa: E731
    assert d(p, r) <= d(p, q) + d(q, r) + 1e-9
    assert d(p, q) <= 1.0 + 1e-12
    assert d(p, q) == pytest.approx(d(q, p), abs=1e-12)


def test_embedding_jsd_values_and_bounds():
    rng = np.random.default_rng(2)
    z = rng.normal(size=(50, 8))
    same = al.js_divergence(z, z, unit="bits", ci=0.95)
    assert abs(same.value) < 1e-12 and same.diagnostics["sqrt_jsd"] < 1e-6
    # nearly one-hot softmaxes on different coordinates: JSD -> 1 bit
    a = np.tile([60.0, 0, 0, 0], (10, 1))
    b = np.tile([0, 60.0, 0, 0], (10, 1))
    far = al.js_divergence(a, b, unit="bits", ci=0.95)
    assert far.value == pytest.approx(1.0, abs=1e-12) and far.unit == "bits"
    assert far.diagnostics["sqrt_jsd"] == pytest.approx(1.0, abs=1e-12)
    with pytest.raises(ValueError, match="z_b has"):
        al.js_divergence(z, z[:, :4], unit="bits", ci=0.95)


def test_raw_jsd_depends_on_the_basis_and_pca_removes_rotation():
    from scipy.stats import special_ortho_group

    rng = np.random.default_rng(3)
    za = rng.normal(size=(400, 6)) * [3, 2, 1.5, 1, 0.7, 0.5] + rng.exponential(1, (400, 6))
    # the softmax ignores a shift along (1, ..., 1): JSD is exactly 0 in the raw basis ...
    zb = za + 3.0
    assert abs(al.js_divergence(za, zb).value) < 1e-12
    # ... but a rotation, which changes no cosine between the pairs' spaces, makes it > 0
    rot = special_ortho_group.rvs(6, random_state=4)
    assert al.js_divergence(za @ rot, zb @ rot).value > 0.05
    zb = za + 0.5 * rng.normal(size=za.shape)
    pca = al.js_divergence(za, zb, basis="pca")
    pca_rot = al.js_divergence(za @ rot, zb @ rot, basis="pca")
    # invariance holds up to eigen-decomposition rounding (well-separated variances)
    assert pca.value == pytest.approx(pca_rot.value, abs=1e-9)
    m = al.js_divergence(za, zb, basis=np.eye(6)[:, :3])
    assert m.value == pytest.approx(al.js_divergence(za[:, :3], zb[:, :3]).value, abs=1e-12)


def test_infonce_closed_form_on_given_scores():
    # scores s on the diagonal, 0 elsewhere: L = log(e^s + n - 1) - s
    n, s = 8, 3.0
    scores = np.full((n, n), 0.0) + np.eye(n) * s
    e = al.infonce_bound(scores, unit="nats", ci=0.95)
    assert e.value == pytest.approx(math.log(n) - (math.log(math.exp(s) + n - 1) - s), abs=1e-12)
    # independent scores: the bound is near 0 or below; a huge margin saturates at log n
    with pytest.warns(im.InfometerWarning, match="ceiling"):
        sat = al.infonce_bound(np.eye(n) * 100.0, unit="bits", ci=0.95)
    assert sat.value == pytest.approx(math.log2(n), abs=1e-9) and sat.diagnostics["saturated"]
    with pytest.raises(ValueError, match="square"):
        al.infonce_bound(np.ones((3, 4)), unit="bits", ci=0.95)


def test_infonce_with_the_optimal_critic_approaches_the_true_mi():
    # X, Y Gaussian, rho = 0.9 in each of 2 dims: I = -log(1 - 0.81) = 1.661 nats.  With
    # the optimal critic log p(y|x)/p(y) and n = 512 (log n = 6.2 >> I), InfoNCE is within
    # its small-sample bias of I: E[bound] <= I, and the sd over rows/sqrt(n) is ~0.05.
    rng = np.random.default_rng(5)
    rho, n = 0.9, 512
    x = rng.normal(size=(n, 2))
    y = rho * x + math.sqrt(1 - rho**2) * rng.normal(size=x.shape)
    d2 = ((y[None, :, :] - rho * x[:, None, :]) ** 2).sum(-1)
    scores = -d2 / (2 * (1 - rho**2)) + (y**2).sum(1)[None, :] / 2
    true = -math.log(1 - rho**2)
    e = al.infonce_bound(scores, unit="nats")
    assert true - 0.3 < e.value < true + 3 * e.stderr
    # the embedding form equals the scores form with cosine / T scores
    za, zb = x + 5.0, y + 5.0
    un = lambda a: a / np.linalg.norm(a, axis=1, keepdims=True)  # noqa: E731
    cos = un(za) @ un(zb).T / 0.1
    assert al.infonce_bound(z_a=za, z_b=zb, temperature=0.1).value == pytest.approx(
        al.infonce_bound(cos).value, abs=1e-12
    )


def test_max_at_r_known_answers():
    assert al.max_at_r(["en7", "zh3", "en3", "x"], {"en3", "zh3"}) == 3
    assert al.max_at_r_norm(2, 100, 2) == pytest.approx(100.0)
    assert al.max_at_r_norm(100, 100, 2) == pytest.approx(0.0, abs=1e-12)
    assert al.comp_at_k(["en7", "zh3", "en3", "x"], {"en3", "zh3"}, k=3)
    assert not al.comp_at_k(["en7", "zh3", "en3", "x"], {"en3", "zh3"}, k=2)
    with pytest.raises(ValueError, match="not in the ranking"):
        al.max_at_r(["a"], {"b"})


def test_retrieval_metrics_from_similarities():
    sim = np.array([[0.9, 0.1, 0.8, 0.2], [0.5, 0.6, 0.7, 0.1]])
    df = al.retrieval_metrics(sim, [[0, 2], [1]], k=2)
    assert df["max_at_r"].tolist() == [2, 2]
    assert df["comp_at_k"].tolist() == [True, True]
    assert df["max_at_r_norm"].iloc[0] == pytest.approx(100.0)


@given(st.integers(0, 2**31 - 1))
@settings(max_examples=20, deadline=None)
def test_bias_larger_than_the_margin_gives_inclination_one(seed):
    rng = np.random.default_rng(seed)
    nq, nd = 6, 12
    sim = rng.uniform(-1, 1, (nq, nd))
    english = np.arange(nd) < 6
    target = rng.integers(6, 12, nq)
    rel = [[int(t)] for t in target]
    margin = max(sim[i, t] - sim[i, english].max() for i, t in enumerate(target))
    biased = sim + np.where(english, max(margin, 0.0) + 1e-6, 0.0)[None, :]
    assert al.inclination_rate(biased, target, english) == 1.0
    # and a bias that puts every English document below every other gives 0
    low = sim - np.where(english, 10.0, 0.0)[None, :]
    assert (
        al.retrieval_metrics(low, rel, target=target, distractors=english)["inclined"].mean() == 0.0
    )


def test_adapter_reduces_jsd_and_aligns_rotated_pairs():
    pytest.importorskip("torch")
    from scipy.stats import special_ortho_group

    rng = np.random.default_rng(6)
    za = rng.normal(size=(120, 8))
    zb = za @ special_ortho_group.rvs(8, random_state=7).T + 0.05 * rng.normal(size=za.shape)
    before = al.infonce_bound(z_a=za[60:], z_b=zb[60:], temperature=0.1)
    ad = al.fit_adapter(za[:60], zb[:60], epochs=60, lr=1e-2, batch_size=20, seed=0)
    a2, b2 = ad.transform(za[60:], "a"), ad.transform(zb[60:], "b")
    after = al.infonce_bound(z_a=a2, z_b=b2, temperature=0.1)
    # held-out pairs: the rotation is undone, so InfoNCE rises by well over a bit
    assert after.value > before.value + 1.0
    assert al.js_divergence(a2, b2).value < al.js_divergence(za[60:], zb[60:]).value
    assert ad.history[-1]["nce"] < ad.history[0]["nce"]
