"""Bayesian persuasion (Kamenica & Gentzkow 2011): optimal signalling, concavification, gain.

States ``w`` have a common prior ``mu0``.  The sender commits to a signal ``pi(s | w)``; the
receiver sees ``s``, forms the posterior ``mu_s(w) ∝ mu0(w) pi(s|w)`` and takes a best action
``a*(mu_s)`` for its utility ``u(a, w)``, ties broken in the sender's favour.  The sender's
indirect utility is ``v_hat(mu) = E_mu v(a*(mu), w)``; the best signal is worth
``cav v_hat(mu0)``, the concave envelope at the prior.

By the revelation principle the optimal signal recommends actions; it solves the LP

    maximise   sum_w mu0(w) sum_a pi(a|w) v(a,w)
    subject to sum_w mu0(w) pi(a|w) [u(a,w) - u(a',w)] >= 0   for all a, a' != a  (obedience)
               sum_a pi(a|w) = 1, pi >= 0,

solved here with scipy's HiGHS.  Utilities are tables ``[a, w]`` of shape
``(n_actions, n_states)``, as in :func:`~infometer.systems.decision.voi.evpi`.  Values are in the
sender's utility units; the signal's mutual information with the state is in nats/bits
(:func:`infometer.measures.exact.mutual_info`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from infometer.core.estimate import Estimate
from infometer.core.results import Result
from infometer.measures import exact

from ._validate import as_float_array, distribution, table
from .voi import utility_estimate

__all__ = [
    "PersuasionResult",
    "ConcaveEnvelope",
    "persuade",
    "receiver_action",
    "sender_value",
    "concave_envelope",
    "signal_mutual_info",
]


def _utilities(
    prior: Any, receiver_utility: Any, sender_utility: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    mu0 = distribution(prior, "prior")
    what = "(n_actions, n_states): utility[a, w] of action a in state w"
    u = table(receiver_utility, "receiver_utility", shape=(None, mu0.size), what=what)
    v = table(sender_utility, "sender_utility", shape=(u.shape[0], mu0.size), what=what)
    return mu0, u, v


def _tol(x: np.ndarray) -> float:
    return 1e-9 * max(1.0, float(np.abs(x).max()))


def receiver_action(posterior: Any, receiver_utility: Any, sender_utility: Any) -> int:
    """The receiver's best action at ``posterior``, ties broken in the sender's favour."""
    mu, u, v = _utilities(posterior, receiver_utility, sender_utility)
    return _best(mu, u, v)


def _best(mu: np.ndarray, u: np.ndarray, v: np.ndarray) -> int:
    eu = u @ mu
    cand = np.flatnonzero(eu >= eu.max() - _tol(u))
    ev = v[cand] @ mu
    return int(cand[int(np.flatnonzero(ev >= ev.max() - _tol(v))[0])])


def sender_value(posterior: Any, receiver_utility: Any, sender_utility: Any) -> float:
    """``v_hat(mu)``: the sender's expected utility when the receiver acts on ``mu``."""
    mu, u, v = _utilities(posterior, receiver_utility, sender_utility)
    return float(v[_best(mu, u, v)] @ mu)


def signal_mutual_info(
    prior: Any, scheme: Any, *, unit: str | None = "nats", base: float | None = None
) -> Estimate:
    """``I(S; W)`` of a signal ``scheme[w, s] = pi(s | w)`` under ``prior``, exactly."""
    mu0 = distribution(prior, "prior")
    pi = as_float_array(scheme, "scheme")
    if pi.ndim != 2 or pi.shape[0] != mu0.size:
        raise ValueError(f"scheme must have shape (n_states={mu0.size}, n_signals), got {pi.shape}")
    return exact.mutual_info(mu0[:, None] * pi, unit=unit, base=base)


@dataclass(frozen=True, eq=False)
class PersuasionResult(Result):
    """The optimal signal and what it is worth.

    Attributes
    ----------
    value
        ``cav v_hat(mu0)``: the sender's expected utility under the optimal signal.
    gain
        ``value - no_disclosure``: what persuasion adds (the sender's value of information
        design).
    no_disclosure, full_disclosure
        The sender's value when nothing / everything is revealed.
    scheme
        ``pi(a | w)``, shape ``(n_states, n_actions)``: the probability of recommending ``a``.
    signal_probabilities, posteriors, recommended
        For each signal sent with positive probability: ``P(s)``, the posterior ``mu_s``
        (rows) and the action it recommends (the receiver obeys).  Bayes-plausible:
        ``signal_probabilities @ posteriors == prior``.
    signal_mi, full_disclosure_mi
        ``I(S; W)`` of the optimal signal, and ``H(W)`` (what full disclosure reveals).
    """

    value: Estimate
    gain: Estimate
    no_disclosure: Estimate
    full_disclosure: Estimate
    scheme: np.ndarray
    signal_probabilities: np.ndarray
    posteriors: np.ndarray
    recommended: np.ndarray
    signal_mi: Estimate
    full_disclosure_mi: Estimate
    prior: np.ndarray

    def __repr__(self) -> str:
        return (
            f"PersuasionResult(value={self.value.value:.6g}, gain={self.gain.value:.6g}, "
            f"no_disclosure={self.no_disclosure.value:.6g}, "
            f"full_disclosure={self.full_disclosure.value:.6g}, "
            f"signals={len(self.recommended)}, signal_mi={self.signal_mi!r})"
        )


