"""Multi-turn persuasion with finite messages and a Bayesian receiver (no language models).

The setting of "Towards Strategic Persuasion with Language Models" (Cheng & You, ICLR 2026)
with the language models replaced by exact objects: the sender knows the state ``w`` and over
``T`` turns sends messages ``m_t`` from a finite set with a committed policy
``pi_t(m_t | w, h_{t-1})`` (``h_{t-1}`` the messages so far); the receiver knows the policy,
updates its posterior by Bayes' rule after every turn and acts on the final posterior (best
action, ties to the sender).  Everything is computed by enumerating the ``M**T`` histories.

* :func:`evaluate_multiturn`: the sender's value, the posteriors, and the per-turn conditional
  mutual information ``I(M_t; W | H_{t-1})`` (through
  :func:`infometer.measures.exact.cond_mutual_info`);
  by the chain rule they add up to ``I(H_T; W)``.  Any multi-turn scheme is one signal
  ``h_T``, so its value is at most the LP value of :func:`~.persuasion.persuade`.
* :func:`train_sender`: a policy-gradient sender (torch, a table of logits) trained against
  a receiver whose best response is softened into a logit response with a temperature
  annealed towards 0.  Its gradient is the score-function term of the sender's sampled
  messages plus the pathwise term through the receiver's Bayesian posterior (the receiver
  knows the policy, so changing the policy changes how messages are read).  With the hard
  best response the objective is a step function of the policy (the optimum sits on the
  cliff where the receiver is indifferent), which gives a score-function gradient nothing
  to follow past the edge.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from infometer.core.estimate import Estimate
from infometer.core.progress import progress_bar
from infometer.core.results import Result
from infometer.core.seeding import Seed, resolve_seed
from infometer.core.training import optimizer, run_epochs
from infometer.core.validation import check_stochastic_matrix
from infometer.measures import exact

from ._validate import as_float_array, check_float, check_int
from .persuasion import _best, _utilities, persuade
from .voi import utility_estimate

__all__ = ["MultiTurnResult", "evaluate_multiturn", "train_sender", "SenderTraining"]


def _check_policies(policies: Any, n_states: int) -> tuple[list[np.ndarray], int]:
    if not isinstance(policies, list | tuple) or not policies:
        raise TypeError("policies must be a non-empty list, one array per turn")
    out = []
    n_m = None
    for t, p in enumerate(policies):
        a = as_float_array(p, f"policies[{t}]")
        if a.ndim != 3:
            raise ValueError(
                f"policies[{t}] must have shape (n_states, n_messages**{t}, n_messages), "
                f"got {a.shape}"
            )
        n_m = a.shape[2] if n_m is None else n_m
        want = (n_states, n_m**t, n_m)
        if a.shape != want:
            raise ValueError(f"policies[{t}] must have shape {want}, got {a.shape}")
        out.append(
            check_stochastic_matrix(
                a, f"policies[{t}]", axis=2, ndim=3, what="(states, histories, messages)"
            )
        )
    assert n_m is not None
    return out, n_m


@dataclass(frozen=True, eq=False)
class MultiTurnResult(Result):
    """What a multi-turn scheme is worth and how much it reveals, turn by turn."""

    value: Estimate  # sender's expected utility (hard best response, ties to the sender)
    history_probabilities: np.ndarray  # P(h_T), shape (M**T,)
    posteriors: np.ndarray  # mu_h, shape (M**T, n_states) (rows of impossible h are the prior)
    actions: np.ndarray  # receiver's action after each h_T
    per_turn_cmi: list[Estimate]  # I(M_t; W | H_{t-1}), t = 1..T
    total_mi: Estimate  # I(H_T; W)

    def __repr__(self) -> str:
        cmi = ", ".join(f"{e.value:.4g}" for e in self.per_turn_cmi)
        return (
            f"MultiTurnResult(value={self.value.value:.6g}, per_turn_cmi=[{cmi}] "
            f"{self.total_mi.unit}, total_mi={self.total_mi.value:.6g})"
        )


def _joint_histories(policies: list[np.ndarray], n_m: int) -> list[np.ndarray]:
    """``P(h_t | w)`` for t = 0..T, each of shape (n_states, M**t), histories in base-M."""
    lik = [np.ones((policies[0].shape[0], 1))]
    for pol in policies:
        # h_t = h_{t-1} * M + m_t
        lik.append((lik[-1][:, :, None] * pol).reshape(pol.shape[0], -1))
    return lik


def evaluate_multiturn(
    prior: Any,
    receiver_utility: Any,
    sender_utility: Any,
    policies: Any,
    *,
    unit: str | None = "nats",
    base: float | None = None,
) -> MultiTurnResult:
    """Exact value, posteriors and per-turn information of a committed multi-turn scheme.

    Parameters
    ----------
    prior, receiver_utility, sender_utility
        As in :func:`~.persuasion.persuade` (utilities ``[a, w]``).
    policies
        ``policies[t][w, h, m] = pi_t(m | w, h)`` for turns ``t = 0..T-1``, shape
        ``(n_states, M**t, M)``; histories are numbered in base ``M``, oldest message first.
    unit, base
        Unit of the mutual informations.
    """
    mu0, u, v = _utilities(prior, receiver_utility, sender_utility)
    pols, n_m = _check_policies(policies, mu0.size)
    lik = _joint_histories(pols, n_m)
    cmi = []
    for t, pol in enumerate(pols):
        # p(m_t, w, h_{t-1}) = mu0(w) P(h_{t-1} | w) pi_t(m_t | w, h_{t-1})
        table3 = mu0[:, None, None] * lik[t][:, :, None] * pol  # (w, h, m)
        cmi.append(exact.cond_mutual_info(table3.transpose(2, 0, 1), unit=unit, base=base))
    joint = mu0[:, None] * lik[-1]  # (w, h_T)
    p_h = joint.sum(axis=0)
    post = np.where(p_h[:, None] > 0, joint.T / np.maximum(p_h, 1e-300)[:, None], mu0[None, :])
    acts = np.array([_best(p, u, v) for p in post])
    value = float(sum(p_h[h] * (v[acts[h]] @ post[h]) for h in range(p_h.size)))
    return MultiTurnResult(
        value=utility_estimate(value, "persuasion_value", "multiturn_exact"),
        history_probabilities=p_h,
        posteriors=post,
        actions=acts,
        per_turn_cmi=cmi,
        total_mi=exact.mutual_info(joint, unit=unit, base=base),
    )


@dataclass(eq=False)
class SenderTraining(Result):
    """A trained sender: its scheme, what it achieves, and the LP value it aims for.

    ``fraction_of_lp`` is ``value / lp_value`` (meaningful when the LP value is positive);
    ``gap`` is ``lp_value - value`` in utility units; ``restart_values`` the hard value each
    restart reached (the best one is kept).
    """

    policies: list[np.ndarray]
    result: MultiTurnResult
    lp_value: float
    fraction_of_lp: float
    gap: float
    restart_values: list[float] = field(default_factory=list)
    losses: list[float] = field(default_factory=list)
    wall_seconds: float = 0.0

    def __repr__(self) -> str:
        return (
            f"SenderTraining(value={self.result.value.value:.6g}, lp_value={self.lp_value:.6g}, "
            f"fraction_of_lp={self.fraction_of_lp:.4f}, restarts={len(self.restart_values)})"
        )


def train_sender(
    prior: Any,
    receiver_utility: Any,
    sender_utility: Any,
    *,
    n_messages: int = 2,
    n_turns: int = 1,
    steps: int = 1500,
    batch_size: int = 256,
    lr: float = 0.02,
    temperature: tuple[float, float] = (0.3, 0.003),
    restarts: int = 1,
    seed: Seed = 0,
    threads: int | None = 1,
    progress: bool | None = None,
    unit: str | None = "nats",
) -> SenderTraining:
    """Train a sender by policy gradient against a Bayesian receiver.

    Parameters
    ----------
    prior, receiver_utility, sender_utility
        The persuasion problem (utilities ``[a, w]``).
    n_messages, n_turns
        ``M`` messages per turn, ``T`` turns.
    steps, batch_size, lr
        Adam steps on batches of sampled episodes (state, messages).
    temperature
        Start and end temperature of the receiver's logit response, relative to the range of
        its utilities; annealed geometrically.  The final scheme is evaluated with the hard
        best response (:func:`evaluate_multiturn`).
    restarts
        Independent runs; the first starts from uniform messages, the others from random
        logits (standard normal).  The scheme with the highest exact value is kept: with
        several turns the objective has local optima (see docs/decision.md).
    seed
        Seed of the sampling and of the restarts' initial logits. An int >= 0 (the same int gives
        the same numbers), a numpy.random.Generator (drawn from as it is) or None (fresh entropy
        from the operating system).
    threads
        torch's threads while training (restored after); ``None``: the library's training
        default (one thread: the tensors are tiny; ``infometer.core._threads``).
    """
    import torch

    mu0, u, v = _utilities(prior, receiver_utility, sender_utility)
    n_m = check_int(n_messages, "n_messages", min_value=2)
    n_t = check_int(n_turns, "n_turns", min_value=1, max_value=12)
    steps = check_int(steps, "steps", min_value=1)
    batch_size = check_int(batch_size, "batch_size", min_value=1)
    lr = check_float(lr, "lr", low=0.0, inclusive=(False, True))
    restarts = check_int(restarts, "restarts", min_value=1)
    if not isinstance(temperature, tuple | list) or len(temperature) != 2:
        raise TypeError("temperature must be a (start, end) pair")
    t0_, t1_ = (
        check_float(t, "temperature", low=0.0, inclusive=(False, True)) for t in temperature
    )
    seed = resolve_seed(seed)
    from infometer.core._threads import training_threads

    if threads is not None:
        check_int(threads, "threads", min_value=1)
    stack = contextlib.ExitStack()
    stack.enter_context(training_threads(threads))  # torch threads, restored after
    bar = progress_bar(total=steps * restarts, desc="policy-gradient sender", progress=progress)
    start = time.perf_counter()
    runs = []
    try:
        for r in range(restarts):
            gen = torch.Generator().manual_seed(seed * 1000 + r)
            shapes = [(mu0.size, n_m**t, n_m) for t in range(n_t)]
            init = [
                torch.zeros(sh, dtype=torch.float64)
                if r == 0
                else torch.randn(sh, generator=gen, dtype=torch.float64)
                for sh in shapes
            ]
            pols, losses = _train(torch, mu0, u, v, init, steps, batch_size, lr, t0_, t1_, gen, bar)
            runs.append((evaluate_multiturn(mu0, u, v, pols, unit=unit), pols, losses))
    finally:
        stack.close()
        if bar is not None:
            bar.close()
    values = [res.value.value for res, _, _ in runs]
    best = int(np.argmax(values))
    result, policies, losses = runs[best]
    lp = persuade(mu0, u, v).value.value
    value = result.value.value
    frac = value / lp if lp > 1e-12 * max(1.0, float(np.abs(v).max())) else float("nan")
    return SenderTraining(
        policies=policies,
        result=result,
        lp_value=lp,
        fraction_of_lp=frac,
        gap=lp - value,
        restart_values=values,
        losses=losses,
        wall_seconds=time.perf_counter() - start,
    )


def _train(torch, mu0, u, v, init, steps, batch_size, lr, t0_, t1_, gen, bar):
    """One run of the policy-gradient sender from initial logits ``init``."""
    n_s, n_m = mu0.size, init[0].shape[-1]
    logits = [x.clone().requires_grad_(True) for x in init]
    opt, _ = optimizer(logits, lr=lr)
    mu0_t = torch.as_tensor(mu0)
    u_t, v_t = torch.as_tensor(u), torch.as_tensor(v)
    span = float(u.max() - u.min()) or 1.0
    state = {"baseline": 0.0}

    def step_loss(step: int):  # one epoch of infometer.core.training.run_epochs = one step
        tau = span * t0_ * (t1_ / t0_) ** (step / max(1, steps - 1))
        w = torch.multinomial(mu0_t, batch_size, replacement=True, generator=gen)
        h = torch.zeros(batch_size, dtype=torch.long)
        logp = torch.zeros(batch_size, dtype=torch.float64)
        loglik_all = torch.zeros(batch_size, n_s, dtype=torch.float64)  # log P(h | w') for all w'
        for lg in logits:
            lp = torch.log_softmax(lg, dim=-1)  # (w, h, m)
            m = torch.multinomial(lp[w, h].exp(), 1, generator=gen).squeeze(1)
            logp = logp + lp[w, h, m]
            loglik_all = loglik_all + lp[:, h, m].T
            h = h * n_m + m
        post = torch.softmax(loglik_all + torch.log(mu0_t.clamp(min=1e-300)), dim=1)  # (B, w)
        resp = torch.softmax((post @ u_t.T) / tau, dim=1)  # (B, a)
        gain = (resp * v_t[:, w].T).sum(1)  # expected sender utility given (w, h)
        adv = gain.detach() - state["baseline"]
        loss = -(adv * logp + gain).mean()
        state["baseline"] = 0.9 * state["baseline"] + 0.1 * float(gain.detach().mean())
        if bar is not None:
            bar.update(1)
        return loss, {"loss": float(loss.detach())}

    history = run_epochs(opt, steps, lambda step: [step], step_loss, progress=False)
    losses = [h["loss"] for h in history]
    return [torch.softmax(lg.detach(), dim=-1).numpy() for lg in logits], losses
