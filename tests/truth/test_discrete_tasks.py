import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from infometer.measures import exact, truth
from infometer.measures.truth import discrete as D


@given(st.integers(2, 40), st.floats(0.0, 1.0))
@settings(max_examples=60, deadline=None)
def test_symmetric_channel_error_roundtrip(vocab, frac):
    mi = frac * math.log(vocab)
    e = D.symmetric_channel_error(vocab, mi)
    assert 0.0 <= e <= (vocab - 1) / vocab
    assert D.symmetric_channel_mutual_info(vocab, e) == pytest.approx(mi, abs=1e-10)


@pytest.mark.parametrize("vocab,e", [(2, 0.11), (4, 0.3), (7, 0.05)])
def test_symmetric_channel_formula_equals_table(vocab, e):
    # closed form vs exact MI of the explicit V x V joint table
    t = D.symmetric_channel_table(vocab, e)
    assert exact.mutual_info(t).value == pytest.approx(
        D.symmetric_channel_mutual_info(vocab, e), abs=1e-12
    )


def test_symmetric_channel_samples_follow_the_table():
    vocab, e, n = 4, 0.3, 200_000
    rng = np.random.default_rng(5)
    x, y = D.sample_symmetric_channel(n, 3, vocab, e, rng, structure_seed=9)
    perms = D._permutations(3, vocab, 9)
    for i in range(3):
        inv = np.argsort(perms[i])
        z = inv[y[:, i]]  # undo the position's permutation
        counts = np.zeros((vocab, vocab))
        np.add.at(counts, (x[:, i], z), 1)
        # each cell has p >= 0.025, sd <= sqrt(p/n) < 5e-4; 3e-3 is > 6 sd
        assert np.abs(counts / n - D.symmetric_channel_table(vocab, e)).max() < 3e-3
    # positions are independent: correlation between x of two positions ~ 0
    assert abs(np.corrcoef(x[:, 0], x[:, 1])[0, 1]) < 0.01


def test_infosedd_tasks_have_exact_total_mi():
    for d in (5, 10, 20, 30, 40, 50):
        t = truth.get_task(f"symchannel-{d}pairs-V4-1nat")
        assert t.truth == pytest.approx(d, abs=1e-9)
        s = t.sample(11, seed=2)
        assert s["x"].shape == (11, d) and s["x"].dtype == np.int64
        assert s["y"].max() < 4 and s["y"].min() >= 0


def test_symmetric_channel_task_validation():
    with pytest.raises(ValueError, match="log\\(vocab\\)"):
        D.symmetric_channel_task(3.0, 2, 2)
    with pytest.raises(ValueError, match="mi"):
        D.symmetric_channel_error(4, 2.0)


def test_markov_entropy_rate_two_state_closed_form():
    a, b = 0.2, 0.35
    p = np.array([[1 - a, a], [b, 1 - b]])
    pi = np.array([b, a]) / (a + b)
    np.testing.assert_allclose(D.markov_stationary(p), pi, atol=1e-12)
    want = pi[0] * D.binary_entropy(a) + pi[1] * D.binary_entropy(b)
    assert D.markov_entropy_rate(p) == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("k", [0.2, 0.5, 1.0])
def test_ising_chain_values(k):
    rate = truth.get_task(f"ising1d-K{k:g}-rate").truth
    mi = truth.get_task(f"ising1d-K{k:g}-mi").truth
    # textbook: entropy per spin log(2 cosh K) - K tanh K; neighbour MI = log 2 - rate
    assert rate == pytest.approx(math.log(2 * math.cosh(k)) - k * math.tanh(k), abs=1e-12)
    assert mi == pytest.approx(math.log(2) - rate, abs=1e-12)
    # brief §3.4 values (independent script)
    ref = {0.2: (0.673540, 0.019607), 0.5: (0.582203, 0.110944), 1.0: (0.365334, 0.327813)}[k]
    assert (rate, mi) == pytest.approx(ref, abs=1e-6)


def test_markov_trajectory_transition_frequencies():
    t = truth.get_task("markov-3state-rate")
    x = t.sample(100_000, seed=1)["x"][:, 0]
    p = np.array(t.extra["transition"])
    counts = np.zeros((3, 3))
    np.add.at(counts, (x[:-1], x[1:]), 1)
    # >= 15k visits per state; sd of a frequency <= 0.5/sqrt(15000) ~ 0.004
    np.testing.assert_allclose(counts / counts.sum(1, keepdims=True), p, atol=0.02)


def test_ising2d_tasks():
    t = truth.get_task("ising2d-4x4-T2.5")
    assert t.truth == pytest.approx(5.73475, abs=1e-5)
    assert t.extra["onsager_per_site"] == pytest.approx(0.4369, abs=1e-4)
    s = t.sample(5, seed=0)["x"]
    assert s.shape == (5, 16)
    np.testing.assert_array_equal(s, t.sample(5, seed=0)["x"])
    m = truth.get_task("ising2d-4x4-T2.5-rows2v2")
    assert m.truth == pytest.approx(0.6921, abs=1e-4)


def test_table_tasks_plugin_converges():
    t = truth.get_task("table-4x5-dirichlet")
    s = t.sample(200_000, seed=0)
    c = np.zeros((4, 5))
    np.add.at(c, (s["x"][:, 0], s["y"][:, 0]), 1)
    # plug-in bias ~ (4-1)(5-1)/(2N) = 3e-5; sd ~ 1e-3
    assert exact.mutual_info(c / c.sum()).value == pytest.approx(t.truth, abs=5e-3)


def test_task_api():
    t = truth.get_task("uniform-8")
    assert t.truth == pytest.approx(math.log(8))
    with pytest.raises(ValueError, match="unknown task"):
        truth.get_task("uniform-9")
    with pytest.raises(ValueError, match="n must be"):
        t.sample(0)
    with pytest.raises(TypeError, match="seed"):
        t.sample(3, seed=1.5)
    assert all("discrete" in x.tags for x in truth.tasks("discrete"))
