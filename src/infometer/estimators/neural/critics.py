"""Critic networks for the variational MI bounds (needs torch).

A critic scores pairs: ``T(x, y)`` (``T(x, y, z)`` for conditional MI).  Each variable
first goes through a :class:`FrontEnd`: continuous columns pass through (standardised
by the estimator), discrete columns are looked up in learned embedding tables (the
"embedding trick" the InfoSEDD paper compares against), and the results are
concatenated.

* :class:`SeparableCritic`: ``T = g(x)ᵀ h(y)`` (Song & Ermon's "separable"); the full
  ``B × B`` score matrix of a batch costs one matrix product.
* :class:`ConcatCritic`: ``T = MLP([x, y])`` (the "concat" / joint critic); a full
  matrix needs ``B²`` evaluations, so product pairs are usually drawn by derangement.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

__all__ = ["FrontEnd", "mlp", "SeparableCritic", "ConcatCritic", "build_critic", "CRITICS"]

CRITICS = ("separable", "concat")


class FrontEnd(nn.Module):
    """Continuous columns as they are, discrete columns through learned embeddings.

    Parameters
    ----------
    n_continuous
        Number of continuous columns.
    cardinalities
        Alphabet size of each discrete column.
    embed_dim
        Width of each discrete column's embedding.
    """

    def __init__(self, n_continuous: int, cardinalities: Sequence[int], embed_dim: int) -> None:
        super().__init__()
        self.n_continuous = int(n_continuous)
        cards = [int(k) for k in cardinalities]
        self.n_discrete = len(cards)
        self.embed_dim = int(embed_dim)
        if cards:
            offsets = torch.cumsum(torch.tensor([0, *cards[:-1]], dtype=torch.long), 0)
            self.register_buffer("offsets", offsets)
            self.table = nn.Embedding(sum(cards), self.embed_dim)
            nn.init.normal_(self.table.weight, std=1.0)
        self.out_dim = self.n_continuous + self.n_discrete * self.embed_dim

    def forward(self, cont: torch.Tensor, disc: torch.Tensor) -> torch.Tensor:
        parts = []
        if self.n_continuous:
            parts.append(cont)
        if self.n_discrete:
            parts.append(self.table(disc + self.offsets).flatten(1))
        return parts[0] if len(parts) == 1 else torch.cat(parts, 1)


def mlp(d_in: int, hidden: int, depth: int, d_out: int) -> nn.Sequential:
    """``depth`` hidden ReLU layers of width ``hidden``, then a linear output."""
    mods: list[nn.Module] = []
    d = d_in
    for _ in range(depth):
        mods += [nn.Linear(d, hidden), nn.ReLU()]
        d = hidden
    mods.append(nn.Linear(d, d_out))
    return nn.Sequential(*mods)


class SeparableCritic(nn.Module):
    """``T(x, y) = g([x, z])ᵀ h([y, z])``."""

    def __init__(
        self, fronts: dict[str, FrontEnd], hidden: int, depth: int, proj: int = 32
    ) -> None:
        super().__init__()
        self.fronts = nn.ModuleDict(fronts)
        dz = fronts["z"].out_dim if "z" in fronts else 0
        self.g = mlp(fronts["x"].out_dim + dz, hidden, depth, proj)
        self.h = mlp(fronts["y"].out_dim + dz, hidden, depth, proj)
        _zero_last(self.h)  # T = 0 at the start (gradients still reach h through g)

    def embed(self, fx: torch.Tensor, fy: torch.Tensor, fz: torch.Tensor | None = None):
        if fz is not None:
            fx, fy = torch.cat([fx, fz], 1), torch.cat([fy, fz], 1)
        return self.g(fx), self.h(fy)

    def pairs(self, fx: torch.Tensor, fy: torch.Tensor, fz: torch.Tensor | None = None):
        """Scores of row-aligned triples ``(x_i, y_i, z_i)``: shape ``(B,)``."""
        gx, hy = self.embed(fx, fy, fz)
        return (gx * hy).sum(1)

    def matrix(self, fx: torch.Tensor, fy: torch.Tensor) -> torch.Tensor:
        """All scores ``T(x_i, y_j)``: shape ``(B, B)``."""
        gx, hy = self.embed(fx, fy)
        return gx @ hy.T


class ConcatCritic(nn.Module):
    """``T(x, y) = MLP([x, y, z])``."""

    def __init__(self, fronts: dict[str, FrontEnd], hidden: int, depth: int) -> None:
        super().__init__()
        self.fronts = nn.ModuleDict(fronts)
        self.net = mlp(sum(f.out_dim for f in fronts.values()), hidden, depth, 1)
        _zero_last(self.net)  # T = 0 at the start

    def pairs(self, fx: torch.Tensor, fy: torch.Tensor, fz: torch.Tensor | None = None):
        parts = [fx, fy] if fz is None else [fx, fy, fz]
        return self.net(torch.cat(parts, 1)).squeeze(1)

    def matrix(self, fx: torch.Tensor, fy: torch.Tensor) -> torch.Tensor:
        b = fx.shape[0]
        xx = fx[:, None, :].expand(b, b, fx.shape[1])
        yy = fy[None, :, :].expand(b, b, fy.shape[1])
        return self.net(torch.cat([xx, yy], 2)).squeeze(2)


def _zero_last(seq: nn.Sequential) -> None:
    """Zero the output layer: the critic starts as the constant T = 0, whose every bound is 0."""
    last = seq[-1]
    nn.init.zeros_(last.weight)
    nn.init.zeros_(last.bias)


def build_critic(
    kind: str, fronts: dict[str, FrontEnd], hidden: int, depth: int, proj: int = 32
) -> nn.Module:
    """A ``"separable"`` or ``"concat"`` critic over the given front ends."""
    if kind == "separable":
        return SeparableCritic(fronts, hidden, depth, proj)
    if kind == "concat":
        return ConcatCritic(fronts, hidden, depth)
    raise ValueError(f"critic must be one of {list(CRITICS)}, got {kind!r}")
