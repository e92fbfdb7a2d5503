"""FleS-Proto, FleS and its two ablations as ``torch.nn.Module`` s, and one factory.

φ(x̃) = κ_ve · σ(κ_ho · x̃) · x̃ (Cai et al., "Toward principled flexible scaling for
self-gated neural activation", ICLR 2026).  κ_ve bounds the gate, κ_ho sets its slope; with
κ_ve = κ_ho = 1 it is SiLU.  The κ's come from a *non-local cue*: each channel's mean
positive response x̄⁺_c.

* :class:`FleSProto`: κ = softplus(α · μ_c + γ) per channel, μ_c = x̄⁺_c / mean_i x̄⁺_i,
  α initialised to 1e-3 and γ to 0.6 (κ ≈ softplus(0.6) ≈ 1.0375 at the start).
* :class:`FleS` (``cue="positive"``): κ_ve = softplus(MLP_ve(x̄⁺)), κ_ho =
  softplus(MLP_ho(x̄⁺)), each MLP ``C → C // reduction → C`` with a ReLU between (reduction
  32); its last layer starts at bias 0.6 and weights 1e-3 times the default initialisation,
  so that κ starts where the prototype's does.
* ablations: ``cue="none"`` (FleS-DG, no statistics: κ = softplus(γ) per channel, γ from
  0.6) and ``cue="both"`` (FleS-P&N: the cue is the mean of all responses, both signs).

Statistics policy (the paper does not state one; this is infometer's, stated here and in
docs/activations.md): with ``pooling="batch"`` (default) the cue pools over every axis but
the channel axis, i.e. the batch and the tokens / pixels, in training mode, as BatchNorm
does; a running estimate ``running_cue`` (exponential average with ``momentum``, BatchNorm's
convention: new = (1 − momentum)·old + momentum·batch; ``momentum=None``: cumulative mean)
is used in evaluation mode, so that a sample's evaluation output does not depend on its
batch-mates.  It starts at 1 in every channel.  ``track_running_stats=False`` uses the
batch statistics in evaluation too.  With ``pooling="sample"`` the cue pools over one
sample's tokens / pixels only, in both modes (no batch dependence, no running estimate).
"""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from infometer.core.data import check_choice, check_float, check_int
from infometer.core.seeding import Seed, resolve_seed
from infometer.core.validation import check_memory

from ._functional import broadcast_channels, channel_cue, fles_phi, normalised_cue

__all__ = [
    "KINDS",
    "FLES_KINDS",
    "FleSProto",
    "FleS",
    "make_activation",
    "kind_of",
]

#: Every kind :func:`make_activation` builds.
KINDS = ("gelu", "silu", "relu", "fles_proto", "fles", "fles_dg", "fles_pn")
#: The kinds that are FleS modules (they need ``channels``).
FLES_KINDS = ("fles_proto", "fles", "fles_dg", "fles_pn")
_POOLINGS = ("batch", "sample")
_CUES = {"fles": "positive", "fles_dg": "none", "fles_pn": "both"}

ALPHA0 = 1e-3  # the prototype's α at initialisation
GAMMA0 = 0.6  # the prototype's γ (and the MLP's output bias) at initialisation


