"""Optimal POMDP values: exact belief-space DP and point-based value iteration.

* ``method="exact"`` enumerates the beliefs reachable from the initial belief under the Bayes
  filter and runs value iteration on that finite belief MDP.  This is exact whenever the
  reachable set is finite: always when transitions and observations are deterministic, and
  also when the hidden part of the state is static and observed without noise (a hidden goal
  with landmarks, the T-maze) or when noise enters a bounded number of times.  Otherwise the
  set grows without bound; the enumeration stops at ``max_beliefs`` and says to use
  ``method="pbvi"`` instead of running for hours.  Beliefs are identified after rounding to
  1e-10, so a set that converges geometrically (repeated noisy looks at a static state) is
  finite in practice; the value is then exact up to that rounding.
* ``method="pbvi"``: point-based value iteration (Pineau, Gordon & Thrun 2003) with
  stochastic forward expansion of the belief set; a lower bound on the optimal value that is
  tight when the belief set covers the beliefs the optimal policy visits.  Needs
  ``discount < 1`` (its alpha vectors start from ``min r / (1 - gamma)``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from infometer.core.estimate import Estimate
from infometer.core.progress import progress_bar
from infometer.core.results import Result
from infometer.core.seeding import Seed, as_generator

from ._validate import check_choice, check_float, check_int
from .pomdp import POMDP, greedy_action, solve_mdp, value_iteration
from .voi import utility_estimate

__all__ = [
    "POMDPSolution",
    "BeliefPolicy",
    "AlphaVectorPolicy",
    "solve_pomdp",
    "value_of_information_source",
    "pomdp_evpi",
]

#: Refuse exact DP beyond this many states before starting (each belief is a vector of S).
MAX_EXACT_STATES = 5000


def _key(b: np.ndarray) -> bytes:
    return (np.round(b, 10) + 0.0).tobytes()


@dataclass(frozen=True, eq=False)
class BeliefPolicy:
    """The exact policy: the optimal action at each reachable belief.

    A belief not in the table (reached from another initial belief) gets the action of the
    nearest tabulated belief in L1 distance.
    """

    beliefs: np.ndarray  # (n, S)
    actions: np.ndarray  # (n,)
    q: np.ndarray  # (n, A)
    index: dict[bytes, int]

    def _row(self, belief: np.ndarray) -> int:
        b = np.asarray(belief, dtype=np.float64)
        i = self.index.get(_key(b))
        if i is None:
            i = int(np.abs(self.beliefs - b).sum(axis=1).argmin())
        return i

    def q_values(self, belief: np.ndarray) -> np.ndarray:
        return self.q[self._row(belief)]

    def action(self, belief: np.ndarray) -> int:
        return int(self.actions[self._row(belief)])


@dataclass(frozen=True, eq=False)
class AlphaVectorPolicy:
    """A piecewise-linear value ``V(b) = max_k alpha_k . b`` and each vector's action."""

    alphas: np.ndarray  # (k, S)
    alpha_actions: np.ndarray  # (k,)

    def value(self, belief: np.ndarray) -> float:
        return float((self.alphas @ np.asarray(belief)).max())

    def action(self, belief: np.ndarray) -> int:
        return int(self.alpha_actions[greedy_action(self.alphas @ np.asarray(belief))])


@dataclass(frozen=True, eq=False)
class POMDPSolution(Result):
    """Result of :func:`solve_pomdp`: the value at the initial belief and a policy."""

    value: Estimate
    policy: BeliefPolicy | AlphaVectorPolicy
    method: str

    def __repr__(self) -> str:
        return f"POMDPSolution(value={self.value!r}, method={self.method!r})"


