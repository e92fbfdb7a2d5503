"""The FleS kernels as plain torch functions (no modules, no state, no input checks).

``fles_phi``: φ(x̃) = κ_ve · σ(κ_ho · x̃) · x̃ (FleS, after Cai et al., ICLR 2026).
``channel_cue``: each channel's mean positive response x̄⁺_c (or mean response, both signs),
pooled over every axis but the channel one (``pooling="batch"``) or over every axis but the
batch and channel ones (``pooling="sample"``).
``normalised_cue``: μ_c = x̄⁺_c / mean_i x̄⁺_i.
"""

from __future__ import annotations

import torch

__all__ = ["fles_phi", "channel_cue", "normalised_cue", "broadcast_channels"]

# The normalisation divides by the mean cue over channels; a layer whose every response is
# negative has x̄⁺ = 0 in every channel, and then μ = 0 (not 0/0).
_TINY = 1e-12


def fles_phi(x: torch.Tensor, kappa_ve: torch.Tensor | float, kappa_ho: torch.Tensor | float):
    """φ(x) = κ_ve · σ(κ_ho · x) · x, with the κ's broadcast against ``x``."""
    return kappa_ve * torch.sigmoid(kappa_ho * x) * x


def channel_cue(x: torch.Tensor, channel_dim: int, pooling: str, signs: str) -> torch.Tensor:
    """Per-channel cue of ``x``: shape ``(C,)`` (pooling "batch") or ``(B, C)`` ("sample").

    ``signs="positive"``: mean of the responses x ≥ 0 (0 for a channel with none);
    ``signs="both"``: mean of all responses.
    """
    cd = channel_dim % x.dim()
    keep = (cd,) if pooling == "batch" else (0, cd)
    dims = tuple(i for i in range(x.dim()) if i not in keep)
    if signs == "positive":
        pos = (x >= 0).to(x.dtype)
        total = (x * pos).sum(dim=dims) if dims else x * pos
        count = pos.sum(dim=dims) if dims else pos
        cue = total / count.clamp_min(1.0)
    else:
        cue = x.mean(dim=dims) if dims else x
    return cue


def normalised_cue(cue: torch.Tensor) -> torch.Tensor:
    """μ_c = cue_c / mean_i cue_i over the last (channel) axis."""
    return cue / cue.mean(dim=-1, keepdim=True).clamp_min(_TINY)


def broadcast_channels(k: torch.Tensor, x: torch.Tensor, channel_dim: int) -> torch.Tensor:
    """Shape a ``(C,)`` or ``(B, C)`` coefficient so that it broadcasts against ``x``."""
    cd = channel_dim % x.dim()
    shape = [1] * x.dim()
    shape[cd] = k.shape[-1]
    if k.dim() == 2:
        shape[0] = k.shape[0]
    return k.reshape(shape)
