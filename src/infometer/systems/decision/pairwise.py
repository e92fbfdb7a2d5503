"""The VI²N pair-value planner (Khalvati & Mackworth 2013; Chen et al., ICLR 2026), tabular.

A pair ``(s, s')`` stands for "the state is ``s`` or ``s'``".  It is *resolved* when the
observation model tells the two apart, when ``s == s'``, or when both are terminal; a resolved
pair is worth the average MDP value ``(V(s) + V(s')) / 2``.  Unresolved pairs start at the
worst reward and are improved by value iteration on the pair MDP

``Q2((s,s'),a) = (r(s,a) + r(s',a))/2 + gamma sum p(s''|s,a) p(s'''|s',a) V2(s'',s''')``,

with resolved pairs held at their MDP value (``hold_resolved=True``, as in Khalvati &
Mackworth; the ICLR paper does not say, see docs/decision.md).  Because unresolved pairs are
worth less than resolved ones, the pair values rise towards the places where ambiguity is
resolved: the "informative cells" map.

Distinguishability (the paper's Eq. 1): ``D(s,s') = 1[1 - sum_o p(o|s) p(o|s') >= lambda]``,
the probability that independent observations from ``s`` and ``s'`` differ.  It is not a
divergence: a noisy state is "distinguishable from itself" when ``1 - sum_o p(o|s)^2 >=
lambda``; diagonal pairs are always treated as resolved here.

Action rule (Eq. 5), two weightings:

* ``"product"``: ``argmax_a sum_{s,s'} b(s) b(s') Q2((s,s'),a)`` as literally summarised,
  which gives the diagonal (``Q_MDP``) weight ``sum_s b(s)^2``;
* ``"pairs"``: off-diagonal pairs only, normalised; ``Q_MDP`` when the belief is a point mass.

On the T-maze the product weighting ties at the start (undiscounted) and oscillates with
``discount=0.95``; the pairs weighting is optimal in both (tests/decision/test_pairwise.py).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from infometer.core.data import InfometerWarning

from ._validate import as_float_array, check_choice, check_float, check_int, stochastic
from .pomdp import POMDP, MDPSolution, greedy_action, solve_mdp, value_iteration

__all__ = [
    "distinguishability",
    "PairValues",
    "FactoredPairValues",
    "PairPolicy",
    "pair_value_iteration",
    "momdp_pair_value_iteration",
]


def distinguishability(observations: np.ndarray, lam: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Which states the observation model tells apart.

    Parameters
    ----------
    observations
        ``p(o | s)``, shape ``(S, O)``.
    lam
        Threshold ``lambda`` in ``(0, 1]``; 1 for noise-free observations.

    Returns
    -------
    (D, score)
        ``score[s, s'] = 1 - sum_o p(o|s) p(o|s')`` (the probability that independent
        observations differ) and ``D = score >= lambda`` (up to 1e-12 rounding).
    """
    z = stochastic(
        observations,
        "observations",
        shape=(None, None),
        what="(n_states, n_observations): p(o | s)",
    )
    lam = check_float(lam, "lam", low=0.0, high=1.0, inclusive=(False, True))
    score = 1.0 - z @ z.T
    return score >= lam - 1e-12, score


def _pair_q(bh: np.ndarray, q_pairs: np.ndarray, q_mdp: np.ndarray, weighting: str) -> np.ndarray:
    """Belief-weighted action values from pair Q ``(n, n, A)`` and MDP Q ``(n, A)``."""
    w = np.outer(bh, bh)
    if weighting == "product":
        return np.einsum("ij,ija->a", w, q_pairs)
    np.fill_diagonal(w, 0.0)
    mass = w.sum()
    if mass <= 1e-12:
        return bh @ q_mdp
    return np.einsum("ij,ija->a", w, q_pairs) / mass


def _resolved_value(v: np.ndarray) -> np.ndarray:
    return 0.5 * (v[..., :, None] + v[..., None, :])


def _hold(q2, resolved, v_res, q_res, hold_resolved):
    """Values and Q values of one sweep; resolved pairs held at their MDP values.

    A held pair is worth ``(V(s) + V(s'))/2`` (not ``max_a`` of the averaged Q values: the
    two states would then be forced to take one action) and its action values are
    ``(Q(s,a) + Q(s',a))/2``.
    """
    if not hold_resolved:
        return q2.max(axis=-1), q2
    q2 = np.where(resolved[..., None], q_res, q2)
    return np.where(resolved, v_res, q2.max(axis=-1)), q2


