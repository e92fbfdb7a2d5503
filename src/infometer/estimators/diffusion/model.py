"""Denoiser networks for absorbing-state (masked) discrete diffusion (needs torch).

A denoiser maps a token array ``z`` of shape ``(batch, D)`` with values in ``0..V``
(``V`` is the MASK token) to logits of shape ``(batch, D, V)``: the predicted
distribution of the clean token at every position (MDLM "subs" parameterisation).
No time input is needed: under absorbing noise the mask pattern carries all the
information about the noise level.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from infometer.core.training import check_device

__all__ = [
    "MLPDenoiser",
    "TransformerDenoiser",
    "build_denoiser",
    "check_arch_kwargs",
    "check_device",
]

#: Network sizes that must be positive integers (``blocks`` may be 0: no residual block).
_SIZES = {"hidden": 1, "d_embed": 1, "blocks": 0, "d_model": 1, "n_heads": 1, "n_layers": 1}


def check_arch_kwargs(kwargs: dict[str, Any]) -> dict[str, int]:
    """Validate network sizes before anything is built or trained (``hidden=0`` trained)."""
    from infometer.core.data import check_int

    out = {}
    for k, v in kwargs.items():
        if k not in _SIZES:
            raise TypeError(f"arch_kwargs has no size {k!r}; known: {', '.join(_SIZES)}")
        out[k] = check_int(v, k, min_value=_SIZES[k])
    if "d_model" in out and "n_heads" in out and out["d_model"] % out["n_heads"]:
        raise ValueError(
            f"d_model ({out['d_model']}) must be a multiple of n_heads ({out['n_heads']})"
        )
    return out


class MLPDenoiser(nn.Module):
    """Residual MLP over the flattened token embeddings (fast on CPU for D up to ~64).

    Parameters
    ----------
    vocab_size
        Number of real tokens V (the mask token is V).
    length
        Sequence length D.
    d_embed
        Token / position embedding width.
    hidden
        Width of the residual blocks.
    blocks
        Number of residual blocks.
    """

    def __init__(
        self, vocab_size: int, length: int, d_embed: int = 32, hidden: int = 256, blocks: int = 3
    ) -> None:
        super().__init__()
        self.vocab_size, self.length = vocab_size, length
        self.tok = nn.Embedding(vocab_size + 1, d_embed)
        self.pos = nn.Parameter(torch.randn(length, d_embed) * 0.02)
        self.inp = nn.Linear(length * d_embed, hidden)
        self.blocks = nn.ModuleList(
            nn.Sequential(
                nn.LayerNorm(hidden),
                nn.Linear(hidden, hidden),
                nn.GELU(),
                nn.Linear(hidden, hidden),
            )
            for _ in range(blocks)
        )
        self.out = nn.Sequential(nn.LayerNorm(hidden), nn.Linear(hidden, length * vocab_size))
        _zero(self.out[-1])

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        h = self.inp((self.tok(z) + self.pos).flatten(1))
        for b in self.blocks:
            h = h + b(h)
        return self.out(h).view(z.shape[0], self.length, self.vocab_size)


class TransformerDenoiser(nn.Module):
    """Small bidirectional transformer encoder (for long sequences, thousands of tokens).

    Parameters
    ----------
    vocab_size
        Number of real tokens V (the mask token is V).
    length
        Sequence length D (learned position embeddings).
    d_model, n_heads, n_layers
        Transformer width, heads and depth.
    """

    def __init__(
        self, vocab_size: int, length: int, d_model: int = 64, n_heads: int = 4, n_layers: int = 2
    ) -> None:
        super().__init__()
        self.vocab_size, self.length = vocab_size, length
        self.tok = nn.Embedding(vocab_size + 1, d_model)
        self.pos = nn.Parameter(torch.randn(length, d_model) * 0.02)
        layer = nn.TransformerEncoderLayer(
            d_model,
            n_heads,
            dim_feedforward=4 * d_model,
            dropout=0.0,
            batch_first=True,
            norm_first=True,
            activation="gelu",
        )
        self.encoder = nn.TransformerEncoder(layer, n_layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d_model)
        self.out = nn.Linear(d_model, vocab_size)
        _zero(self.out)

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        h = self.encoder(self.tok(z) + self.pos)
        return self.out(self.norm(h))


def _zero(layer: nn.Linear) -> None:
    """Zero the output layer: the untrained denoiser predicts the uniform law at every
    position (entropy ``D log V``, MI 0), the reference that training must beat on the
    validation rows (``val_at_start``) before its weights are kept."""
    nn.init.zeros_(layer.weight)
    nn.init.zeros_(layer.bias)


def build_denoiser(arch: str, vocab_size: int, length: int, **kwargs: int) -> nn.Module:
    """Build ``"mlp"`` or ``"transformer"`` (``"auto"``: MLP for D <= 64, else transformer)."""
    kwargs = check_arch_kwargs(kwargs)
    if arch == "auto":
        arch = "mlp" if length <= 64 else "transformer"
    if arch == "mlp":
        return MLPDenoiser(vocab_size, length, **kwargs)
    if arch == "transformer":
        return TransformerDenoiser(vocab_size, length, **kwargs)
    raise ValueError(f"arch must be 'auto', 'mlp' or 'transformer', got {arch!r}")
