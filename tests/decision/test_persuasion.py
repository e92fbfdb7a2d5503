"""Bayesian persuasion: the prosecutor and the judge, concavification, structural identities.

Prosecutor-judge (Kamenica & Gentzkow 2011), states (innocent, guilty), prior guilty 0.3; the
judge convicts iff P(guilty) >= 1/2; the prosecutor wants conviction.  By hand: v_hat(mu) =
1[mu >= 1/2], cav v_hat(mu) = min(1, 2 mu), so V* = 0.6; the optimal signal says "convict"
always when guilty and with probability p when innocent, the largest p keeping the
posterior 0.3 / (0.3 + 0.7 p) >= 1/2, p = 3/7; it is sent with probability 0.6 and leaves
posterior 1/2; "acquit" (probability 0.4) leaves posterior 0.  I(S; W) = H(0.3) - 0.6 H(1/2)
= 0.881291 - 0.6 = 0.281291 bits.  The LP is solved by HiGHS to ~1e-9 primal feasibility.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from infometer.systems.decision.persuasion import (
    concave_envelope,
    persuade,
    receiver_action,
    sender_value,
    signal_mutual_info,
)

PRIOR = [0.7, 0.3]  # innocent, guilty
JUDGE = [[1, 0], [0, 1]]  # acquit, convict
PROSECUTOR = [[0, 0], [1, 1]]
LP_TOL = 1e-7  # HiGHS' default feasibility/optimality tolerances are 1e-7


def h2(p):
    return -p * math.log2(p) - (1 - p) * math.log2(1 - p)


def test_prosecutor_and_judge():
    r = persuade(PRIOR, JUDGE, PROSECUTOR, unit="bits")
    assert abs(r.value.value - 0.6) < LP_TOL and r.value.unit == "utility"
    assert abs(r.gain.value - 0.6) < LP_TOL
    assert r.no_disclosure.value == 0.0 and abs(r.full_disclosure.value - 0.3) < 1e-12
    assert abs(r.scheme[0, 1] - 3 / 7) < LP_TOL and abs(r.scheme[1, 1] - 1) < LP_TOL
    convict = list(r.recommended).index(1)
    assert abs(r.posteriors[convict, 1] - 0.5) < LP_TOL
    assert abs(r.signal_probabilities[convict] - 0.6) < LP_TOL
    assert abs(r.posteriors[1 - convict, 1]) < LP_TOL
    want = h2(0.3) - 0.6  # 0.281291
    assert abs(want - 0.281291) < 1e-6
    assert abs(r.signal_mi.value - want) < 1e-6 and r.signal_mi.unit == "bits"
    assert abs(r.full_disclosure_mi.value - h2(0.3)) < 1e-12
    assert "value=0.6" in repr(r)


def test_prosecutor_envelope_is_min_one_two_mu():
    env = concave_envelope(JUDGE, PROSECUTOR)
    mu = np.linspace(0, 1, 101)
    assert np.allclose(env(mu), np.minimum(1, 2 * mu), atol=1e-12)
    assert np.array_equal(env.v_hat(mu), (mu >= 0.5).astype(float))
    knots, probs = env.posteriors(0.3)
    assert np.allclose(knots, [0, 0.5]) and np.allclose(probs, [0.4, 0.6])
    assert sender_value([0.5, 0.5], JUDGE, PROSECUTOR) == 1.0  # indifferent judge convicts
    assert receiver_action([0.6, 0.4], JUDGE, PROSECUTOR) == 0


def problems(max_states=4):
    return st.tuples(st.integers(0, 100_000), st.integers(2, max_states), st.integers(2, 4)).map(
        _draw
    )


def _draw(args):
    seed, n_s, n_a = args
    rng = np.random.default_rng(seed)
    return rng.dirichlet(np.ones(n_s)), rng.normal(size=(n_a, n_s)), rng.normal(size=(n_a, n_s))


@settings(max_examples=40, deadline=None)
@given(problems())
def test_every_scheme_is_bayes_plausible_and_obedient(prob):
    prior, u, v = prob
    r = persuade(prior, u, v)
    assert np.allclose(r.signal_probabilities @ r.posteriors, prior, atol=1e-9)
    assert np.allclose(r.scheme.sum(axis=1), 1.0) and (r.scheme >= 0).all()
    for post, a in zip(r.posteriors, r.recommended, strict=True):
        eu = u @ post
        assert eu[a] >= eu.max() - 1e-6  # obedient up to the LP tolerance
    assert r.value.value >= max(r.no_disclosure.value, r.full_disclosure.value) - LP_TOL
    assert r.value.value <= prior @ v.max(axis=0) + LP_TOL  # the sender's first best


@settings(max_examples=40, deadline=None)
@given(problems(max_states=2))
def test_lp_equals_the_concave_envelope_for_two_states(prob):
    prior, u, v = prob
    assert abs(persuade(prior, u, v).value.value - concave_envelope(u, v)(prior[1])) < 1e-6


def test_aligned_interests_give_full_disclosure():
    prior = [0.2, 0.3, 0.5]
    u = np.array([[3.0, 0.0, 1.0], [0.0, 2.0, 0.5], [0.5, 0.4, 4.0]])  # best action = state
    r = persuade(prior, u, u, unit="bits")
    assert abs(r.value.value - r.full_disclosure.value) < LP_TOL
    assert abs(r.value.value - np.dot(prior, u.max(axis=0))) < LP_TOL
    assert np.allclose(np.sort(r.posteriors.max(axis=1)), 1.0, atol=1e-7)
    assert abs(r.signal_mi.value - r.full_disclosure_mi.value) < 1e-6


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_concave_sender_value_gives_zero_gain(seed):
    # zero-sum: v = -u makes v_hat = -max_a E u(a) concave, so no signal helps the sender
    rng = np.random.default_rng(seed)
    prior = rng.dirichlet(np.ones(3))
    u = rng.normal(size=(3, 3))
    r = persuade(prior, u, -u)
    assert abs(r.gain.value) < LP_TOL


def test_evidence_constraints_and_an_infeasible_lp():
    # the prosecutor cannot recommend conviction of an innocent: only the truth helps
    r = persuade(PRIOR, JUDGE, PROSECUTOR, allowed=[[1, 1], [0, 1]])
    assert abs(r.value.value - 0.3) < LP_TOL
    # only "convict" may be said in every state: the judge, at the prior, would not obey
    with pytest.raises(ValueError, match="infeasible.*allowed"):
        persuade(PRIOR, JUDGE, PROSECUTOR, allowed=[[0, 0], [1, 1]])
    with pytest.raises(ValueError, match="no recommendation in state 1"):
        persuade(PRIOR, JUDGE, PROSECUTOR, allowed=[[1, 0], [1, 0]])
    with pytest.raises(ValueError, match="allowed must be a boolean array"):
        persuade(PRIOR, JUDGE, PROSECUTOR, allowed=[[1, 1]])


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((PRIOR, [[1, 0, 0], [0, 1, 0]], PROSECUTOR), r"receiver_utility must have shape"),
        ((PRIOR, JUDGE, [[0, 0], [1, 1], [1, 1]]), r"sender_utility must have shape \(2, 2\)"),
        (([0.7, 0.4], JUDGE, PROSECUTOR), "prior sums to"),
        ((PRIOR, [[1, np.inf], [0, 1]], PROSECUTOR), "receiver_utility contains NaN or inf"),
    ],
)
def test_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        persuade(*args)


def test_signal_mutual_info_of_a_given_scheme():
    scheme = [[4 / 7, 3 / 7], [0.0, 1.0]]
    assert abs(signal_mutual_info(PRIOR, scheme, unit="bits").value - (h2(0.3) - 0.6)) < 1e-12
    with pytest.raises(ValueError, match="scheme must have shape"):
        signal_mutual_info(PRIOR, [0.5, 0.5])
