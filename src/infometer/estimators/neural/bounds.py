"""Variational MI bounds and f-divergence (f-DIME) objectives on critic scores (needs torch).

Every function here is pure: it takes critic scores and returns tensors.  Notation:
``t`` are the scores ``T(x_i, y_i)`` of joint rows (shape ``(B,)``), ``m`` the scores of
product-of-marginals pairs ``T(x_i, y_j)`` (shape ``(M,)``, pooled), ``f`` the full
``(B, B)`` score matrix with the joint rows on its diagonal (InfoNCE).

* ``dv``: Donsker–Varadhan, ``E_P[T] − log E_Q[e^T]``.
* ``mine``: the DV value; the gradient of the log-partition term uses a moving average
  of ``E_Q[e^T]`` in the denominator (Belghazi et al. 2018), which removes the minibatch
  bias of the DV gradient.
* ``nwj``: Nguyen–Wainwright–Jordan, ``E_P[f] − e^{−1} E_Q[e^f]`` written with ``f = T + 1``,
  i.e. ``1 + E_P[T] − E_Q[e^T]`` (optimal ``T = log r``; ``T ≡ 0`` gives 0).
* ``infonce``: ``mean_i [f_ii − log Σ_j e^{f_ij}] + log B`` (van den Oord et al. 2018);
  never above ``log B``.
* ``smile``: ``E_P[T] − log E_Q[clip(e^T, e^{−τ}, e^{τ})]``, the critic trained with the
  Jensen–Shannon objective (Song & Ermon 2020, as in their code).
* ``kl_dime`` / ``gan_dime`` / ``hd_dime`` (Letizia, Novello & Tonello 2024): the critic is
  trained on an f-divergence objective whose optimum satisfies ``T* = log p/q``; the
  estimate is ``E_P[T]`` on joint rows.  With the critic output ``T``:
  KL: maximise ``E_P[T] − E_Q[e^T] + 1``; GAN: logistic loss ``softplus(−T)`` on joint,
  ``softplus(T)`` on product rows (``D = σ(T)``, ``R = D/(1−D) = e^T``); HD (squared
  Hellinger): minimise ``E_P[e^{−T/2}] + E_Q[e^{T/2}]`` (``D = e^{−T/2}``, ``R = 1/D²``).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

__all__ = [
    "BOUNDS",
    "VARIATIONAL",
    "DIME",
    "log_mean_exp",
    "bound_value",
    "training_loss",
    "infonce_rows",
    "MovingLogMean",
]

#: Variational lower bounds (their value is the estimate).
VARIATIONAL = ("mine", "nwj", "infonce", "dv", "smile")
#: f-DIME: the estimate is the mean log density ratio ``E_P[T]``.
DIME = ("kl_dime", "gan_dime", "hd_dime")
BOUNDS = VARIATIONAL + DIME


def log_mean_exp(v: torch.Tensor) -> torch.Tensor:
    """``log mean exp(v)`` over all entries, computed stably."""
    return torch.logsumexp(v.reshape(-1), 0) - math.log(v.numel())


def infonce_rows(f: torch.Tensor) -> torch.Tensor:
    """Per-row InfoNCE terms ``f_ii − logsumexp_j f_ij + log B`` of a ``(B, B)`` matrix."""
    b = f.shape[0]
    return f.diagonal() - torch.logsumexp(f, 1) + math.log(b)


def bound_value(
    bound: str, t: torch.Tensor, m: torch.Tensor | None, tau: float = 5.0
) -> torch.Tensor:
    """The estimate of ``bound`` from joint scores ``t`` and pooled product scores ``m``.

    For InfoNCE pass the per-row terms as ``t`` (see :func:`infonce_rows`) and ``m=None``.
    """
    if bound == "infonce" or bound in DIME:
        return t.mean()
    assert m is not None
    if bound in ("dv", "mine"):
        return t.mean() - log_mean_exp(m)
    if bound == "nwj":
        return 1.0 + t.mean() - torch.exp(m).mean()
    if bound == "smile":
        return t.mean() - log_mean_exp(m.clamp(-tau, tau))
    raise ValueError(f"unknown bound {bound!r}")


def dime_objective(bound: str, t: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
    """The f-divergence objective (to maximise) whose optimum is ``T = log p/q``."""
    if bound == "kl_dime":
        return t.mean() - torch.exp(m).mean() + 1.0
    if bound == "gan_dime":
        return -F.softplus(-t).mean() - F.softplus(m).mean()
    if bound == "hd_dime":
        return 2.0 - torch.exp(-0.5 * t).mean() - torch.exp(0.5 * m).mean()
    raise ValueError(f"unknown f-DIME objective {bound!r}")


class MovingLogMean:
    """Moving average of ``E_Q[e^T]`` kept in log space (MINE's bias-corrected gradient)."""

    def __init__(self, rate: float = 0.01) -> None:
        self.rate = rate
        self.value: torch.Tensor | None = None

    def update(self, lme: torch.Tensor) -> torch.Tensor:
        lme = lme.detach()
        if self.value is None:
            self.value = lme
        else:
            self.value = torch.logaddexp(
                self.value + math.log1p(-self.rate), lme + math.log(self.rate)
            )
        return self.value


def training_loss(
    bound: str,
    t: torch.Tensor,
    m: torch.Tensor | None,
    *,
    tau: float = 5.0,
    moving: MovingLogMean | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(loss to minimise, minibatch estimate)`` for one batch.

    ``t``: joint scores (InfoNCE: per-row terms); ``m``: pooled product scores.
    """
    if bound == "infonce":
        v = t.mean()
        return -v, v.detach()
    assert m is not None
    if bound in DIME:
        return -dime_objective(bound, t, m), t.mean().detach()
    v = bound_value(bound, t, m, tau)
    if bound == "mine":
        assert moving is not None
        lme = log_mean_exp(m)
        ma = moving.update(lme)
        # d/dθ exp(lme − c) = (E e^T / MA) ∇ lme = E[e^T ∇T] / MA: the MINE gradient
        return -(t.mean() - torch.exp(lme - ma)), v.detach()
    if bound == "smile":
        js = -F.softplus(-t).mean() - F.softplus(m).mean()
        return -(js + (v - js).detach()), v.detach()
    return -v, v.detach()