# ------------------------------------------------------------------ exact DP
def _reachable(pomdp: POMDP, max_beliefs: int) -> tuple[np.ndarray, np.ndarray, dict[bytes, int]]:
    """Breadth-first enumeration of reachable beliefs; edges ``(b, a, b', p(o|b,a))``."""
    t, z, term = pomdp.transitions, pomdp.observations, pomdp.terminal
    b0 = pomdp.initial_belief
    beliefs = [b0]
    index = {_key(b0): 0}
    edges: list[tuple[int, int, int, float]] = []
    frontier = [0]
    while frontier:
        fb = np.array([beliefs[i] for i in frontier])
        nxt: list[int] = []
        done = fb[:, term].sum(axis=1) >= 1.0 - 1e-12  # all mass on terminal states
        for a in range(pomdp.n_actions):
            # a belief with all its mass on terminal states is absorbing: one self-edge
            edges.extend((frontier[r], a, frontier[r], 1.0) for r in np.flatnonzero(done))
            pred = fb @ t[a]  # (n, S)
            p_obs = pred @ z  # (n, O)
            p_obs[done] = 0.0
            rows, obs = np.nonzero(p_obs > 1e-14)
            for r, o in zip(rows.tolist(), obs.tolist(), strict=True):
                src = frontier[r]
                nb = pred[r] * z[:, o] / p_obs[r, o]
                k = _key(nb)
                j = index.get(k)
                if j is None:
                    j = len(beliefs)
                    if j >= max_beliefs:
                        raise ValueError(
                            f"exact belief-space DP stopped: more than max_beliefs={max_beliefs}"
                            " distinct beliefs are reachable (with noisy observations or noisy"
                            " hidden dynamics the set grows without bound); use"
                            " method='pbvi' (point-based value iteration) for this POMDP"
                        )
                    index[k] = j
                    beliefs.append(nb)
                    nxt.append(j)
                edges.append((src, a, j, float(p_obs[r, o])))
        frontier = nxt
    e = np.array(edges, dtype=np.float64).reshape(-1, 4)
    return np.array(beliefs), e, index


def _exact(pomdp: POMDP, max_beliefs: int, tol: float, max_iter: int) -> POMDPSolution:
    if pomdp.n_states > MAX_EXACT_STATES:
        raise ValueError(
            f"the POMDP has {pomdp.n_states} states, too many for exact belief-space DP "
            f"(limit {MAX_EXACT_STATES}); use method='pbvi' (point-based value iteration)"
        )
    beliefs, e, index = _reachable(pomdp, max_beliefs)
    n, n_a = beliefs.shape[0], pomdp.n_actions
    rb = beliefs @ pomdp.rewards  # (n, A) expected immediate reward
    src, act, dst, prob = e[:, 0].astype(int), e[:, 1].astype(int), e[:, 2].astype(int), e[:, 3]
    flat = src * n_a + act
    g = pomdp.discount

    def step(v):
        q = rb + g * np.bincount(flat, weights=prob * v[dst], minlength=n * n_a).reshape(n, n_a)
        return q.max(axis=1), q

    v, q, it, converged = value_iteration(step, np.zeros(n), tol, max_iter)
    if not converged:
        raise ValueError(
            f"belief-space value iteration did not converge in {max_iter} iterations "
            f"(discount={g}); with discount 1 the returns must stay bounded: use a discount < 1"
        )
    actions = np.array([greedy_action(row) for row in q])
    policy = BeliefPolicy(beliefs=beliefs, actions=actions, q=q, index=index)
    est = utility_estimate(
        v[0], "pomdp_value", "exact", n_beliefs=int(n), iterations=it, discount=g
    )
    return POMDPSolution(value=est, policy=policy, method="exact")