def _iterate(step, v2: np.ndarray, tol: float, iterations: int | None, max_iter: int):
    """Run ``v2 <- step(v2)`` a fixed number of times or to convergence (else warn)."""
    v2, q2, it, converged = value_iteration(step, v2, tol, max_iter, iterations)
    if not converged:
        warnings.warn(
            f"pair value iteration did not converge in {max_iter} iterations; some pairs may "
            "never be resolved (with discount 1 their values keep falling)",
            InfometerWarning,
            stacklevel=3,
        )
    return v2, q2, it, converged


@dataclass(frozen=True, eq=False)
class PairValues:
    """Pair values of a POMDP: ``values[s, s']``, ``q[s, s', a]``, which pairs are resolved."""

    values: np.ndarray
    q: np.ndarray
    resolved: np.ndarray
    mdp: MDPSolution
    iterations: int
    converged: bool

    def informative_map(self, weights: np.ndarray | None = None) -> np.ndarray:
        """Per state, the weighted mean pair value over the *other* states (the landmark map)."""
        n = self.values.shape[0]
        w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
        m = np.where(np.eye(n, dtype=bool), 0.0, w[None, :])
        return (self.values * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-300)


def _setup(pomdp: POMDP, lam: float, hold_resolved: bool, iterations, tol, max_iter):
    if not isinstance(pomdp, POMDP):
        raise TypeError(
            f"pomdp must be an infometer.systems.decision.POMDP, got {type(pomdp).__name__}"
        )
    if not isinstance(hold_resolved, bool):
        raise TypeError(f"hold_resolved must be True or False, got {hold_resolved!r}")
    if iterations is not None:
        iterations = check_int(iterations, "iterations", min_value=1)
    tol = check_float(tol, "tol", low=0.0, inclusive=(False, True))
    max_iter = check_int(max_iter, "max_iter", min_value=1)
    lam = check_float(lam, "lam", low=0.0, high=1.0, inclusive=(False, True))
    return lam, iterations, tol, max_iter


def pair_value_iteration(
    pomdp: POMDP,
    *,
    lam: float = 1.0,
    hold_resolved: bool = True,
    iterations: int | None = None,
    tol: float = 1e-10,
    max_iter: int = 10_000,
) -> PairValues:
    """Pair-state value iteration over all ``S x S`` pairs (``O(A S^3)`` per iteration).

    Parameters
    ----------
    pomdp
        The model; its observation model gives the distinguishability.
    lam
        Distinguishability threshold.
    hold_resolved
        Keep resolved pairs at their MDP value on every iteration (else only initialise them).
    iterations
        A fixed number of iterations (the paper's ``K_VI2``); ``None`` runs to convergence.
    """
    lam, iterations, tol, max_iter = _setup(pomdp, lam, hold_resolved, iterations, tol, max_iter)
    mdp = solve_mdp(pomdp)
    d, _ = distinguishability(pomdp.observations, lam)
    term = pomdp.terminal
    resolved = d | np.eye(pomdp.n_states, dtype=bool) | np.outer(term, term)
    v_res = _resolved_value(mdp.values)
    q_res = 0.5 * (mdp.q[:, None, :] + mdp.q[None, :, :])
    r2 = 0.5 * (pomdp.rewards[:, None, :] + pomdp.rewards[None, :, :])
    t, g = pomdp.transitions, pomdp.discount
    v2 = np.where(resolved, v_res, pomdp.rewards.min())

    def step(v2):
        ev = np.stack([t[a] @ v2 @ t[a].T for a in range(pomdp.n_actions)], axis=-1)
        return _hold(r2 + g * ev, resolved, v_res, q_res, hold_resolved)

    v2, q2, it, conv = _iterate(step, v2, tol, iterations, max_iter)
    return PairValues(v2, q2, resolved, mdp, it, conv)


@dataclass(frozen=True, eq=False)
class FactoredPairValues:
    """Pair values of a mixed-observability POMDP: ``values[x, h, h']`` for a visible ``x``."""

    values: np.ndarray  # (X, H, H)
    q: np.ndarray  # (X, H, H, A)
    resolved: np.ndarray  # (X, H, H)
    mdp: MDPSolution
    n_hidden: int
    iterations: int
    converged: bool

    def reward_map(self, prior: np.ndarray) -> np.ndarray:
        """``sum_h p(h) V(x, h)``: the MDP value of each visible state (rewarding cells)."""
        h = self.n_hidden
        return self.mdp.values.reshape(-1, h) @ as_float_array(prior, "prior")

    def informative_map(self, prior: np.ndarray) -> np.ndarray:
        """Mean pair value over distinct hidden values, weighted ``p(h) p(h')`` (landmarks)."""
        p = as_float_array(prior, "prior")
        w = np.outer(p, p)
        np.fill_diagonal(w, 0.0)
        if w.sum() <= 0:
            return self.reward_map(p)
        return np.einsum("xij,ij->x", self.values, w) / w.sum()