class _FleSBase(nn.Module):
    """Shared state of the FleS modules: channels, the cue, its running estimate."""

    signs = "positive"
    uses_statistics = True

    def __init__(
        self,
        channels: int,
        *,
        channel_dim: int = -1,
        pooling: str = "batch",
        momentum: float | None = 0.1,
        track_running_stats: bool = True,
    ) -> None:
        super().__init__()
        self.channels = check_int(channels, "channels", min_value=1)
        check_memory(  # a running cue and a few per-channel parameters, float32
            16.0 * self.channels,
            what=f"per-channel buffers of {self.channels} channels",
            name="channels",
            override="check the channel count (the width of the layer before)",
        )
        if isinstance(channel_dim, bool) or not isinstance(channel_dim, int):
            raise TypeError(f"channel_dim must be an integer, got {channel_dim!r}")
        self.channel_dim = channel_dim
        self.pooling = check_choice(pooling, "pooling", _POOLINGS)
        if momentum is not None:
            momentum = check_float(momentum, "momentum", low=0.0, high=1.0, inclusive=(False, True))
        self.momentum = momentum
        self.track_running_stats = bool(track_running_stats)
        self.register_buffer("running_cue", torch.ones(self.channels))
        self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long))

    # ------------------------------------------------------------------ input
    def _check(self, x: Any) -> int:
        if not isinstance(x, torch.Tensor):
            raise TypeError(
                f"input to {type(self).__name__} must be a tensor, got {type(x).__name__}"
            )
        if not x.is_floating_point():
            raise TypeError(f"input to {type(self).__name__} must be floating point, got {x.dtype}")
        if x.dim() == 0 or not -x.dim() <= self.channel_dim < x.dim():
            raise ValueError(
                f"input to {type(self).__name__} has shape {tuple(x.shape)}: channel_dim="
                f"{self.channel_dim} is not one of its axes"
            )
        cd = self.channel_dim % x.dim()
        if x.shape[cd] != self.channels:
            raise ValueError(
                f"input to {type(self).__name__} has {x.shape[cd]} channels on axis "
                f"{self.channel_dim} (shape {tuple(x.shape)}) but the module was built with "
                f"channels={self.channels}"
            )
        if self.uses_statistics and self.pooling == "sample" and (x.dim() < 2 or cd == 0):
            raise ValueError(
                f"pooling='sample' needs a batch axis 0 apart from the channel axis; input has "
                f"shape {tuple(x.shape)} with channel_dim={self.channel_dim}"
            )
        return cd

    # -------------------------------------------------------------------- cue
    def cue(self, x: torch.Tensor, *, update: bool = False) -> torch.Tensor:
        """The cue this module uses for ``x`` now: ``(C,)`` or ``(B, C)`` (pooling "sample").

        In training mode with ``pooling="batch"`` it is the batch's; in evaluation mode the
        running estimate (unless ``track_running_stats=False``).  ``update=True`` (the
        forward pass) also folds the batch's cue into the running estimate when training.
        """
        cd = self._check(x)
        if self.pooling == "sample":
            return channel_cue(x, cd, "sample", self.signs)
        if self.training or not self.track_running_stats:
            c = channel_cue(x, cd, "batch", self.signs)
            if self.training and self.track_running_stats and update:
                with torch.no_grad():
                    self.num_batches_tracked += 1
                    m = (
                        1.0 / float(self.num_batches_tracked)
                        if self.momentum is None
                        else self.momentum
                    )
                    self.running_cue.mul_(1.0 - m).add_(
                        c.detach().to(self.running_cue.dtype), alpha=m
                    )
            return c
        return self.running_cue.to(x.dtype)

    def kappas_from_cue(self, cue: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        raise NotImplementedError

    def kappas(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(κ_ve, κ_ho) this module applies to ``x``, each ``(C,)`` or ``(B, C)``; no update.

        Examples
        --------
        >>> import torch
        >>> act = FleSProto(4).eval()
        >>> k_ve, k_ho = act.kappas(torch.randn(2, 4))
        >>> round(float(k_ve[0].detach()), 4)  # softplus(0.6 + 1e-3) with the initial running cue
        1.0381
        """
        return self.kappas_from_cue(self.cue(x))

    def gate(self, x: torch.Tensor) -> torch.Tensor:
        """The gate σ(κ_ho · x) in [0, 1] (its limit divided out), shaped like ``x``."""
        cd = self._check(x)
        _, k_ho = self.kappas(x)
        return torch.sigmoid(broadcast_channels(k_ho, x, cd) * x)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        cd = self._check(x)
        k_ve, k_ho = self.kappas_from_cue(self.cue(x, update=True))
        return fles_phi(x, broadcast_channels(k_ve, x, cd), broadcast_channels(k_ho, x, cd))

    def extra_repr(self) -> str:
        return (
            f"channels={self.channels}, channel_dim={self.channel_dim}, pooling={self.pooling!r}, "
            f"momentum={self.momentum}"
        )


class FleSProto(_FleSBase):
    """FleS-Proto: κ = softplus(α · μ_c + γ), μ_c = x̄⁺_c / mean_i x̄⁺_i, per channel.

    Parameters
    ----------
    channels
        Number of channels C (the size of ``channel_dim`` of the input).
    channel_dim
        The channel axis: -1 for (B, L, C) token features, 1 for (B, C, H, W) images.
    pooling
        ``"batch"`` (cue over batch and tokens in training, running estimate at evaluation)
        or ``"sample"`` (cue over one sample's tokens only).
    momentum
        Of the running cue (BatchNorm's convention); ``None``: cumulative average.
    track_running_stats
        False: evaluation uses the batch's cue too.

    Attributes
    ----------
    alpha_ve, gamma_ve, alpha_ho, gamma_ho
        ``(C,)`` parameters, α from 1e-3 and γ from 0.6.

    Examples
    --------
    >>> import torch
    >>> act = FleSProto(8)
    >>> act(torch.randn(4, 5, 8)).shape
    torch.Size([4, 5, 8])
    """

    def __init__(self, channels: int, **kwargs: Any) -> None:
        super().__init__(channels, **kwargs)
        c = self.channels
        self.alpha_ve = nn.Parameter(torch.full((c,), ALPHA0))
        self.gamma_ve = nn.Parameter(torch.full((c,), GAMMA0))
        self.alpha_ho = nn.Parameter(torch.full((c,), ALPHA0))
        self.gamma_ho = nn.Parameter(torch.full((c,), GAMMA0))

    def kappas_from_cue(self, cue: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        mu = normalised_cue(cue)
        return (
            F.softplus(self.alpha_ve * mu + self.gamma_ve),
            F.softplus(self.alpha_ho * mu + self.gamma_ho),
        )


def _mlp(c_in: int, c: int, reduction: int, gen: torch.Generator) -> nn.Sequential:
    hidden = max(1, c // reduction)
    first, last = nn.Linear(c_in, hidden), nn.Linear(hidden, c)
    with torch.no_grad():
        for lin in (first, last):  # torch's default Linear initialisation, seeded
            nn.init.kaiming_uniform_(lin.weight, a=math.sqrt(5), generator=gen)
            bound = 1.0 / math.sqrt(lin.in_features)
            nn.init.uniform_(lin.bias, -bound, bound, generator=gen)
        last.weight.mul_(ALPHA0)
        last.bias.fill_(GAMMA0)
    return nn.Sequential(first, nn.ReLU(), last)


class FleS(_FleSBase):
    """FleS: κ_ve = softplus(MLP_ve(cue)), κ_ho = softplus(MLP_ho(cue)).

    Parameters
    ----------
    channels
        Number of channels C.
    cue
        ``"positive"`` (FleS: mean positive response x̄⁺), ``"both"`` (the P&N ablation:
        mean of all responses) or ``"none"`` (the DG ablation: κ = softplus(γ) per channel,
        no statistics, no MLP).
    reduction
        Channel reduction of the MLPs (hidden width ``max(1, C // reduction)``).
    seed
        Seed of the MLPs' initialisation. An int >= 0 (the same int gives the same numbers), a
        numpy.random.Generator (drawn from as it is) or None (fresh entropy from the operating
        system).
    channel_dim, pooling, momentum, track_running_stats
        As for :class:`FleSProto`.

    Examples
    --------
    >>> import torch
    >>> act = FleS(64, seed=0)
    >>> act.mlp_ve
    Sequential(
      (0): Linear(in_features=64, out_features=2, bias=True)
      (1): ReLU()
      (2): Linear(in_features=2, out_features=64, bias=True)
    )
    >>> act(torch.randn(3, 64)).shape
    torch.Size([3, 64])
    """

    def __init__(
        self,
        channels: int,
        *,
        cue: str = "positive",
        reduction: int = 32,
        seed: Seed = 0,
        **kwargs: Any,
    ) -> None:
        reduction = check_int(reduction, "reduction", min_value=1)
        c = check_int(channels, "channels", min_value=1)
        hidden = max(1, c // reduction)
        check_memory(  # two c -> hidden -> c MLPs, float32, with their gradients
            2 * 2 * 2 * 4.0 * c * hidden,
            what=f"two {c} -> {hidden} -> {c} cue MLPs (and their gradients)",
            name="channels",
            override="a larger reduction= (hidden width channels // reduction)",
        )
        super().__init__(channels, **kwargs)
        self.cue_kind = check_choice(cue, "cue", ("positive", "both", "none"))
        self.signs = "both" if cue == "both" else "positive"
        self.uses_statistics = cue != "none"
        self.reduction = reduction
        c = self.channels
        if cue == "none":
            self.gamma_ve = nn.Parameter(torch.full((c,), GAMMA0))
            self.gamma_ho = nn.Parameter(torch.full((c,), GAMMA0))
            return
        gen = torch.Generator().manual_seed(resolve_seed(seed))
        self.mlp_ve = _mlp(c, c, self.reduction, gen)
        self.mlp_ho = _mlp(c, c, self.reduction, gen)

    def cue(self, x: torch.Tensor, *, update: bool = False) -> torch.Tensor:
        if not self.uses_statistics:
            self._check(x)
            return self.gamma_ve.new_zeros(self.channels)
        return super().cue(x, update=update)

    def kappas_from_cue(self, cue: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if not self.uses_statistics:
            return F.softplus(self.gamma_ve), F.softplus(self.gamma_ho)
        return F.softplus(self.mlp_ve(cue)), F.softplus(self.mlp_ho(cue))

    def extra_repr(self) -> str:
        return f"{super().extra_repr()}, cue={self.cue_kind!r}, reduction={self.reduction}"


def make_activation(
    kind: str,
    channels: int | None = None,
    *,
    channel_dim: int = -1,
    pooling: str = "batch",
    momentum: float | None = 0.1,
    reduction: int = 32,
    seed: Seed = 0,
) -> nn.Module:
    """An activation module by name: ``gelu``, ``silu``, ``relu`` or a FleS kind.

    Parameters
    ----------
    kind
        One of :data:`KINDS`: ``"gelu"``, ``"silu"``, ``"relu"`` (torch's modules),
        ``"fles_proto"``, ``"fles"``, ``"fles_dg"`` (no statistics), ``"fles_pn"`` (cue from
        both signs).
    channels
        Number of channels; required for the FleS kinds, ignored otherwise.
    channel_dim, pooling, momentum
        Of the FleS kinds (see :class:`FleSProto`).
    reduction
        Of the MLP kinds (``fles``, ``fles_pn``).
    seed
        Of the MLP kinds (``fles``, ``fles_pn``). An int >= 0 (the same int gives the same numbers),
        a numpy.random.Generator (drawn from as it is) or None (fresh entropy from the operating
        system).

    Examples
    --------
    >>> import torch
    >>> make_activation("fles", 32)(torch.randn(2, 7, 32)).shape
    torch.Size([2, 7, 32])
    >>> make_activation("gelu")
    GELU(approximate='none')
    """
    kind = check_choice(kind, "kind", KINDS)
    if kind == "gelu":
        return nn.GELU()
    if kind == "silu":
        return nn.SiLU()
    if kind == "relu":
        return nn.ReLU()
    if channels is None:
        raise ValueError(f"kind={kind!r} needs channels= (the number of channels it gates)")
    common = {"channel_dim": channel_dim, "pooling": pooling, "momentum": momentum}
    if kind == "fles_proto":
        return FleSProto(channels, **common)
    return FleS(channels, cue=_CUES[kind], reduction=reduction, seed=seed, **common)


def kind_of(module: nn.Module) -> str | None:
    """The :data:`KINDS` name of an activation module, or None.

    Examples
    --------
    >>> kind_of(make_activation("fles_dg", 4))
    'fles_dg'
    """
    if isinstance(module, FleSProto):
        return "fles_proto"
    if isinstance(module, FleS):
        return {"positive": "fles", "none": "fles_dg", "both": "fles_pn"}[module.cue_kind]
    for name, cls in (("gelu", nn.GELU), ("silu", nn.SiLU), ("relu", nn.ReLU)):
        if isinstance(module, cls):
            return name
    return None
