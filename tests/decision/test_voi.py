"""EVPI and EVSI of one-shot decisions against closed forms.

Known answers (derived by hand in the brief, re-derived here): two equally likely states,
pay 1 for naming the state, 0 otherwise: EVPI = 1 - 1/2 = 0.5; a sensor right with
probability q >= 1/2 lets the decision maker name the reported state, right w.p. q, so
EVSI = q - 0.5.  All values are sums of a few products of short binary fractions: 1e-12.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from infometer.systems.decision import evpi, evsi

GUESS = np.eye(2)  # U[a, s] = 1 if a == s


def test_evpi_two_states():
    e = evpi([0.5, 0.5], GUESS)
    assert abs(e.value - 0.5) < 1e-12
    assert e.unit == "utility" and e.quantity == "evpi"
    assert e.diagnostics["value_without_information"] == 0.5
    assert e.diagnostics["value_with_perfect_information"] == 1.0
    with pytest.raises(ValueError, match="not an amount of information"):
        e.to("bits")


@pytest.mark.parametrize("q", [0.5, 0.6, 0.75, 0.8, 1.0])
def test_evsi_noisy_sensor(q):
    e = evsi([0.5, 0.5], GUESS, [[q, 1 - q], [1 - q, q]])
    assert abs(e.value - (q - 0.5)) < 1e-12
    assert e.unit == "utility"


def test_perfect_sensor_is_worth_evpi_and_a_useless_one_nothing():
    prior = [0.2, 0.5, 0.3]
    u = [[3.0, -1.0, 0.0], [0.0, 2.0, 1.0], [1.0, 1.0, 1.0]]
    assert abs(evsi(prior, u, np.eye(3)).value - evpi(prior, u).value) < 1e-12
    flat = np.full((3, 4), 0.25)
    assert abs(evsi(prior, u, flat).value) < 1e-12


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 4), st.integers(2, 4), st.integers(2, 5))
def test_zero_le_evsi_le_evpi(seed, n_s, n_a, n_o):
    rng = np.random.default_rng(seed)
    prior = rng.dirichlet(np.ones(n_s))
    u = rng.normal(size=(n_a, n_s))
    lik = rng.dirichlet(np.ones(n_o), size=n_s)
    vi, vs = evpi(prior, u).value, evsi(prior, u, lik).value
    tol = 1e-12 * (1 + np.abs(u).max())  # a few float sums of numbers of size |u|
    assert -tol <= vs <= vi + tol


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"prior": [0.5, 0.6]}, "prior sums to"),
        ({"prior": [1.5, -0.5]}, "prior has negative"),
        ({"prior": [[0.5, 0.5]]}, "prior must be 1-D"),
        ({"prior": [0.5, np.nan]}, "prior contains NaN"),
        ({"utility": [1.0, 0.0]}, r"utility must have shape \(\?, 2\)"),
        ({"utility": np.ones((2, 3))}, r"utility must have shape \(\?, 2\)"),
        ({"likelihood": [[0.7, 0.2], [0.5, 0.5]]}, r"likelihood slice \[0\] along axis -1 sums to"),
        ({"likelihood": np.ones((3, 2)) / 2}, r"likelihood must have shape \(2, \?\)"),
        ({"utility": "abc"}, "utility must be an array of numbers"),
    ],
)
def test_bad_input_names_the_argument(kwargs, match):
    args = {"prior": [0.5, 0.5], "utility": GUESS, "likelihood": [[0.8, 0.2], [0.2, 0.8]]}
    args.update(kwargs)
    with pytest.raises((ValueError, TypeError), match=match):
        evsi(**args)