#: Largest dense obedience LP (constraint rows x variables) :func:`persuade` builds:
#: 2.5e7 entries (200 MB of float64; HiGHS takes minutes well before that).
MAX_LP_ENTRIES = 25_000_000


def _check_lp_size(n_a: int, n_s: int) -> None:
    """Refuse an LP whose dense constraint matrices would not fit, before building them
    (10^4 states: 1.6 GB of equality rows alone)."""
    from infometer.core.validation import check_budget

    rows = n_a * (n_a - 1) + n_s
    check_budget(
        float(rows) * n_a * n_s,
        name=f"prior and utilities ({n_s} states, {n_a} actions)",
        limit=MAX_LP_ENTRIES,
        what=f"LP matrix entries ({rows} constraints x {n_a * n_s} variables, 8 bytes each)",
        override="merge states or actions (the dense LP grows as actions^3 x states)",
    )


def persuade(
    prior: Any,
    receiver_utility: Any,
    sender_utility: Any,
    *,
    allowed: Any = None,
    unit: str | None = "nats",
    base: float | None = None,
) -> PersuasionResult:
    """The sender-optimal signal by the obedience LP (scipy HiGHS).

    Parameters
    ----------
    prior
        ``mu0(w)``, shape ``(n_states,)``.
    receiver_utility, sender_utility
        ``u[a, w]`` and ``v[a, w]``, shape ``(n_actions, n_states)``.
    allowed
        Optional boolean ``(n_actions, n_states)``: which recommendations the sender may send
        in which state (evidence it cannot fake); ``None`` allows all.  A mask that leaves no
        obedient signal makes the LP infeasible, which raises a ``ValueError``.
    unit, base
        Unit of the signal's mutual information.

    Examples
    --------
    The prosecutor and the judge: the judge convicts iff P(guilty) >= 1/2, prior 0.3.

    >>> r = persuade([0.7, 0.3], [[1, 0], [0, 1]], [[0, 0], [1, 1]])
    >>> round(r.value.value, 9), round(float(r.scheme[0, 1]), 9)
    (0.6, 0.428571429)
    """
    from scipy.optimize import linprog

    mu0, u, v = _utilities(prior, receiver_utility, sender_utility)
    n_a, n_s = u.shape
    _check_lp_size(n_a, n_s)
    mask = np.ones((n_a, n_s), dtype=bool)
    if allowed is not None:
        m = np.asarray(allowed)
        if m.shape != (n_a, n_s) or not np.isin(m, [0, 1]).all():
            raise ValueError(
                f"allowed must be a boolean array of shape (n_actions={n_a}, n_states={n_s})"
            )
        mask = m.astype(bool)
        if not mask.any(axis=0).all():
            w = int(np.flatnonzero(~mask.any(axis=0))[0])
            raise ValueError(f"allowed leaves no recommendation in state {w}: the LP is infeasible")
    # variables x[a, w] = pi(a | w), flattened row-major over (a, w)
    c = -(mu0[None, :] * v).ravel()
    rows = []
    for a in range(n_a):
        for b in range(n_a):
            if a != b:
                row = np.zeros((n_a, n_s))
                row[a] = mu0 * (u[b] - u[a])  # <= 0: recommending a, b is no better
                rows.append(row.ravel())
    a_ub = np.array(rows) if rows else None
    b_ub = np.zeros(len(rows)) if rows else None
    a_eq = np.zeros((n_s, n_a * n_s))
    for w in range(n_s):
        a_eq[w, w::n_s] = 1.0
    bounds = [(0.0, 1.0 if ok else 0.0) for ok in mask.ravel()]
    res = linprog(
        c, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=np.ones(n_s), bounds=bounds, method="highs"
    )
    if res.status == 2:
        raise ValueError(
            "the persuasion LP is infeasible: no signal the allowed mask permits makes the "
            "receiver obey its recommendations (check allowed and receiver_utility)"
        )
    if res.status != 0:
        raise RuntimeError(f"the persuasion LP failed (HiGHS status {res.status}: {res.message})")
    x = np.clip(res.x.reshape(n_a, n_s), 0.0, None)
    scheme = (x / x.sum(axis=0, keepdims=True)).T  # (n_states, n_actions)
    value = float(-res.fun)

    joint = mu0[:, None] * scheme  # p(w, a)
    p_sig = joint.sum(axis=0)
    used = np.flatnonzero(p_sig > 1e-12)
    posteriors = (joint[:, used] / p_sig[used]).T
    no_disc = float(v[_best(mu0, u, v)] @ mu0)
    full = float(sum(mu0[w] * v[_best(np.eye(n_s)[w], u, v), w] for w in range(n_s)))
    return PersuasionResult(
        value=utility_estimate(value, "persuasion_value", "lp_highs"),
        gain=utility_estimate(value - no_disc, "persuasion_gain", "lp_highs"),
        no_disclosure=utility_estimate(no_disc, "persuasion_value", "no_disclosure"),
        full_disclosure=utility_estimate(full, "persuasion_value", "full_disclosure"),
        scheme=scheme,
        signal_probabilities=p_sig[used],
        posteriors=posteriors,
        recommended=used,
        signal_mi=exact.mutual_info(joint, unit=unit, base=base),
        full_disclosure_mi=exact.entropy(mu0, unit=unit, base=base),
        prior=mu0,
    )


