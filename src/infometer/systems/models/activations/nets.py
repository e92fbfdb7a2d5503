"""Small networks to swap activations in: a patch Transformer classifier, a ResNet-style CNN
and a random-initialised tiny BERT (built from a local config; nothing is downloaded).

:class:`PatchTransformer` reuses the blocks of
:class:`infometer.systems.probes.flow.TinyTransformer`
(pre-norm attention + ``Linear → GELU → Linear`` MLP) with a full (bidirectional) mask, a
linear patch embedding and a mean-pooled classification head.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from infometer.core.data import check_int
from infometer.core.seeding import Seed, resolve_seed
from infometer.systems.probes.flow import _Block

__all__ = ["PatchTransformer", "SmallResNet", "tiny_bert"]


class PatchTransformer(nn.Module):
    """Tokens of ``d_in`` features → ``n_layers`` Transformer blocks → class logits.

    Parameters
    ----------
    d_in
        Features per token (4 for 2×2 patches).
    n_tokens
        Tokens per input (16 for an 8×8 image in 2×2 patches).
    n_classes
        Output classes.
    d_model, n_heads, n_layers, d_mlp
        Width, heads, depth, MLP hidden width (default ``4 * d_model``).
    seed
        Seed of the initialisation (torch's global generator is left untouched). An int >= 0 (the
        same int gives the same numbers), a numpy.random.Generator (drawn from as it is) or None
        (fresh entropy from the operating system).

    ``forward(x)``: ``x`` of shape ``(B, n_tokens, d_in)`` → ``(B, n_classes)``.  The MLP
    activation of block ``l`` is ``blocks.l.mlp.1``.

    Examples
    --------
    >>> import torch
    >>> net = PatchTransformer(4, 16, 10, d_model=16, seed=0)
    >>> net(torch.randn(3, 16, 4)).shape
    torch.Size([3, 10])
    """

    def __init__(
        self,
        d_in: int,
        n_tokens: int,
        n_classes: int,
        *,
        d_model: int = 32,
        n_heads: int = 2,
        n_layers: int = 2,
        d_mlp: int | None = None,
        seed: Seed = 0,
    ) -> None:
        super().__init__()
        d_in = check_int(d_in, "d_in", min_value=1)
        n_tokens = check_int(n_tokens, "n_tokens", min_value=1)
        n_classes = check_int(n_classes, "n_classes", min_value=2)
        d_model = check_int(d_model, "d_model", min_value=1)
        n_heads = check_int(n_heads, "n_heads", min_value=1)
        n_layers = check_int(n_layers, "n_layers", min_value=1)
        if d_model % n_heads:
            raise ValueError(f"d_model={d_model} must be a multiple of n_heads={n_heads}")
        d_mlp = 4 * d_model if d_mlp is None else check_int(d_mlp, "d_mlp", min_value=1)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(resolve_seed(seed))
            self.embed = nn.Linear(d_in, d_model)
            self.pos = nn.Parameter(0.02 * torch.randn(n_tokens, d_model))
            self.blocks = nn.ModuleList(
                _Block(d_model, n_heads, d_model // n_heads, d_mlp, True, True)
                for _ in range(n_layers)
            )
            self.ln_f = nn.LayerNorm(d_model)
            self.head = nn.Linear(d_model, n_classes)
        self.n_tokens, self.d_in = n_tokens, d_in

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dim() != 3 or x.shape[1:] != (self.n_tokens, self.d_in):
            raise ValueError(
                f"input must have shape (batch, {self.n_tokens}, {self.d_in}), got {tuple(x.shape)}"
            )
        h = self.embed(x) + self.pos
        full = h.new_zeros(h.shape[1], h.shape[1])  # additive mask: every token sees all
        for blk in self.blocks:
            h = blk(h, full)
        return self.head(self.ln_f(h).mean(dim=1))


class _BasicBlock(nn.Module):
    """torchvision's ResNet BasicBlock (one shared ``relu``, as torchvision writes it)."""

    def __init__(self, c_in: int, c_out: int, stride: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(c_out)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(c_out, c_out, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(c_out)
        self.downsample = (
            nn.Sequential(nn.Conv2d(c_in, c_out, 1, stride, bias=False), nn.BatchNorm2d(c_out))
            if stride != 1 or c_in != c_out
            else None
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        idt = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + idt)


class SmallResNet(nn.Module):
    """A two-stage ResNet in torchvision's layout (``conv1, bn1, relu, layer1, layer2, fc``).

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> import torch
    >>> SmallResNet(n_classes=3, seed=0)(torch.randn(2, 1, 8, 8)).shape
    torch.Size([2, 3])
    """

    def __init__(self, c_in: int = 1, n_classes: int = 10, width: int = 8, seed: Seed = 0) -> None:
        super().__init__()
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(resolve_seed(seed))
            self.conv1 = nn.Conv2d(c_in, width, 3, 1, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(width)
            self.relu = nn.ReLU(inplace=True)
            self.layer1 = nn.Sequential(_BasicBlock(width, width, 1))
            self.layer2 = nn.Sequential(_BasicBlock(width, 2 * width, 2))
            self.avgpool = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(2 * width, n_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.layer2(self.layer1(x))
        return self.fc(torch.flatten(self.avgpool(x), 1))


def tiny_bert(seed: Seed = 0, **config: Any) -> Any:
    """A random-initialised, tiny ``transformers.BertModel`` from a local config (no download).

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> import torch
    >>> m = tiny_bert(seed=0)  # doctest: +SKIP
    >>> m(input_ids=torch.ones(2, 5, dtype=torch.long)).last_hidden_state.shape  # doctest: +SKIP
    torch.Size([2, 5, 32])
    """
    try:
        from transformers import BertConfig, BertModel
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("tiny_bert needs transformers: pip install transformers") from exc
    cfg = {
        "vocab_size": 64,
        "hidden_size": 32,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "intermediate_size": 64,
        "max_position_embeddings": 32,
    }
    cfg.update(config)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(resolve_seed(seed))
        return BertModel(BertConfig(**cfg)).eval()
