"""Finite POMDPs: the model, the MDP and QMDP baselines, episodes and policy values.

Conventions (every solver in :mod:`infometer.systems.decision` uses them):

* ``transitions[a, s, s'] = p(s' | s, a)``, shape ``(A, S, S)``;
* ``rewards[s, a]``, the expected reward of taking ``a`` in ``s``, shape ``(S, A)``;
* ``observations[s', o] = p(o | s')``, the observation emitted on *entering* ``s'``,
  shape ``(S, O)`` (an action-dependent sensor is modelled by putting what the action did
  into the state);
* ``discount`` in ``(0, 1]``; ``1`` needs every policy worth following to reach a terminal
  state (as in a shortest-path problem);
* a state is *terminal* when every action keeps it in place with reward 0; an episode ends
  when the true state becomes terminal.

The belief after acting ``a`` and seeing ``o`` is the Bayes filter
``b'(s') ∝ p(o | s') sum_s p(s' | s, a) b(s)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import numpy as np

from infometer.core.estimate import Estimate
from infometer.core.seeding import Seed, as_generator

from ._validate import check_float, check_int, distribution, stochastic, table
from .voi import utility_estimate

__all__ = [
    "POMDP",
    "Policy",
    "QMDPPolicy",
    "MDPSolution",
    "Episode",
    "solve_mdp",
    "qmdp",
    "greedy_action",
    "value_iteration",
    "run_episode",
    "policy_value",
]


def greedy_action(q: np.ndarray) -> int:
    """The first action whose value is within rounding (1e-9 relative) of the best.

    Ties are broken towards the lowest action index, the same on every machine: values that
    are equal in exact arithmetic never pick different actions through a rounding error.
    """
    q = np.asarray(q, dtype=np.float64)
    best = float(q.max())
    tol = 1e-9 * max(1.0, abs(best))
    return int(np.flatnonzero(q >= best - tol)[0])


@dataclass(frozen=True, eq=False)
class POMDP:
    """A finite partially observable Markov decision process (see the module docstring).

    Parameters
    ----------
    transitions
        ``p(s' | s, a)``, shape ``(A, S, S)``.
    rewards
        Expected reward ``r(s, a)``, shape ``(S, A)``.
    observations
        ``p(o | s')`` on entering ``s'``, shape ``(S, O)``.
    discount
        ``gamma`` in ``(0, 1]``.
    initial_belief
        ``b0(s)``, shape ``(S,)``.
    state_names, action_names, observation_names
        Optional labels (used in episodes and plots).
    """

    transitions: np.ndarray
    rewards: np.ndarray
    observations: np.ndarray
    discount: float
    initial_belief: np.ndarray
    state_names: tuple[str, ...] | None = None
    action_names: tuple[str, ...] | None = None
    observation_names: tuple[str, ...] | None = None
    _cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        t = stochastic(
            self.transitions,
            "transitions",
            shape=(None, None, None),
            what="(n_actions, n_states, n_states): transitions[a, s, s'] = p(s' | s, a)",
        )
        n_a, n_s = t.shape[0], t.shape[1]
        if t.shape[2] != n_s:
            raise ValueError(
                f"transitions must have shape (n_actions, n_states, n_states), got {t.shape}"
            )
        r = table(
            self.rewards,
            "rewards",
            shape=(n_s, n_a),
            what="(n_states, n_actions): rewards[s, a]",
        )
        z = stochastic(
            self.observations,
            "observations",
            shape=(n_s, None),
            what="(n_states, n_observations): observations[s', o] = p(o | s')",
        )
        gamma = check_float(self.discount, "discount", low=0.0, high=1.0, inclusive=(False, True))
        b0 = distribution(self.initial_belief, "initial_belief", size=n_s)
        for arr in (t, r, z, b0):
            arr.setflags(write=False)
        object.__setattr__(self, "transitions", t)
        object.__setattr__(self, "rewards", r)
        object.__setattr__(self, "observations", z)
        object.__setattr__(self, "discount", gamma)
        object.__setattr__(self, "initial_belief", b0)
        for name, n in (
            ("state_names", n_s),
            ("action_names", n_a),
            ("observation_names", z.shape[1]),
        ):
            labels = getattr(self, name)
            if labels is not None:
                labels = tuple(str(x) for x in labels)
                if len(labels) != n:
                    raise ValueError(f"{name} has {len(labels)} labels for {n} entries")
                object.__setattr__(self, name, labels)

    # ----------------------------------------------------------------- sizes
    @property
    def n_states(self) -> int:
        return self.transitions.shape[1]

    @property
    def n_actions(self) -> int:
        return self.transitions.shape[0]

    @property
    def n_observations(self) -> int:
        return self.observations.shape[1]

    @property
    def terminal(self) -> np.ndarray:
        """Boolean mask of absorbing zero-reward states (episodes end there)."""
        if "terminal" not in self._cache:
            idx = np.arange(self.n_states)
            stays = np.all(self.transitions[:, idx, idx] == 1.0, axis=0)
            self._cache["terminal"] = stays & np.all(self.rewards == 0.0, axis=1)
        return self._cache["terminal"]

    @property
    def deterministic_observations(self) -> bool:
        return bool(np.all(self.observations.max(axis=1) == 1.0))

    @property
    def deterministic_transitions(self) -> bool:
        return bool(np.all(self.transitions.max(axis=2) == 1.0))

    # ---------------------------------------------------------------- filter
    def update(self, belief: np.ndarray, action: int, observation: int) -> tuple[np.ndarray, float]:
        """Bayes filter: the posterior after ``action`` and ``observation``, and ``p(o | b, a)``.

        The probability is 0 (and the belief returned unchanged) for an impossible observation.
        """
        pred = np.asarray(belief, dtype=np.float64) @ self.transitions[action]
        joint = pred * self.observations[:, observation]
        p = float(joint.sum())
        if p <= 0.0:
            return np.asarray(belief, dtype=np.float64), 0.0
        return joint / p, p

    # ------------------------------------------------------------ variants
    def with_initial_belief(self, belief: Any) -> POMDP:
        """The same model started from another belief."""
        return replace(self, initial_belief=belief, _cache={})

    def with_discount(self, discount: float) -> POMDP:
        """The same model with another discount factor."""
        return replace(self, discount=discount, _cache={})

    def merge_observations(self, groups: Sequence[Sequence[int]]) -> POMDP:
        """Remove an information source: each group of observations becomes one symbol.

        Observations that a source tells apart (a sign reading "left" or "right") merged into
        one symbol give the problem without that source; :func:`value_of_information_source`
        compares the two.
        """
        n_o = self.n_observations
        label = np.arange(n_o)
        seen: set[int] = set()
        for g in groups:
            idx = [check_int(int(o), "groups entry", min_value=0, max_value=n_o - 1) for o in g]
            if not idx:
                raise ValueError("groups must not contain an empty group")
            if seen & set(idx):
                raise ValueError("groups must be disjoint: an observation is in two groups")
            seen |= set(idx)
            label[idx] = min(idx)
        keep = np.unique(label)
        new = np.zeros((self.n_states, keep.size))
        for j, o in enumerate(keep):
            new[:, j] = self.observations[:, label == o].sum(axis=1)
        names = None
        if self.observation_names is not None:
            names = tuple(
                "|".join(self.observation_names[i] for i in np.flatnonzero(label == o))
                for o in keep
            )
        return replace(self, observations=new, observation_names=names, _cache={})

    def fully_observable(self) -> POMDP:
        """The same model with the state observed exactly (its value is the MDP value)."""
        names = self.state_names
        return replace(self, observations=np.eye(self.n_states), observation_names=names, _cache={})


# --------------------------------------------------------------------------- MDP
def value_iteration(
    step: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
    v: np.ndarray,
    tol: float,
    max_iter: int,
    sweeps: int | None = None,
) -> tuple[np.ndarray, np.ndarray, int, bool]:
    """Iterate ``v, q = step(v)``: ``sweeps`` times, or until the largest change is at most
    ``tol`` times the largest value (at least 1), or ``max_iter`` times.

    Returns ``(v, q, iterations, converged)``; a fixed number of sweeps counts as converged.
    """
    n = sweeps if sweeps is not None else max_iter
    q = np.empty(0)
    it = 0
    for it in range(1, n + 1):
        new, q = step(v)
        delta = float(np.abs(new - v).max())
        v = new
        if sweeps is None and delta <= tol * max(1.0, float(np.abs(v).max())):
            return v, q, it, True
    return v, q, it, sweeps is not None


@dataclass(frozen=True)
class MDPSolution:
    """Optimal values of the underlying MDP (state known)."""

    values: np.ndarray  # V(s)
    q: np.ndarray  # Q(s, a)
    iterations: int


def solve_mdp(pomdp: POMDP, *, tol: float = 1e-10, max_iter: int = 100_000) -> MDPSolution:
    """Value iteration on the underlying MDP: ``Q(s,a) = r(s,a) + gamma sum_s' p(s'|s,a) V(s')``.

    With ``discount == 1`` the iteration converges only when every state can reach a terminal
    state and wandering costs; otherwise a ``ValueError`` says so.
    """
    key = ("mdp", tol, max_iter)
    if key in pomdp._cache:
        return pomdp._cache[key]
    t, r, g = pomdp.transitions, pomdp.rewards, pomdp.discount

    def step(v):
        q = r + g * np.einsum("ast,t->sa", t, v)
        return q.max(axis=1), q

    v, q, it, converged = value_iteration(step, np.zeros(pomdp.n_states), tol, max_iter)
    if not converged:
        raise ValueError(
            f"MDP value iteration did not converge in {max_iter} iterations "
            f"(discount={g}); with discount 1 every state must reach a terminal state "
            "and returns must stay bounded: use a discount below 1"
        )
    sol = MDPSolution(values=v, q=q, iterations=it)
    pomdp._cache[key] = sol
    return sol


# ------------------------------------------------------------------- policies
class Policy(Protocol):
    """Anything that maps a belief to an action."""

    def action(self, belief: np.ndarray) -> int: ...


@dataclass(frozen=True)
class QMDPPolicy:
    """QMDP (Littman et al. 1995): act as if the state became known after one step.

    ``Q(b, a) = sum_s b(s) Q_MDP(s, a)``.  It never takes an action only for the information
    it brings, which is the failure the pair-value planner targets.
    """

    q: np.ndarray  # Q_MDP(s, a)

    def q_values(self, belief: np.ndarray) -> np.ndarray:
        return np.asarray(belief) @ self.q

    def action(self, belief: np.ndarray) -> int:
        return greedy_action(self.q_values(belief))


def qmdp(pomdp: POMDP) -> QMDPPolicy:
    """The QMDP policy of a POMDP (an upper bound on its value at every belief)."""
    return QMDPPolicy(q=solve_mdp(pomdp).q)


# ------------------------------------------------------------------- episodes
@dataclass(frozen=True)
class Episode:
    """One run of a policy: the true states, actions, observations, rewards and beliefs."""

    states: list[int]
    actions: list[int]
    observations: list[int]
    rewards: list[float]
    beliefs: list[np.ndarray]
    terminated: bool
    discount: float

    @property
    def total_reward(self) -> float:
        """Undiscounted return."""
        return float(sum(self.rewards))

    @property
    def discounted_return(self) -> float:
        return float(sum(r * self.discount**t for t, r in enumerate(self.rewards)))

    @property
    def steps(self) -> int:
        return len(self.actions)


def run_episode(
    pomdp: POMDP,
    policy: Policy,
    *,
    start_state: int | None = None,
    max_steps: int = 100,
    seed: Seed = 0,
) -> Episode:
    """Run ``policy`` with the Bayes filter from ``pomdp.initial_belief``.

    ``start_state`` fixes the true initial state (it must have positive initial belief);
    otherwise it is drawn from the initial belief.  The episode ends when the true state is
    terminal or after ``max_steps`` actions.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    """
    max_steps = check_int(max_steps, "max_steps", min_value=1)
    rng = as_generator(seed)
    b = pomdp.initial_belief.copy()
    if start_state is None:
        s = int(rng.choice(pomdp.n_states, p=b))
    else:
        s = check_int(start_state, "start_state", min_value=0, max_value=pomdp.n_states - 1)
        if b[s] <= 0:
            raise ValueError(f"start_state {s} has zero initial belief")
    term = pomdp.terminal
    states, actions, obs, rewards, beliefs = [s], [], [], [], [b]
    for _ in range(max_steps):
        if term[s]:
            break
        a = int(policy.action(b))
        if not 0 <= a < pomdp.n_actions:
            raise ValueError(f"policy returned action {a}, not in 0..{pomdp.n_actions - 1}")
        rewards.append(float(pomdp.rewards[s, a]))
        s = _draw(rng, pomdp.transitions[a, s])
        o = _draw(rng, pomdp.observations[s])
        b, _ = pomdp.update(b, a, o)
        states.append(s)
        actions.append(a)
        obs.append(o)
        beliefs.append(b)
    return Episode(states, actions, obs, rewards, beliefs, bool(term[s]), pomdp.discount)


def _draw(rng: np.random.Generator, p: np.ndarray) -> int:
    """Index drawn from ``p``; a point mass needs no random number."""
    j = int(p.argmax())
    if p[j] == 1.0:
        return j
    c = np.cumsum(p)
    return min(int(np.searchsorted(c, rng.random() * c[-1], side="right")), p.size - 1)


def policy_value(
    pomdp: POMDP,
    policy: Policy,
    *,
    max_steps: int = 100,
    n_episodes: int = 1000,
    seed: Seed = 0,
) -> Estimate:
    """Expected discounted return of ``policy`` from the initial belief.

    When transitions and observations are deterministic the only randomness is the initial
    state, so the value is exact: one episode per state in the initial belief's support,
    weighted by its probability.  Otherwise it is a Monte Carlo mean over ``n_episodes``
    with its standard error.  Episodes cut at ``max_steps`` count what they collected; the
    fraction that ended is in ``diagnostics["terminated"]``.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    """
    n_episodes = check_int(n_episodes, "n_episodes", min_value=1)
    b0 = pomdp.initial_belief
    exact = pomdp.deterministic_transitions and pomdp.deterministic_observations
    if exact:
        support = np.flatnonzero(b0 > 0)
        eps = [run_episode(pomdp, policy, start_state=int(s), max_steps=max_steps) for s in support]
        w = b0[support]
        rets = np.array([e.discounted_return for e in eps])
        value, stderr, n = float(w @ rets), None, None
    else:
        rng = as_generator(seed)
        seeds = rng.integers(0, 2**63 - 1, n_episodes)
        eps = [run_episode(pomdp, policy, max_steps=max_steps, seed=int(s)) for s in seeds]
        w = np.full(n_episodes, 1.0 / n_episodes)
        rets = np.array([e.discounted_return for e in eps])
        value = float(rets.mean())
        stderr = float(rets.std(ddof=1) / np.sqrt(n_episodes)) if n_episodes > 1 else None
        n = n_episodes
    est = utility_estimate(
        value,
        "policy_value",
        "exact_rollout" if exact else "monte_carlo",
        terminated=float(w @ np.array([e.terminated for e in eps], dtype=float)),
        mean_steps=float(w @ np.array([e.steps for e in eps], dtype=float)),
        max_steps=max_steps,
    )
    return replace(est, stderr=stderr, n=n)