@dataclass(frozen=True, eq=False)
class ConcaveEnvelope:
    """``v_hat`` and its concave envelope for two states, as functions of ``mu = P(state 1)``.

    ``breakpoints`` are where the receiver's best action changes (plus 0 and 1), with
    ``v_hat`` there (sender-favourable ties, so it is upper semicontinuous); ``v_hat`` is
    linear between them, so the upper hull of these points is exactly ``cav v_hat``.
    """

    breakpoints: np.ndarray
    v_hat_at_breakpoints: np.ndarray
    hull_mu: np.ndarray
    hull_value: np.ndarray
    receiver_utility: np.ndarray
    sender_utility: np.ndarray

    def __call__(self, mu: Any) -> np.ndarray | float:
        """``cav v_hat(mu)``."""
        out = np.interp(mu, self.hull_mu, self.hull_value)
        return float(out) if np.ndim(out) == 0 else out

    def v_hat(self, mu: Any) -> np.ndarray | float:
        """``v_hat(mu)`` (for plotting)."""
        m = np.atleast_1d(np.asarray(mu, dtype=np.float64))
        u, v = self.receiver_utility, self.sender_utility
        out = np.array([v[_best(np.array([1 - t, t]), u, v)] @ [1 - t, t] for t in m])
        return float(out[0]) if np.ndim(mu) == 0 else out

    def posteriors(self, mu0: float) -> tuple[np.ndarray, np.ndarray]:
        """The split of ``mu0`` the envelope uses: the two hull knots around it and their
        probabilities (one knot with probability 1 when ``mu0`` is a knot)."""
        mu0 = float(mu0)
        k = np.searchsorted(self.hull_mu, mu0)
        if k < self.hull_mu.size and abs(self.hull_mu[k] - mu0) <= 1e-12:
            return self.hull_mu[k : k + 1], np.ones(1)
        lo, hi = self.hull_mu[k - 1], self.hull_mu[k]
        w_hi = (mu0 - lo) / (hi - lo)
        return np.array([lo, hi]), np.array([1 - w_hi, w_hi])


def concave_envelope(receiver_utility: Any, sender_utility: Any) -> ConcaveEnvelope:
    """Exact ``cav v_hat`` for a two-state problem (``utility[a, w]`` with two columns)."""
    _, u, v = _utilities([0.5, 0.5], receiver_utility, sender_utility)
    n_a = u.shape[0]
    pts = {0.0, 1.0}
    for a in range(n_a):
        for b in range(a + 1, n_a):
            # (1-m) u[a,0] + m u[a,1] = (1-m) u[b,0] + m u[b,1]
            den = (u[a, 1] - u[a, 0]) - (u[b, 1] - u[b, 0])
            if abs(den) > 1e-15:
                m = (u[b, 0] - u[a, 0]) / den
                if 0.0 < m < 1.0:
                    pts.add(float(m))
    mus = np.array(sorted(pts))
    vals = np.array([v[_best(np.array([1 - m, m]), u, v)] @ [1 - m, m] for m in mus])
    hull = [0]
    for i in range(1, mus.size):  # upper hull, monotone chain
        while len(hull) >= 2:
            o, a = hull[-2], hull[-1]
            cross = (mus[a] - mus[o]) * (vals[i] - vals[o]) - (vals[a] - vals[o]) * (
                mus[i] - mus[o]
            )
            if cross >= -1e-15:
                hull.pop()
            else:
                break
        hull.append(i)
    return ConcaveEnvelope(mus, vals, mus[hull], vals[hull], u, v)
