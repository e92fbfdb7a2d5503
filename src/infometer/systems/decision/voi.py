"""Expected value of perfect and of sample information for one-shot finite decisions.

A decision maker picks an action ``a`` to maximise ``E[U(a, S)]`` under a prior ``p(s)``.

* EVPI (Howard 1966): ``sum_s p(s) max_a U(a,s) - max_a sum_s p(s) U(a,s)``, what knowing the
  state before acting is worth.
* EVSI: with an observation ``o ~ p(o|s)`` seen before acting,
  ``sum_o max_a sum_s p(s) p(o|s) U(a,s) - max_a sum_s p(s) U(a,s)``.

Both are in the utility units of ``U`` (``Estimate.unit == "utility"``), not in nats: the
value of information is what information is worth to *this* decision, not how much of it
there is.  ``0 <= EVSI <= EVPI``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from infometer.core.estimate import Estimate

from ._validate import distribution, stochastic, table

__all__ = ["evpi", "evsi", "utility_estimate"]


def utility_estimate(
    value: float, quantity: str, method: str = "exact", **diagnostics: Any
) -> Estimate:
    """An :class:`Estimate` in utility units (a value of a decision, not information)."""
    return Estimate(
        value=float(value),
        unit="utility",
        method=method,
        quantity=quantity,
        diagnostics=diagnostics,
    )


def _problem(prior: Any, utility: Any) -> tuple[np.ndarray, np.ndarray]:
    p = distribution(prior, "prior")
    u = table(
        utility,
        "utility",
        shape=(None, p.size),
        what="(n_actions, n_states): utility[a, s] of action a in state s",
    )
    return p, u


def evpi(prior: Any, utility: Any) -> Estimate:
    """Expected value of perfect information of a one-shot decision.

    Parameters
    ----------
    prior
        ``p(s)``, shape ``(n_states,)``.
    utility
        ``U[a, s]``, shape ``(n_actions, n_states)``.

    Returns
    -------
    Estimate
        In ``"utility"`` units; diagnostics hold the values with and without information and
        the best action under the prior.

    Examples
    --------
    >>> round(evpi([0.5, 0.5], [[1, 0], [0, 1]]).value, 12)
    0.5
    """
    p, u = _problem(prior, utility)
    expected = u @ p
    without = float(expected.max())
    perfect = float(p @ u.max(axis=0))
    return utility_estimate(
        perfect - without,
        "evpi",
        value_without_information=without,
        value_with_perfect_information=perfect,
        best_action_under_prior=int(expected.argmax()),
    )


def evsi(prior: Any, utility: Any, likelihood: Any) -> Estimate:
    """Expected value of sample information of an observation seen before acting.

    Parameters
    ----------
    prior
        ``p(s)``, shape ``(n_states,)``.
    utility
        ``U[a, s]``, shape ``(n_actions, n_states)``.
    likelihood
        ``p(o | s)``, shape ``(n_states, n_observations)``; every row a distribution.

    Returns
    -------
    Estimate
        In ``"utility"`` units; diagnostics hold the values with and without the observation,
        ``p(o)`` and the best action after each observation.

    Examples
    --------
    A sensor that reports the state correctly with probability 0.8:

    >>> round(evsi([0.5, 0.5], [[1, 0], [0, 1]], [[0.8, 0.2], [0.2, 0.8]]).value, 12)
    0.3
    """
    p, u = _problem(prior, utility)
    lik = stochastic(
        likelihood,
        "likelihood",
        shape=(p.size, None),
        what="(n_states, n_observations): likelihood[s, o] = p(o | s)",
    )
    joint = p[:, None] * lik  # p(s, o)
    per_obs = u @ joint  # [a, o] = sum_s p(s, o) U(a, s)
    with_obs = float(per_obs.max(axis=0).sum())
    without = float((u @ p).max())
    return utility_estimate(
        with_obs - without,
        "evsi",
        value_without_information=without,
        value_with_sample_information=with_obs,
        observation_probabilities=joint.sum(axis=0).tolist(),
        best_action_after_observation=per_obs.argmax(axis=0).tolist(),
    )