def momdp_pair_value_iteration(
    pomdp: POMDP,
    n_hidden: int,
    *,
    lam: float = 1.0,
    hold_resolved: bool = True,
    iterations: int | None = None,
    tol: float = 1e-10,
    max_iter: int = 10_000,
) -> FactoredPairValues:
    """Pair value iteration with the mixed-observability factorisation ``S = X x H``.

    States are ordered ``s = x * n_hidden + h``; the visible part ``x`` must be observed
    exactly (observations of states with different ``x`` never coincide).  Pairs that differ
    in ``x`` are always resolved, so only ``X * H * H`` pair values are kept instead of
    ``(X H)^2``; the result equals :func:`pair_value_iteration` on the same pairs.
    """
    lam, iterations, tol, max_iter = _setup(pomdp, lam, hold_resolved, iterations, tol, max_iter)
    h = check_int(n_hidden, "n_hidden", min_value=1)
    if pomdp.n_states % h:
        raise ValueError(f"n_hidden={h} does not divide the number of states {pomdp.n_states}")
    nx, n_a = pomdp.n_states // h, pomdp.n_actions
    z = pomdp.observations.reshape(nx, h, -1)
    seen_by = z.sum(axis=1) > 0  # (X, O): which x can emit o
    if np.any(seen_by.sum(axis=0) > 1):
        raise ValueError(
            "the visible part is not observed exactly: some observation is emitted by states "
            "with different visible parts; use pair_value_iteration on the flat POMDP"
        )
    mdp = solve_mdp(pomdp)
    v = mdp.values.reshape(nx, h)
    qm = mdp.q.reshape(nx, h, n_a)
    score = 1.0 - np.einsum("xio,xjo->xij", z, z)
    term = pomdp.terminal.reshape(nx, h)
    resolved = (
        (score >= lam - 1e-12) | np.eye(h, dtype=bool)[None] | (term[:, :, None] & term[:, None, :])
    )
    v_res = _resolved_value(v)
    q_res = 0.5 * (qm[:, :, None, :] + qm[:, None, :, :])
    rw = pomdp.rewards.reshape(nx, h, n_a)
    r2 = 0.5 * (rw[:, :, None, :] + rw[:, None, :, :])
    t5 = pomdp.transitions.reshape(n_a, nx, h, nx, h)
    ev_single = np.einsum("axhyi,yi->xha", t5, v)  # E[V(next)] for one copy
    base = 0.5 * (ev_single[:, :, None, :] + ev_single[:, None, :, :])  # (X, H, H, A)
    g = pomdp.discount
    v2 = np.where(resolved, v_res, pomdp.rewards.min())

    def step(v2):
        # both copies land on the same visible y: pair value there instead of the average
        delta = v2 - v_res  # (Y, I, J)
        same = np.einsum("axhyi,axkyj,yij->xhka", t5, t5, delta, optimize=True)
        return _hold(r2 + g * (base + same), resolved, v_res, q_res, hold_resolved)

    v2, q2, it, conv = _iterate(step, v2, tol, iterations, max_iter)
    return FactoredPairValues(v2, q2, resolved, mdp, h, it, conv)


@dataclass(frozen=True, eq=False)
class PairPolicy:
    """Act on belief-weighted pair values (Eq. 5), with the ``"pairs"`` or ``"product"`` weighting.

    Built from :class:`PairValues` (flat) or :class:`FactoredPairValues` (the belief's
    visible part must then be known, as it is in a mixed-observability problem).
    """

    values: PairValues | FactoredPairValues
    weighting: str = "pairs"

    def __post_init__(self) -> None:
        check_choice(self.weighting, "weighting", ["pairs", "product"])

    def q_values(self, belief: np.ndarray) -> np.ndarray:
        b = as_float_array(belief, "belief")
        pv = self.values
        if isinstance(pv, PairValues):
            return _pair_q(b, pv.q, pv.mdp.q, self.weighting)
        h = pv.n_hidden
        bx = b.reshape(-1, h)
        px = bx.sum(axis=1)
        x = int(px.argmax())
        if px[x] < 1.0 - 1e-9:
            raise ValueError("the belief is not certain about the visible part of the state")
        qm = pv.mdp.q.reshape(-1, h, pv.q.shape[-1])
        return _pair_q(bx[x] / px[x], pv.q[x], qm[x], self.weighting)

    def action(self, belief: np.ndarray) -> int:
        return greedy_action(self.q_values(belief))