# ---------------------------------------------------------------------- PBVI
def _backup(
    pomdp: POMDP, bs: np.ndarray, alphas: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One point-based Bellman backup at every belief in ``bs``."""
    t, z, r, g = pomdp.transitions, pomdp.observations, pomdp.rewards, pomdp.discount
    n = bs.shape[0]
    best_val = best_vec = best_act = None
    for a in range(pomdp.n_actions):
        vec = np.tile(r[:, a], (n, 1))
        for o in range(pomdp.n_observations):
            zo = z[:, o]
            gao = t[a] @ (zo[:, None] * alphas.T)  # (S, k): sum_s' T(s'|s,a) Z(o|s') alpha(s')
            pick = (bs @ gao).argmax(axis=1)
            vec += g * gao[:, pick].T
        val = (bs * vec).sum(axis=1)
        if best_val is None:
            best_val, best_vec, best_act = val, vec, np.zeros(n, dtype=int)
            continue
        better = val > best_val + 1e-12 * np.maximum(1.0, np.abs(best_val))
        best_val = np.where(better, val, best_val)
        best_vec = np.where(better[:, None], vec, best_vec)
        best_act = np.where(better, a, best_act)
    return best_vec, best_act, best_val


def _blind(pomdp: POMDP) -> np.ndarray:
    """Values of the blind policies "always take a" (Hauskrecht 1997): lower bounds."""
    g, n = pomdp.discount, pomdp.n_states
    eye = np.eye(n)
    return np.array(
        [
            np.linalg.solve(eye - g * pomdp.transitions[a], pomdp.rewards[:, a])
            for a in range(pomdp.n_actions)
        ]
    )


def _expand(pomdp: POMDP, bs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Stochastic forward expansion: for each belief, the successor farthest from the set."""
    t, z = pomdp.transitions, pomdp.observations
    new = []
    current = list(bs)
    for b in bs:
        cands = []
        for a in range(pomdp.n_actions):
            s = rng.choice(pomdp.n_states, p=b)
            s2 = rng.choice(pomdp.n_states, p=t[a, s])
            o = rng.choice(pomdp.n_observations, p=z[s2])
            nb, p = pomdp.update(b, a, o)
            if p > 0:
                cands.append(nb)
        if not cands:
            continue
        cands_a = np.array(cands)
        ref = np.array(current)
        dist = np.abs(cands_a[:, None, :] - ref[None, :, :]).sum(axis=2).min(axis=1)
        j = int(dist.argmax())
        if dist[j] > 1e-9:
            new.append(cands_a[j])
            current.append(cands_a[j])
    return np.array(new).reshape(-1, pomdp.n_states)


def _pbvi(
    pomdp: POMDP,
    n_points: int,
    tol: float,
    max_iter: int,
    seed: int | None,
    progress: bool,
) -> POMDPSolution:
    if pomdp.discount >= 1.0:
        raise ValueError(
            "method='pbvi' needs discount < 1 (its alpha vectors start from "
            "min reward / (1 - discount)); use method='exact' or a discount below 1"
        )
    rng = as_generator(seed)
    g = pomdp.discount
    bs = pomdp.initial_belief[None, :].copy()
    alphas = _blind(pomdp)
    acts = np.arange(pomdp.n_actions)
    # stochastic forward expansion does not look at the values: grow the set first
    while bs.shape[0] < n_points:
        new = _expand(pomdp, bs, rng)[: n_points - bs.shape[0]]
        if new.shape[0] == 0:
            break
        bs = np.vstack([bs, new])
    bar = progress_bar(total=max_iter, desc="PBVI backups", progress=progress)
    prev = None
    total_it = stable = 0
    for total_it in range(1, max_iter + 1):  # noqa: B007 (reported below)
        alphas, acts, vals = _backup(pomdp, bs, alphas)
        if bar is not None:
            bar.update()
        scale = max(1.0, float(np.abs(vals).max()))
        small = prev is not None and float(np.abs(vals - prev).max()) <= tol * scale
        stable = stable + 1 if small else 0
        if stable >= 2:  # two quiet sweeps: a change still travelling along a chain shows
            break
        prev = vals
    if bar is not None:
        bar.close()
    # keep one copy of each vector
    _, keep = np.unique(np.round(alphas, 10), axis=0, return_index=True)
    policy = AlphaVectorPolicy(alphas=alphas[np.sort(keep)], alpha_actions=acts[np.sort(keep)])
    est = utility_estimate(
        policy.value(pomdp.initial_belief),
        "pomdp_value",
        "pbvi",
        n_belief_points=int(bs.shape[0]),
        n_alpha_vectors=int(policy.alphas.shape[0]),
        backups=total_it,
        discount=g,
        note="a lower bound on the optimal value, tight when the points cover the optimal path",
    )
    return POMDPSolution(value=est, policy=policy, method="pbvi")


def solve_pomdp(
    pomdp: POMDP,
    *,
    method: str = "auto",
    max_beliefs: int = 20_000,
    n_points: int = 200,
    tol: float = 1e-10,
    max_iter: int = 10_000,
    seed: Seed = 0,
    progress: bool | None = None,
) -> POMDPSolution:
    """Optimal value and policy of a small POMDP at its initial belief.

    Parameters
    ----------
    pomdp
        The model.
    method
        ``"exact"`` (reachable-belief DP), ``"pbvi"`` (point-based value iteration) or
        ``"auto"``: exact when the reachable belief set has at most ``max_beliefs`` beliefs,
        else PBVI (recorded in ``diagnostics["auto_reason"]``).
    max_beliefs
        Cap on the reachable beliefs exact DP enumerates before giving up.
    n_points
        Belief points PBVI collects.
    tol, max_iter
        Convergence of the value iterations (relative change of the values).
    seed
        PBVI's belief expansion is random. An int >= 0 (the same int gives the same numbers), a
        numpy.random.Generator (drawn from as it is) or None (fresh entropy from the operating
        system).
    progress
        Show a progress bar for PBVI.

    Returns
    -------
    POMDPSolution
        ``.value`` (an :class:`Estimate` in utility units) and ``.policy`` (``.action(b)``).
    """
    check_choice(method, "method", ["auto", "exact", "pbvi"])
    max_beliefs = check_int(max_beliefs, "max_beliefs", min_value=1)
    n_points = check_int(n_points, "n_points", min_value=1)
    tol = check_float(tol, "tol", low=0.0, inclusive=(False, True))
    max_iter = check_int(max_iter, "max_iter", min_value=1)
    if not isinstance(pomdp, POMDP):
        raise TypeError(
            f"pomdp must be an infometer.systems.decision.POMDP, got {type(pomdp).__name__}"
        )
    if method == "exact":
        return _exact(pomdp, max_beliefs, tol, max_iter)
    if method == "pbvi":
        return _pbvi(pomdp, n_points, tol, max_iter, seed, progress)
    try:
        sol = _exact(pomdp, max_beliefs, tol, max_iter)
        reason = "the reachable belief set is finite: exact belief-space DP"
    except ValueError as exc:
        if pomdp.discount >= 1.0:
            raise
        sol = _pbvi(pomdp, n_points, tol, max_iter, seed, progress)
        reason = f"exact DP refused ({exc}); point-based value iteration instead"
    sol.value.diagnostics["auto_reason"] = reason
    return sol


def _value(pomdp: POMDP, method: str, **kw: Any) -> Estimate:
    return solve_pomdp(pomdp, method=method, **kw).value


def value_of_information_source(
    pomdp: POMDP, without: POMDP, *, method: str = "auto", **solver_kw: Any
) -> Estimate:
    """Value of an information source: the optimal value with it minus without it.

    Parameters
    ----------
    pomdp
        The problem with the source.
    without
        The same problem without it (same states, actions, transitions, rewards, discount and
        initial belief), e.g. ``pomdp.merge_observations(...)`` or a grid world with its
        landmarks removed.
    method, solver_kw
        Passed to :func:`solve_pomdp` for both problems.
    """
    if not isinstance(without, POMDP):
        raise TypeError(f"without must be a POMDP, got {type(without).__name__}")
    same = (
        without.transitions.shape == pomdp.transitions.shape
        and np.array_equal(without.transitions, pomdp.transitions)
        and np.array_equal(without.rewards, pomdp.rewards)
        and without.discount == pomdp.discount
        and np.array_equal(without.initial_belief, pomdp.initial_belief)
    )
    if not same:
        raise ValueError(
            "without must differ from pomdp only in its observations (same transitions, "
            "rewards, discount and initial belief)"
        )
    v_with = _value(pomdp, method, **solver_kw)
    v_without = _value(without, method, **solver_kw)
    return utility_estimate(
        v_with.value - v_without.value,
        "value_of_information",
        f"{v_with.method}/{v_without.method}",
        value_with_source=v_with.value,
        value_without_source=v_without.value,
    )


def pomdp_evpi(pomdp: POMDP, *, method: str = "auto", **solver_kw: Any) -> Estimate:
    """Expected value of perfect information: ``sum_s b0(s) V_MDP(s) - V_POMDP(b0)``.

    What observing the state at every step would add to the POMDP's own observations.
    """
    mdp = float(pomdp.initial_belief @ solve_mdp(pomdp).values)
    v = _value(pomdp, method, **solver_kw)
    return utility_estimate(
        mdp - v.value,
        "evpi",
        v.method,
        value_with_perfect_information=mdp,
        value_pomdp=v.value,
    )
