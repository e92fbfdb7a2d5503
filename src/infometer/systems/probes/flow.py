"""Causal information flow in transformers: attention knockout, logit lens, pruning.

After Kim, Kim & Han, "Map the Flow: revealing hidden pathways of information in
VideoLLMs" (ICLR 2026).  An *edge* is "query position i may attend to key position j" in
one layer.  Knocking out a block of edges (keys K cannot be attended by queries Q) in a
window of layers and reading the next-token distribution at one position measures how
much the answer depended on information flowing through those edges:

* Δp = p_knock(t) − p_base(t) (and the paper's relative change in %);
* Δbits = log₂ p_base(t) − log₂ p_knock(t), the pointwise information (surprisal
  increase) the cut edges contributed to the answer token t;
* KL(p_base ‖ p_knock) over the whole next-token distribution.

The knockout replaces the attention mask of the chosen layers by the causal mask with the
blocked entries set to the dtype's most negative number, as the authors' code does.  A
query row never loses its own position (every row keeps at least one key); a block that
would leave a row with no key at all is an error.

Models: :class:`TinyTransformer` (built in, any size, weights can be set by hand) and any
Hugging Face causal LM whose attention modules take an additive ``attention_mask``
keyword (Llama, Qwen, Mistral, GPT-2, GPT-NeoX ... with ``eager`` or ``sdpa`` attention),
given as a model object or a local folder (:func:`infometer.core.encoders.load_hf`).  Inputs
are equal-length token sequences; blocks are positions, the same for every sequence.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from infometer.core.data import check_float, check_int
from infometer.core.estimate import Estimate
from infometer.core.progress import progress_bar
from infometer.core.results import Result
from infometer.core.seeding import Seed, as_generator

from ._common import mean_estimate

__all__ = [
    "TinyTransformer",
    "copy_circuit",
    "as_adapter",
    "edge_mask",
    "layer_window",
    "knockout_effect",
    "attention_knockout",
    "logit_lens",
    "prune_to_paths",
    "plot_knockout",
]

LN2 = math.log(2.0)


# ================================================================ the model
class _Attention(nn.Module):
    def __init__(self, d_model: int, n_heads: int, d_head: int, bias: bool) -> None:
        super().__init__()
        self.n_heads, self.d_head = n_heads, d_head
        self.q = nn.Linear(d_model, n_heads * d_head, bias=bias)
        self.k = nn.Linear(d_model, n_heads * d_head, bias=bias)
        self.v = nn.Linear(d_model, n_heads * d_head, bias=bias)
        self.o = nn.Linear(n_heads * d_head, d_model, bias=bias)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        b, t, _ = x.shape

        def split(y: torch.Tensor) -> torch.Tensor:
            return y.view(b, t, self.n_heads, self.d_head).transpose(1, 2)

        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.d_head) + mask
        w = torch.softmax(scores, dim=-1)
        return self.o((w @ v).transpose(1, 2).reshape(b, t, -1))


class _Block(nn.Module):
    def __init__(self, d_model, n_heads, d_head, d_mlp, norm, bias) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model) if norm else nn.Identity()
        self.attn = _Attention(d_model, n_heads, d_head, bias)
        self.ln2 = nn.LayerNorm(d_model) if norm and d_mlp else nn.Identity()
        self.mlp = (
            nn.Sequential(nn.Linear(d_model, d_mlp), nn.GELU(), nn.Linear(d_mlp, d_model))
            if d_mlp
            else None
        )

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x), mask)
        if self.mlp is not None:
            x = x + self.mlp(self.ln2(x))
        return x


class TinyTransformer(nn.Module):
    """A small causal (pre-norm) transformer whose every layer takes an additive mask.

    Parameters
    ----------
    vocab
        Number of input token ids.
    d_model, n_heads, n_layers
        Width, heads per layer, depth.
    max_len
        Longest sequence (learned position embeddings).
    d_head
        Width of one head (default ``d_model // n_heads``).
    d_mlp
        Hidden width of each MLP (default ``4 * d_model``; 0 for attention-only layers).
    norm
        LayerNorms before attention / MLP and before the unembedding.
    n_out
        Size of the output distribution (default ``vocab``).
    bias
        Biases in the attention projections.

    ``forward(tokens, masks=None, hidden=False)``: ``masks`` maps a layer index to an
    additive (T, T) or (B, T, T) mask that *replaces* the causal mask of that layer.
    """

    def __init__(
        self,
        vocab: int,
        d_model: int = 32,
        n_heads: int = 2,
        n_layers: int = 2,
        max_len: int = 64,
        *,
        d_head: int | None = None,
        d_mlp: int | None = None,
        norm: bool = True,
        n_out: int | None = None,
        bias: bool = True,
    ) -> None:
        super().__init__()
        vocab = check_int(vocab, "vocab", min_value=1)
        n_layers = check_int(n_layers, "n_layers", min_value=1)
        n_heads = check_int(n_heads, "n_heads", min_value=1)
        d_head = d_model // n_heads if d_head is None else check_int(d_head, "d_head", min_value=1)
        d_mlp = 4 * d_model if d_mlp is None else check_int(d_mlp, "d_mlp", min_value=0)
        self.config = {
            "vocab": vocab,
            "d_model": d_model,
            "n_heads": n_heads,
            "n_layers": n_layers,
            "max_len": max_len,
            "d_head": d_head,
            "d_mlp": d_mlp,
            "norm": norm,
            "n_out": n_out or vocab,
            "bias": bias,
        }
        self.embed = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(max_len, d_model)
        self.blocks = nn.ModuleList(
            _Block(d_model, n_heads, d_head, d_mlp, norm, bias) for _ in range(n_layers)
        )
        self.ln_f = nn.LayerNorm(d_model) if norm else nn.Identity()
        self.unembed = nn.Linear(d_model, n_out or vocab, bias=False)

    @property
    def n_layers(self) -> int:
        return len(self.blocks)

    def causal_mask(self, t: int) -> torch.Tensor:
        """The default additive causal mask (T, T) in the model's dtype."""
        dt = self.unembed.weight.dtype
        allowed = torch.ones(t, t, dtype=torch.bool).tril()
        return additive(allowed, dt)

    def forward(
        self,
        tokens: torch.Tensor,
        masks: dict[int, torch.Tensor] | None = None,
        hidden: bool = False,
    ) -> torch.Tensor | tuple[torch.Tensor, list[torch.Tensor]]:
        t = tokens.shape[1]
        if t > self.pos.num_embeddings:
            raise ValueError(f"sequences of length {t} exceed max_len={self.pos.num_embeddings}")
        x = self.embed(tokens) + self.pos(torch.arange(t, device=tokens.device))
        causal = self.causal_mask(t).to(tokens.device)
        hs = [x]
        for i, blk in enumerate(self.blocks):
            m = causal if masks is None or i not in masks else masks[i]
            if m.dim() == 3:
                m = m[:, None]
            x = blk(x, m)
            hs.append(x)
        logits = self.unembed(self.ln_f(x))
        return (logits, hs) if hidden else logits

    def lens(self, h: torch.Tensor) -> torch.Tensor:
        """Logit lens: final norm and unembedding applied to a residual stream ``h``."""
        return self.unembed(self.ln_f(h))


def additive(allowed: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """0 where ``allowed``, the dtype's most negative finite number elsewhere."""
    z = torch.zeros(allowed.shape, dtype=dtype)
    return z.masked_fill(~allowed, torch.finfo(dtype).min)


def copy_circuit(
    vocab: int, length: int, source: int, logit: float, dtype: torch.dtype = torch.float64
) -> TinyTransformer:
    """A 1-layer attention-only transformer, weights set by hand, in which the last position
    copies the token at position ``source`` with logit ``logit`` (no training).

    Token 0 is a neutral filler whose value vector is 0; tokens 1..V−1 are content.  The
    last query scores key ``source`` at 200 and every other key at 0, so in float64 it
    attends to ``source`` with weight exactly 1, and the logits are ``logit``·onehot(v) for
    the content token v there: p(v) = e^L / (e^L + V − 1).  Cutting the edge
    last ← source spreads attention over fillers (values 0): p(v) = 1/V, so
    Δbits = log₂(V e^L / (e^L + V − 1)); any other edge changes nothing.
    """
    v_, t_ = check_int(vocab, "vocab", min_value=2), check_int(length, "length", min_value=2)
    source = check_int(source, "source", min_value=0, max_value=t_ - 2)
    logit = check_float(logit, "logit")
    d = v_ + t_ + v_
    m = TinyTransformer(
        v_,
        d_model=d,
        n_heads=1,
        n_layers=1,
        max_len=t_,
        d_head=v_,
        d_mlp=0,
        norm=False,
        bias=False,
    ).to(dtype)
    with torch.no_grad():
        for p in m.parameters():
            p.zero_()
        m.embed.weight[:, :v_] = torch.eye(v_, dtype=dtype)
        m.pos.weight[:, v_ : v_ + t_] = torch.eye(t_, dtype=dtype)
        att = m.blocks[0].attn
        scale = 200.0 * math.sqrt(v_)  # score = q.k / sqrt(d_head) = 200
        att.q.weight[0, v_ + t_ - 1] = scale
        att.k.weight[0, v_ + source] = 1.0
        for tok in range(1, v_):
            att.v.weight[tok, tok] = float(logit)
            att.o.weight[v_ + t_ + tok, tok] = 1.0
        m.unembed.weight[:, v_ + t_ :] = torch.eye(v_, dtype=dtype)
    return m.eval()


# ================================================================= adapters
class _Adapter:
    """What the probes need from a model: masked logits, residual streams, a lens."""

    n_layers: int
    dtype: torch.dtype
    #: Token ids the model accepts (``None``: unknown) and its longest sequence.
    vocab_size: int | None = None
    max_len: int | None = None

    def logits(self, x: Any, masks: dict[int, torch.Tensor] | None) -> torch.Tensor:
        raise NotImplementedError

    def hidden(self, x: Any) -> tuple[torch.Tensor, list[torch.Tensor]]:
        raise NotImplementedError

    def lens(self, h: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError


class _TinyAdapter(_Adapter):
    def __init__(self, model: TinyTransformer) -> None:
        self.model = model
        self.n_layers = model.n_layers
        self.dtype = model.unembed.weight.dtype
        self.vocab_size = model.embed.num_embeddings
        self.max_len = model.pos.num_embeddings

    def logits(self, x, masks):
        return self.model(x, masks)

    def hidden(self, x):
        return self.model(x, hidden=True)

    def lens(self, h):
        return self.model.lens(h)


_ATTN_NAMES = ("self_attn", "attn", "attention", "self_attention")
_NORM_NAMES = ("norm", "ln_f", "final_layer_norm", "final_layernorm")


class _HFAdapter(_Adapter):
    """Forward pre-hooks on each decoder layer's attention replace ``attention_mask``."""

    def __init__(self, model: nn.Module) -> None:
        self.model = model
        cfg = model.config
        self.vocab_size = getattr(cfg, "vocab_size", None)
        self.max_len = getattr(cfg, "max_position_embeddings", None) or getattr(
            cfg, "n_positions", None
        )
        impl = getattr(cfg, "_attn_implementation", "eager") or "eager"
        if impl not in ("eager", "sdpa"):
            raise ValueError(
                f"attention implementation {impl!r} ignores additive masks; load the model "
                "with attn_implementation='eager' (or 'sdpa')"
            )
        n = getattr(cfg, "num_hidden_layers", None) or getattr(cfg, "n_layer", None)
        layers = None
        for mod in model.modules():
            if isinstance(mod, nn.ModuleList) and len(mod) == n:
                layers = mod
                break
        if layers is None:
            raise ValueError(f"no list of {n} decoder layers found in {type(model).__name__}")
        self.layers = layers
        self.attn = []
        for i, layer in enumerate(layers):
            sub = next((getattr(layer, a) for a in _ATTN_NAMES if hasattr(layer, a)), None)
            if sub is None:
                raise ValueError(f"decoder layer {i} has no attention module {_ATTN_NAMES}")
            self.attn.append(sub)
        self.n_layers = len(layers)
        self.dtype = next(model.parameters()).dtype
        base = getattr(model, "base_model", model)
        self.norm = next((getattr(base, a) for a in _NORM_NAMES if hasattr(base, a)), None)
        self.head = model.get_output_embeddings()
        if self.head is None:
            raise ValueError(f"{type(model).__name__} has no output embeddings (not a causal LM)")

    def logits(self, x, masks):
        handles = []
        try:
            for i, m in (masks or {}).items():
                mm = m if m.dim() == 4 else (m[None, None] if m.dim() == 2 else m[:, None])
                mm = mm.to(self.dtype)

                def hook(module, args, kwargs, mm=mm):
                    if "attention_mask" not in kwargs:
                        raise ValueError(
                            f"{type(module).__name__} does not receive attention_mask as a "
                            "keyword; this architecture is not supported by the knockout hook"
                        )
                    kwargs["attention_mask"] = mm.expand(x.shape[0], 1, -1, -1)
                    return args, kwargs

                handles.append(self.attn[i].register_forward_pre_hook(hook, with_kwargs=True))
            return self.model(input_ids=x, use_cache=False).logits
        finally:
            for h in handles:
                h.remove()

    def hidden(self, x):
        hs: list[torch.Tensor] = []

        def grab(module, args, out):
            hs.append(out[0] if isinstance(out, tuple) else out)

        handles = [layer.register_forward_hook(grab) for layer in self.layers]
        try:
            out = self.model(input_ids=x, use_cache=False, output_hidden_states=True)
        finally:
            for h in handles:
                h.remove()
        # hidden_states[0] is the embedding output; the layers' own outputs are taken from
        # hooks because some models put the final norm into hidden_states[-1]
        return out.logits, [out.hidden_states[0], *hs]

    def lens(self, h):
        return self.head(self.norm(h) if self.norm is not None else h)


def as_adapter(model: Any) -> _Adapter:
    """Wrap a :class:`TinyTransformer`, a Hugging Face causal LM, or a local folder path."""
    if isinstance(model, _Adapter):
        return model
    if isinstance(model, TinyTransformer):
        return _TinyAdapter(model)
    if isinstance(model, str) or hasattr(model, "__fspath__"):
        from infometer.core.encoders import load_hf

        _, model = load_hf(model, kind="causal_lm")
    if isinstance(model, nn.Module) and hasattr(model, "config"):
        return _HFAdapter(model)
    raise TypeError(
        "model must be a TinyTransformer, a Hugging Face causal LM (nn.Module with .config) "
        f"or a local model folder, got {type(model).__name__}"
    )


def _tokens(inputs: Any, adapter: _Adapter) -> torch.Tensor:
    """(n, T) token ids the model can read: integers, no masked values, ids inside the
    model's vocabulary, sequences no longer than its position table."""
    if isinstance(inputs, np.ma.MaskedArray):
        if np.ma.getmaskarray(inputs).any():
            raise ValueError("inputs is a masked array with masked token ids; drop or fill them")
        inputs = np.ma.getdata(inputs)
    if isinstance(inputs, dict) or hasattr(inputs, "keys"):
        am = inputs.get("attention_mask")
        if am is not None and not bool(torch.as_tensor(am).bool().all()):
            raise ValueError(
                "inputs are padded (attention_mask has zeros); knockout needs equal-length "
                "sequences without padding"
            )
        inputs = inputs["input_ids"]
    if not torch.is_tensor(inputs):
        try:
            inputs = np.asarray(inputs)
        except ValueError as exc:  # ragged
            raise ValueError(f"inputs must be (n, T) integer token ids: {exc}") from None
        if inputs.dtype.kind not in "iu":
            raise TypeError(f"inputs must be (n, T) integer token ids, got {inputs.dtype} values")
    x = torch.as_tensor(inputs)
    if x.dim() == 1:
        x = x[None]
    if x.dim() != 2 or x.dtype not in (torch.int64, torch.int32, torch.int16, torch.uint8):
        raise ValueError(f"inputs must be (n, T) integer token ids, got {tuple(x.shape)} {x.dtype}")
    if x.numel() == 0:
        raise ValueError("inputs are empty")
    x = x.long()
    vocab = adapter.vocab_size
    lo, hi = int(x.min()), int(x.max())
    if vocab is not None and (lo < 0 or hi >= vocab):
        bad = lo if lo < 0 else hi
        raise ValueError(
            f"inputs holds token id {bad}, outside the model's vocabulary 0..{vocab - 1}"
        )
    if adapter.max_len is not None and x.shape[1] > adapter.max_len:
        raise ValueError(
            f"inputs has sequences of {x.shape[1]} tokens; the model reads at most "
            f"{adapter.max_len}"
        )
    return x


def _position(position: Any, t: int) -> int:
    """A sequence position ``-t..t-1`` (negative from the end), or an error naming it."""
    return check_int(position, "position", min_value=-t, max_value=t - 1)


# =================================================================== masks
def _positions(sel: Any, t: int, name: str) -> np.ndarray:
    idx = np.arange(t)
    if isinstance(sel, slice):
        return idx[sel]
    a = np.asarray(sel)
    if a.dtype == bool:
        if a.shape != (t,):
            raise ValueError(f"{name} boolean mask must have length {t}")
        return idx[a]
    a = np.atleast_1d(a)
    if a.dtype.kind not in "iu":
        raise TypeError(f"{name} must be positions (ints, a slice or a boolean mask)")
    a = np.where(a < 0, a + t, a)
    if a.size and (a.min() < 0 or a.max() >= t):
        raise ValueError(f"{name} holds positions outside 0..{t - 1}")
    return a


def edge_mask(block: Any, t: int) -> np.ndarray:
    """Boolean (T, T) matrix of the edges in ``block`` (True at [query, key]).

    ``block`` is ``(queries, keys)`` (each positions, a slice or a boolean mask), a list of
    such pairs (their union), or a (T, T) boolean matrix.
    """
    if isinstance(block, np.ndarray | torch.Tensor):
        a = np.asarray(block)
        if a.dtype != bool or a.shape != (t, t):
            raise ValueError(f"a block matrix must be boolean of shape {(t, t)}")
        return a.copy()
    pairs = [block] if _is_pair(block) else list(block)
    out = np.zeros((t, t), dtype=bool)
    for p in pairs:
        if not _is_pair(p):
            raise ValueError("a block is (queries, keys), a list of them, or a (T, T) bool matrix")
        q, k = _positions(p[0], t, "queries"), _positions(p[1], t, "keys")
        out[np.ix_(q, k)] = True
    return out


def _is_pair(p: Any) -> bool:
    return isinstance(p, tuple) and len(p) == 2


def _knock_masks(
    cut: np.ndarray, layers: Iterable[int], t: int, dtype: torch.dtype
) -> dict[int, torch.Tensor]:
    allowed = np.tril(np.ones((t, t), dtype=bool)) & ~cut
    empty = np.flatnonzero(~allowed.any(axis=1))
    if empty.size:
        raise ValueError(
            f"the block leaves query position {int(empty[0])} with no key to attend to; "
            "keep at least one key per query row"
        )
    m = additive(torch.as_tensor(allowed), dtype)
    return {int(i): m for i in layers}


def layer_window(centre: int, k: int, n_layers: int) -> tuple[int, ...]:
    """Layers centred at ``centre``: ``centre - k//2 .. centre + (k-1)//2`` within the model."""
    n_layers = check_int(n_layers, "n_layers", min_value=1)
    centre = check_int(centre, "centre", min_value=0, max_value=n_layers - 1)
    k = check_int(k, "k", min_value=1)
    lo = max(0, centre - k // 2)
    hi = min(n_layers, centre + (k - 1) // 2 + 1)
    return tuple(range(lo, hi))


def _layer_sets(layers: Any, window: int, n: int) -> list[tuple[str, tuple[int, ...]]]:
    if layers is None:
        layers = range(n)
    out = []
    for item in layers:
        if isinstance(item, Iterable) and not isinstance(item, str):
            ls = tuple(int(i) for i in item)
            label = f"{min(ls)}-{max(ls)}" if ls else "none"
        else:
            c = check_int(item, "layer", min_value=0, max_value=n - 1)
            ls = layer_window(c, window, n)
            label = str(c)
        bad = [i for i in ls if not 0 <= i < n]
        if bad:
            raise ValueError(f"layer {bad[0]} is outside 0..{n - 1}")
        out.append((label, ls))
    return out


# ================================================================ knockout
@torch.no_grad()
def _logprobs(adapter: _Adapter, x: torch.Tensor, masks, position: int, batch: int) -> np.ndarray:
    out = []
    for s in range(0, x.shape[0], batch):
        lg = adapter.logits(x[s : s + batch], masks)[:, position]
        out.append(torch.log_softmax(lg.double(), dim=-1).numpy())
    return np.concatenate(out)


def _targets(target: Any, base_lp: np.ndarray) -> tuple[np.ndarray, bool]:
    if target is None:
        return base_lp.argmax(axis=1), False
    t = np.asarray(target).ravel()
    if t.size != base_lp.shape[0] or t.dtype.kind not in "iu":
        raise ValueError(f"target must hold one token id per input ({base_lp.shape[0]})")
    if t.min() < 0 or t.max() >= base_lp.shape[1]:
        raise ValueError(f"target ids must lie in 0..{base_lp.shape[1] - 1}")
    return t, True


def _effects(
    base_lp: np.ndarray, knock_lp: np.ndarray, tgt: np.ndarray, truth: bool, unit: str, ci
) -> dict[str, Any]:
    rows = np.arange(tgt.size)
    lb, lk = base_lp[rows, tgt], knock_lp[rows, tgt]
    pb, pk = np.exp(lb), np.exp(lk)
    kl = (np.exp(base_lp) * (base_lp - knock_lp)).sum(axis=1)
    label = "the true token" if truth else "the base model's predicted token"
    out: dict[str, Any] = {
        "delta_bits": mean_estimate(
            lb - lk,
            quantity="knockout_delta_bits",
            method="attention_knockout",
            unit=unit,
            ci=ci,
            diagnostics={"target": label},
        ),
        "kl": mean_estimate(
            kl,
            quantity="kl_divergence",
            method="attention_knockout",
            unit=unit,
            ci=ci,
            diagnostics={"direction": "KL(p_base || p_knock) of the next-token distribution"},
        ),
        "p_base": float(pb.mean()),
        "p_knock": float(pk.mean()),
        "delta_p": float((pk - pb).mean()),
        "delta_p_rel_pct": float(((pk - pb) / pb).mean() * 100.0),
    }
    if truth:
        out["acc_base"] = float((base_lp.argmax(1) == tgt).mean())
        out["acc_knock"] = float((knock_lp.argmax(1) == tgt).mean())
    return out


def knockout_effect(
    model: Any,
    inputs: Any,
    block: Any,
    layers: Sequence[int],
    *,
    target: Any = None,
    position: int = -1,
    unit: str = "nats",
    ci: float | None = None,
    batch_size: int = 256,
) -> dict[str, Any]:
    """Effect of cutting one block of edges in the given layers.

    Parameters
    ----------
    model
        :class:`TinyTransformer`, Hugging Face causal LM, or a local model folder.
    inputs
        (n, T) token ids (or a tokenizer's output without padding).
    block
        Edges to cut: ``(queries, keys)``, a list of such pairs, or a (T, T) bool matrix.
    layers
        Layer indices in which the block is cut.
    target
        Token whose probability is read: ``None`` = the base model's prediction at
        ``position`` (the paper's "predicted answer"); or one true token id per input
        (adds accuracies).
    position
        Sequence position whose next-token distribution is read (default the last).
    unit, ci
        Unit of Δbits and KL; level of their t-intervals over inputs.
    batch_size
        Inputs per forward pass.

    Returns
    -------
    dict
        ``delta_bits`` and ``kl`` (:class:`Estimate`, mean over inputs), ``p_base``,
        ``p_knock``, ``delta_p``, ``delta_p_rel_pct`` and, with true targets,
        ``acc_base`` / ``acc_knock``.
    """
    ad = as_adapter(model)
    x = _tokens(inputs, ad)
    position = _position(position, x.shape[1])
    t = x.shape[1]
    cut = edge_mask(block, t)
    ls = [check_int(i, "layer", min_value=0, max_value=ad.n_layers - 1) for i in layers]
    b = check_int(batch_size, "batch_size", min_value=1)
    base = _logprobs(ad, x, None, position, b)
    tgt, truth = _targets(target, base)
    knock = _logprobs(ad, x, _knock_masks(cut, ls, t, ad.dtype), position, b)
    return _effects(base, knock, tgt, truth, unit, ci)


def attention_knockout(
    model: Any,
    inputs: Any,
    blocks: dict[str, Any],
    layers: Any = None,
    *,
    window: int = 1,
    target: Any = None,
    position: int = -1,
    unit: str = "nats",
    ci: float | None = None,
    batch_size: int = 256,
    progress: bool | None = None,
) -> Any:
    """Knockout effects of named blocks of edges, layer window by layer window.

    Parameters
    ----------
    model, inputs, target, position, unit, ci, batch_size
        As in :func:`knockout_effect`.
    blocks
        Name -> block of edges (see :func:`edge_mask`).
    layers
        Window centres (ints; default every layer), each expanded to ``window`` layers
        (the paper uses 9), or explicit layer sets (tuples).
    window
        Width of the layer window around each centre.
    progress
        Progress bar (``None``: when there are more than 20 knockouts).

    Returns
    -------
    pandas.DataFrame
        One row per (block, layer window): ``block``, ``layer``, ``layers``, ``n``,
        ``p_base``, ``p_knock``, ``delta_p``, ``delta_p_rel_pct``, ``delta_bits`` with
        ``delta_bits_se`` / ``_lo`` / ``_hi``, ``kl`` with ``kl_se``, ``acc_base`` /
        ``acc_knock`` (true targets only) and ``unit``.
    """
    import pandas as pd

    if not isinstance(blocks, dict) or not blocks:
        raise TypeError("blocks must be a non-empty dict: name -> (queries, keys)")
    ad = as_adapter(model)
    x = _tokens(inputs, ad)
    position = _position(position, x.shape[1])
    t = x.shape[1]
    window = check_int(window, "window", min_value=1)
    b = check_int(batch_size, "batch_size", min_value=1)
    sets = _layer_sets(layers, window, ad.n_layers)
    cuts = {name: edge_mask(blk, t) for name, blk in blocks.items()}
    base = _logprobs(ad, x, None, position, b)
    tgt, truth = _targets(target, base)
    jobs = [(name, label, ls) for name in cuts for label, ls in sets]
    bar = progress_bar(
        total=len(jobs),
        desc="knockouts",
        progress=False if progress is None and len(jobs) <= 20 else progress,
    )
    rows = []
    for name, label, ls in jobs:
        knock = _logprobs(ad, x, _knock_masks(cuts[name], ls, t, ad.dtype), position, b)
        e = _effects(base, knock, tgt, truth, unit, ci)
        db, kl = e.pop("delta_bits"), e.pop("kl")
        row = {"block": name, "layer": label, "layers": ",".join(map(str, ls)), "n": x.shape[0]}
        row.update(e)
        row.update(
            {
                "delta_bits": db.value,
                "delta_bits_se": db.stderr,
                "delta_bits_lo": None if db.ci is None else db.ci[0],
                "delta_bits_hi": None if db.ci is None else db.ci[1],
                "kl": kl.value,
                "kl_se": kl.stderr,
                "unit": db.unit,
            }
        )
        rows.append(row)
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    return pd.DataFrame(rows)


# =============================================================== logit lens
@torch.no_grad()
def logit_lens(
    model: Any,
    inputs: Any,
    *,
    position: int = -1,
    target: Any = None,
    top_k: int = 1,
    unit: str = "nats",
) -> Any:
    """Logit lens: each layer's residual stream through the final norm and unembedding.

    Returns
    -------
    pandas.DataFrame
        One row per (layer, input), layer 0 being the embeddings: ``top`` (the ``top_k``
        token ids), ``p_target`` (of ``target``, default the final prediction),
        ``kl_to_final`` (KL(p_final ‖ p_layer)) and ``entropy``, both in ``unit``.
    """
    import pandas as pd

    from infometer.core.estimate import unit_factor

    ad = as_adapter(model)
    x = _tokens(inputs, ad)
    position = _position(position, x.shape[1])
    top_k = check_int(top_k, "top_k", min_value=1)
    f = unit_factor("nats", unit)
    _, hs = ad.hidden(x)
    final = torch.log_softmax(ad.lens(hs[-1])[:, position].double(), -1).numpy()
    top_k = check_int(top_k, "top_k", min_value=1, max_value=final.shape[1])
    tgt, _ = _targets(target, final)
    rows = np.arange(x.shape[0])
    out = []
    for layer, h in enumerate(hs):
        lp = torch.log_softmax(ad.lens(h)[:, position].double(), -1).numpy()
        p = np.exp(lp)
        kl = (np.exp(final) * (final - lp)).sum(1) * f
        ent = -(p * lp).sum(1) * f
        top = np.argsort(-lp, axis=1)[:, :top_k]
        for i in rows:
            out.append(
                {
                    "layer": layer,
                    "input": int(i),
                    "top": top[i].tolist() if top_k > 1 else int(top[i, 0]),
                    "p_target": float(p[i, tgt[i]]),
                    "kl_to_final": float(kl[i]),
                    "entropy": float(ent[i]),
                }
            )
    df = pd.DataFrame(out)
    df["unit"] = unit
    return df


# ================================================================= pruning
@dataclass(eq=False, repr=False)
class PruneResult(Result):
    """Outcome of :func:`prune_to_paths`."""

    delta_bits: Estimate
    kl: Estimate
    p_base: float
    p_pruned: float
    acc_base: float | None
    acc_pruned: float | None
    edges_kept: int
    edges_total: int
    control: dict[str, float] | None

    @property
    def retention(self) -> float:
        """Fraction of causal attention edges (all layers) that remain."""
        return self.edges_kept / self.edges_total


def prune_to_paths(
    model: Any,
    inputs: Any,
    keep: Sequence[tuple[Any, Any, Any]],
    *,
    target: Any = None,
    position: int = -1,
    unit: str = "nats",
    random_control: int = 0,
    seed: Seed = 0,
    batch_size: int = 256,
) -> PruneResult:
    """Keep only the listed edges (plus every position's edge to itself); cut all others.

    Parameters
    ----------
    keep
        ``(queries, keys, layers)`` triples; ``layers=None`` means every layer.
    target, position, unit, batch_size
        As in :func:`knockout_effect`.
    random_control
        Number of random prunings that keep the same number of non-self edges in each
        layer (drawn among the causal edges); their mean accuracy / Δbits go in
        ``control``.
    seed
        Seed of the random control. An int >= 0 (the same int gives the same numbers), a
        numpy.random.Generator (drawn from as it is) or None (fresh entropy from the operating
        system).

    Returns
    -------
    PruneResult
        Δbits and KL against the unpruned model, probabilities, accuracies (true targets
        only), kept / total edge counts and the random control.
    """
    ad = as_adapter(model)
    x = _tokens(inputs, ad)
    position = _position(position, x.shape[1])
    t, n = x.shape[1], ad.n_layers
    b = check_int(batch_size, "batch_size", min_value=1)
    causal = np.tril(np.ones((t, t), dtype=bool))
    eye = np.eye(t, dtype=bool)
    allowed = [eye.copy() for _ in range(n)]
    for item in keep:
        if not (isinstance(item, tuple) and len(item) == 3):
            raise ValueError("keep holds (queries, keys, layers) triples")
        q, k, ls = item
        e = edge_mask((q, k), t) & causal
        for i in range(n) if ls is None else ls:
            i = check_int(i, "layer", min_value=0, max_value=n - 1)
            allowed[i] |= e

    def masks_of(al: list[np.ndarray]) -> dict[int, torch.Tensor]:
        return {i: additive(torch.as_tensor(a), ad.dtype) for i, a in enumerate(al)}

    base = _logprobs(ad, x, None, position, b)
    tgt, truth = _targets(target, base)
    pruned = _logprobs(ad, x, masks_of(allowed), position, b)
    e = _effects(base, pruned, tgt, truth, unit, 0.95)
    control = None
    r = check_int(random_control, "random_control", min_value=0)
    if r:
        rng = as_generator(seed)
        off = np.argwhere(causal & ~eye)
        accs, dbs = [], []
        for _ in range(r):
            al = []
            for a in allowed:
                m = eye.copy()
                cnt = int((a & ~eye).sum())
                pick = off[rng.choice(len(off), size=cnt, replace=False)]
                m[pick[:, 0], pick[:, 1]] = True
                al.append(m)
            lp = _logprobs(ad, x, masks_of(al), position, b)
            ce = _effects(base, lp, tgt, truth, unit, None)
            dbs.append(ce["delta_bits"].value)
            if truth:
                accs.append(ce["acc_knock"])
        control = {"delta_bits": float(np.mean(dbs)), "n": r}
        if truth:
            control["acc"] = float(np.mean(accs))
    return PruneResult(
        delta_bits=e["delta_bits"],
        kl=e["kl"],
        p_base=e["p_base"],
        p_pruned=e["p_knock"],
        acc_base=e.get("acc_base"),
        acc_pruned=e.get("acc_knock"),
        edges_kept=int(sum(a.sum() for a in allowed)),
        edges_total=int(causal.sum()) * n,
        control=control,
    )


# =================================================================== plot
def plot_knockout(
    table: Any,
    ax: Any = None,
    path: Any = None,
    *,
    value: str = "delta_bits",
    title: str | None = None,
    fmt: Callable[[float], str] = lambda v: f"{v:.2f}",
) -> Any:
    """Heatmap of ``value`` by (block, layer window) from :func:`attention_knockout`.

    Parameters
    ----------
    table
        An :func:`attention_knockout` table.
    ax
        Axes to draw on (a new figure if ``None``).
    path
        Also save the figure as a PNG there.  The older ``plot_knockout(table, path)``
        still works for one release (``DeprecationWarning``; it returns the path).
    value
        The column shown (``delta_bits``, ``kl``, ``delta_p``, ...).
    title, fmt
        Title; format of the number written in each cell.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"block": ["a", "a"], "layer": [0, 1], "delta_bits": [0.5, 0.0],
    ...                   "unit": ["bits", "bits"]})
    >>> plot_knockout(t).get_xlabel()
    'layer (window centre)'
    """
    from infometer.core.plot import close_and_path, deprecated_path_form, finish, new_axes

    ax, path, old = deprecated_path_form(ax, path, "plot_knockout")
    if value not in table.columns:
        raise ValueError(f"table has no column {value!r}")
    piv = table.pivot(index="block", columns="layer", values=value)
    piv = piv.loc[list(dict.fromkeys(table["block"])), list(dict.fromkeys(table["layer"]))]
    vals = piv.to_numpy(dtype=float)
    _, ax = new_axes(ax, figsize=(max(5.5, 2.5 + 0.7 * piv.shape[1]), 1.2 + 0.45 * piv.shape[0]))
    im = ax.imshow(vals, cmap="magma_r", aspect="auto")
    ax.set_xticks(range(piv.shape[1]), piv.columns)
    ax.set_yticks(range(piv.shape[0]), piv.index)
    ax.set_xlabel("layer (window centre)")
    top = np.nanmax(np.abs(vals)) or 1.0
    for (i, j), v in np.ndenumerate(vals):
        dark = abs(v) > 0.55 * top
        ax.text(
            j, i, fmt(v), ha="center", va="center", fontsize=7, color="white" if dark else "black"
        )
    unit = table["unit"].iloc[0] if "unit" in table.columns else ""
    ax.figure.colorbar(
        im, ax=ax, label=f"{value} ({unit})" if value in ("delta_bits", "kl") else value
    )
    ax.set_title(title or f"attention knockout: {value}", fontsize=10)
    finish(ax, path)
    return close_and_path(ax, path) if old else ax
