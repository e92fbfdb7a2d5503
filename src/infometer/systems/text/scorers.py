"""Scorers: the summed token log-probability of a text (a summary) after a prompt.

A scorer is anything with ``logprob(prompts, texts) -> array`` (nats, one value per pair,
``-inf`` allowed for probability 0) and, optionally, ``n_tokens(texts) -> array`` (the
length used for bits per token).  A plain callable ``f(prompts, texts)`` is accepted too.
Two backends ship:

* :class:`HFScorer` -- a Hugging Face causal LM from a local directory (never a hub id),
  batched with left padding, on CPU or GPU;
* :class:`CopyBigramScorer` (``"builtin"``) -- a word-level language model fitted here on
  the user's own texts in a fraction of a second: a bigram model with absolute discounting
  mixed with a copy (pointer) distribution over the prompt.  It needs no download, so the
  channel MI runs out of the box.  It is *not* a neural LM: it recognises a summary's words
  and word pairs in a context, never paraphrase or meaning.

The prompt for context x and query q is ``template.format(context=x, query=q)``
(:func:`make_prompt`); the same prompt goes to every backend.
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from infometer.core.data import check_float, check_int
from infometer.core.progress import progress_bar

__all__ = [
    "Scorer",
    "CopyBigramScorer",
    "HFScorer",
    "FunctionScorer",
    "as_scorer",
    "make_prompt",
    "word_tokens",
    "TEMPLATE",
    "QUERY_TEMPLATE",
]

#: Prompt without a query.
TEMPLATE = "Context: {context}\nSummary:"
#: Prompt with a query.
QUERY_TEMPLATE = "Context: {context}\nQuestion: {query}\nSummary:"

_WORD = re.compile(r"\w+|[^\w\s]")


def word_tokens(text: str) -> list[str]:
    """Lower-cased words and punctuation marks: the built-in scorer's tokens."""
    return _WORD.findall(text.lower())


def make_prompt(context: str, query: str | None = None, template: str | None = None) -> str:
    """The scoring prompt for one context (and query)."""
    t = template or (TEMPLATE if query is None else QUERY_TEMPLATE)
    try:
        return t.format(context=context, query="" if query is None else query)
    except (KeyError, IndexError, ValueError) as exc:
        raise ValueError(
            f"template {t!r} is not a format string with {{context}} and {{query}} fields: {exc}"
        ) from exc


@runtime_checkable
class Scorer(Protocol):
    """Summed log-probability (nats) of each text after its prompt."""

    def logprob(self, prompts: Sequence[str], texts: Sequence[str]) -> np.ndarray: ...


def _check_pairs(prompts: Sequence[str], texts: Sequence[str]) -> tuple[list[str], list[str]]:
    p, t = list(prompts), list(texts)
    if len(p) != len(t):
        raise ValueError(f"prompts has {len(p)} entries but texts has {len(t)}")
    for name, seq in (("prompts", p), ("texts", t)):
        for i, s in enumerate(seq):
            if not isinstance(s, str):
                raise TypeError(f"{name}[{i}] must be a string, got {type(s).__name__}")
    return p, t


def check_logprobs(values: Any, n: int, who: str) -> np.ndarray:
    """A scorer's output: n log-probabilities, finite or -inf."""
    try:
        out = np.asarray(values, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{who} must return numbers, got {type(values).__name__}") from exc
    if out.shape[0] != n:
        raise ValueError(f"{who} returned {out.shape[0]} values for {n} (prompt, text) pairs")
    bad = np.isnan(out) | (out == np.inf)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"{who} returned {out[i]} for pair {i}: log-probabilities must be < inf")
    return out


class FunctionScorer:
    """A scorer from a callable ``f(prompts, texts) -> log-probabilities``.

    Summary lengths are counted in words (:func:`word_tokens`) unless ``n_tokens`` is given.
    """

    def __init__(
        self,
        func: Callable[[list[str], list[str]], Any],
        n_tokens: Callable[[list[str]], Any] | None = None,
    ) -> None:
        if not callable(func):
            raise TypeError(f"scorer must be callable, got {type(func).__name__}")
        self.func = func
        self._n_tokens = n_tokens
        self.name = getattr(func, "__name__", type(func).__name__)
        self.token_unit = "words" if n_tokens is None else "scorer tokens"

    def logprob(self, prompts: Sequence[str], texts: Sequence[str]) -> np.ndarray:
        p, t = _check_pairs(prompts, texts)
        return check_logprobs(self.func(p, t), len(p), f"scorer {self.name!r}")

    def n_tokens(self, texts: Sequence[str]) -> np.ndarray:
        if self._n_tokens is None:
            return np.array([len(word_tokens(s)) for s in texts], dtype=np.int64)
        return np.asarray(self._n_tokens(list(texts)), dtype=np.int64)


# ------------------------------------------------------------------ built-in LM
class CopyBigramScorer:
    """Word-level bigram LM (absolute discounting) mixed with a copy distribution over the prompt.

    For a text w_1..w_L after a prompt P (tokens by :func:`word_tokens`),

        p(w_t | P, w_{t-1}) = λ · p_copy(w_t | P, w_{t-1}) + (1 − λ) · p_bg(w_t | w_{t-1})

        p_copy(w | P, v) = μ · c_P(v, w) / c_P(v·) + (1 − μ) · c_P(w) / |P|   (if v occurs in P
                                                         followed by a word; else c_P(w) / |P|)
        p_bg(w | v)      = max(c(v, w) − d, 0) / c(v·) + d · T(v) / c(v·) · p_uni(w)
        p_uni(w)         = (c(w) + 1) / (T + V + 1)          (words unseen in training share
                                                              the one <unk> mass 1/(T + V + 1))

    with c(·) counts in the training corpus (T tokens, V distinct words, T(v) distinct
    followers of v) and c_P(·) counts in the prompt.  Each factor is a normalised distribution
    over the vocabulary plus <unk>, so the sum of log-probabilities is a real log-likelihood
    (at the word-class level for unseen words; their common factor cancels in the channel MI).
    The first word of a text has no history (v = none: unigram copy and p_uni).

    What it is: a transparent, deterministic proxy scorer fitted on the user's corpus in
    milliseconds, good at telling which context an *extractive* summary came from.  What it
    is not: a neural LM.  It cannot credit paraphrase, synonyms or inference, and it gives
    the information a word-overlap reader can recover, which is at most what the summary
    carries.  For abstractive summaries, pass a local causal LM (:class:`HFScorer`).

    Parameters
    ----------
    copy
        λ, the weight of the copy distribution (0.9 as in the brief's pointer model).
    continuation
        μ, the weight of copying the word that follows the previous word in the prompt.
    discount
        d in (0, 1], the absolute discount of the background bigram model.
    """

    name = "builtin"
    token_unit = "words"
    #: Prompts whose word counts are kept between calls (comparisons score the same prompts).
    PROMPT_CACHE = 8192

    def __init__(
        self, *, copy: float = 0.9, continuation: float = 0.5, discount: float = 0.75
    ) -> None:
        self.copy = check_float(copy, "copy", low=0.0, high=1.0, inclusive=(True, False))
        self.continuation = check_float(continuation, "continuation", low=0.0, high=1.0)
        self.discount = check_float(
            discount, "discount", low=0.0, high=1.0, inclusive=(False, True)
        )
        self._fitted = False
        self._prompts: dict[str, tuple[Counter[str], dict[str, Counter[str]], int]] = {}

    def fit(self, corpus: Iterable[str]) -> CopyBigramScorer:
        """Count words and word pairs of ``corpus`` (an iterable of texts)."""
        if isinstance(corpus, str):
            raise TypeError("corpus must be an iterable of texts, not one string")
        uni: Counter[str] = Counter()
        big: dict[str, Counter[str]] = defaultdict(Counter)
        n_docs = 0
        for i, doc in enumerate(corpus):
            if not isinstance(doc, str):
                raise TypeError(f"corpus[{i}] must be a string, got {type(doc).__name__}")
            toks = word_tokens(doc)
            uni.update(toks)
            for v, w in zip(toks[:-1], toks[1:], strict=True):
                big[v][w] += 1
            n_docs += 1
        if sum(uni.values()) == 0:
            raise ValueError("corpus has no words to fit the built-in scorer on")
        self.unigram = uni
        self.bigram = dict(big)
        self.hist = {v: sum(c.values()) for v, c in big.items()}
        self.total = sum(uni.values())
        self._den = self.total + len(uni) + 1
        self.n_docs = n_docs
        self._fitted = True
        return self

    def _p_uni(self, w: str) -> float:
        return (self.unigram.get(w, 0) + 1) / self._den

    def _p_bg(self, w: str, v: str | None) -> float:
        if v is None or v not in self.hist:
            return self._p_uni(w)
        cv = self.hist[v]
        follow = self.bigram[v]
        d = self.discount
        return max(follow.get(w, 0) - d, 0.0) / cv + d * len(follow) / cv * self._p_uni(w)

    def _prompt_stats(self, prompt: str) -> tuple[Counter[str], dict[str, Counter[str]], int]:
        hit = self._prompts.get(prompt)
        if hit is not None:
            return hit
        ptok = word_tokens(prompt)
        big_p: dict[str, Counter[str]] = defaultdict(Counter)
        for v, w in zip(ptok[:-1], ptok[1:], strict=True):
            big_p[v][w] += 1
        stats = (Counter(ptok), dict(big_p), len(ptok))
        if len(self._prompts) >= self.PROMPT_CACHE:
            self._prompts.pop(next(iter(self._prompts)))  # oldest first
        self._prompts[prompt] = stats
        return stats

    def _score_group(self, prompt: str, texts: list[list[str]]) -> list[float]:
        uni_p, big_p, n_p = self._prompt_stats(prompt)
        lam = self.copy if n_p else 0.0
        mu = self.continuation
        out = []
        for toks in texts:
            total = 0.0
            prev: str | None = None
            for w in toks:
                if n_p:
                    copy_u = uni_p.get(w, 0) / n_p
                    follow = big_p.get(prev) if prev is not None else None
                    if follow:
                        n_follow = sum(follow.values())
                        pc = mu * follow.get(w, 0) / n_follow + (1 - mu) * copy_u
                    else:
                        pc = copy_u
                else:
                    pc = 0.0
                total += math.log(lam * pc + (1 - lam) * self._p_bg(w, prev))
                prev = w
            out.append(total)
        return out

    def logprob(self, prompts: Sequence[str], texts: Sequence[str]) -> np.ndarray:
        """Summed log-probability (nats) of each text after its prompt."""
        if not self._fitted:
            raise ValueError("the built-in scorer is not fitted: call .fit(corpus) first")
        p, t = _check_pairs(prompts, texts)
        tok_cache: dict[str, list[str]] = {}
        groups: dict[str, list[int]] = defaultdict(list)
        for i, prompt in enumerate(p):
            groups[prompt].append(i)
        out = np.empty(len(p))
        for prompt, idx in groups.items():
            toks = [tok_cache.setdefault(t[i], word_tokens(t[i])) for i in idx]
            out[idx] = self._score_group(prompt, toks)
        return out

    def n_tokens(self, texts: Sequence[str]) -> np.ndarray:
        """Number of words (and punctuation marks) of each text."""
        return np.array([len(word_tokens(s)) for s in texts], dtype=np.int64)


# ------------------------------------------------------------- Hugging Face LM
class HFScorer:
    """A causal LM from a local Hugging Face directory, batched, on CPU or GPU.

    Each (prompt, text) pair is tokenized as ``tokenizer(prompt)`` (with the model's own
    special tokens, e.g. BOS) followed by ``tokenizer(text_prefix + text)`` without special
    tokens; the score is Σ_t log p(text_t | prompt, text_<t) from one forward pass.  Batches
    are left-padded with explicit position ids, and only the logits of the text positions
    are computed (``logits_to_keep``) when the model supports it.  A prompt too long for the
    model keeps its last tokens (counted in :attr:`truncated`).

    Parameters
    ----------
    path
        Local model directory (``config.json``, tokenizer files, safetensors weights).
    device
        Torch device, e.g. ``"cpu"``, ``"cuda"``.
    batch_size
        Pairs per forward pass.
    dtype
        ``None`` (the saved dtype), ``"float32"``, ``"bfloat16"`` or ``"float16"``.
    max_length
        Tokens per sequence; default the model's maximum positions.
    text_prefix
        Put between prompt and text (``" "`` suits BPE tokenizers and the default templates).
    progress
        Show a progress bar over batches.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        device: str = "cpu",
        batch_size: int = 16,
        dtype: str | None = None,
        max_length: int | None = None,
        text_prefix: str = " ",
        progress: bool | None = None,
    ) -> None:
        from infometer.core.encoders import load_hf, local_model_dir

        local_model_dir(path, name="scorer")  # a clear error for hub ids and missing folders
        self.batch_size = check_int(batch_size, "batch_size", min_value=1)
        if dtype not in (None, "float32", "bfloat16", "float16"):
            raise ValueError(
                f"dtype must be None, 'float32', 'bfloat16' or 'float16', got {dtype!r}"
            )
        self.tokenizer, self.model = load_hf(path, kind="causal_lm", device=device)
        if dtype is not None:
            import torch

            self.model.to(getattr(torch, dtype))
        self.device = device
        self.text_prefix = text_prefix
        self.progress = progress
        self.name = str(path)
        self.token_unit = "scorer tokens"
        cfg = self.model.config
        limit = max_length or getattr(cfg, "max_position_embeddings", None)
        limit = limit or getattr(cfg, "n_positions", None) or 1024
        self.max_length = check_int(int(limit), "max_length", min_value=2)
        tok = self.tokenizer
        self._start = tok.bos_token_id if tok.bos_token_id is not None else tok.eos_token_id
        self._pad = tok.pad_token_id if tok.pad_token_id is not None else (self._start or 0)
        import inspect

        params = inspect.signature(self.model.forward).parameters
        self._keep = "logits_to_keep" in params
        self._pos = "position_ids" in params
        self.truncated = 0

    def _ids(self, text: str, special: bool) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=special)["input_ids"])

    def _prompt_ids(self, prompt: str) -> list[int]:
        ids = self._ids(prompt, True)
        if not ids:
            if self._start is None:
                raise ValueError(
                    "the prompt is empty and the tokenizer has no BOS/EOS token to start from"
                )
            ids = [self._start]
        return ids

    def n_tokens(self, texts: Sequence[str]) -> np.ndarray:
        """Tokens of each text as scored (with ``text_prefix``)."""
        return np.array(
            [len(self._ids(self.text_prefix + s, False)) if s else 0 for s in texts],
            dtype=np.int64,
        )

    def logprob(self, prompts: Sequence[str], texts: Sequence[str]) -> np.ndarray:
        """Summed log-probability (nats) of each text after its prompt."""
        import torch

        p, t = _check_pairs(prompts, texts)
        pcache: dict[str, list[int]] = {}
        tcache: dict[str, list[int]] = {}
        seqs = []
        for prompt, text in zip(p, t, strict=True):
            pid = pcache.get(prompt)
            if pid is None:
                pid = pcache[prompt] = self._prompt_ids(prompt)
            tid = tcache.get(text)
            if tid is None:
                tid = tcache[text] = self._ids(self.text_prefix + text, False) if text else []
            if len(tid) >= self.max_length:
                raise ValueError(
                    f"a summary has {len(tid)} tokens, more than the scorer's {self.max_length} "
                    "positions leave after a one-token prompt"
                )
            room = self.max_length - len(tid)
            if len(pid) > room:
                self.truncated += 1
                pid = pid[-room:]
            seqs.append((pid, tid))
        out = np.zeros(len(seqs))
        order = sorted(range(len(seqs)), key=lambda i: -(len(seqs[i][0]) + len(seqs[i][1])))
        order = [i for i in order if seqs[i][1]]  # empty texts score 0
        batches = [order[k : k + self.batch_size] for k in range(0, len(order), self.batch_size)]
        it: Iterable[list[int]] = progress_bar(
            batches, desc="scoring", unit="batch", progress=self.progress
        )
        with torch.inference_mode():
            for b in it:
                out[b] = self._batch([seqs[i] for i in b])
        return out

    def _batch(self, seqs: list[tuple[list[int], list[int]]]) -> np.ndarray:
        import torch

        lens = [len(a) + len(b) for a, b in seqs]
        width = max(lens)
        k = max(len(b) for _, b in seqs)
        ids = torch.full((len(seqs), width), self._pad, dtype=torch.long)
        mask = torch.zeros((len(seqs), width), dtype=torch.long)
        for r, ((a, b), n) in enumerate(zip(seqs, lens, strict=True)):
            ids[r, width - n :] = torch.tensor(a + b, dtype=torch.long)
            mask[r, width - n :] = 1
        kw: dict[str, Any] = {
            "input_ids": ids.to(self.device),
            "attention_mask": mask.to(self.device),
        }
        if self._pos:
            kw["position_ids"] = (mask.cumsum(1) - 1).clamp(min=0).to(self.device)
        if self._keep:
            kw["logits_to_keep"] = k + 1
        logits = self.model(**kw).logits
        logits = logits[:, -(k + 1) : -1, :].float()  # position p-1 predicts token p
        logp = torch.log_softmax(logits, dim=-1)
        target = ids[:, width - k :].to(self.device)
        tok_lp = logp.gather(-1, target.unsqueeze(-1)).squeeze(-1)  # (B, k)
        lt = torch.tensor([len(b) for _, b in seqs], device=self.device)
        keep = torch.arange(k, device=self.device)[None, :] >= (k - lt)[:, None]
        return (tok_lp * keep).sum(1).double().cpu().numpy()


def as_scorer(
    scorer: Any,
    corpus: Sequence[str] | None = None,
    **kwargs: Any,
) -> Any:
    """Resolve ``scorer``: ``"builtin"`` (fitted on ``corpus``), a local model directory,
    an object with ``logprob``, or a callable ``f(prompts, texts)``.

    ``kwargs`` go to :class:`HFScorer` (``device``, ``batch_size``, ...) for a directory.
    """
    if isinstance(scorer, str) and scorer == "builtin":
        if corpus is None:
            raise ValueError("the built-in scorer needs a corpus to fit on")
        return CopyBigramScorer().fit(corpus)
    if isinstance(scorer, str | os.PathLike):
        return HFScorer(scorer, **kwargs)
    if hasattr(scorer, "logprob"):
        if isinstance(scorer, CopyBigramScorer) and not scorer._fitted:
            if corpus is None:
                raise ValueError("the built-in scorer is not fitted and no corpus was given")
            scorer.fit(corpus)
        return scorer
    if callable(scorer):
        return FunctionScorer(scorer)
    raise TypeError(
        "scorer must be 'builtin', a local model directory, an object with "
        f".logprob(prompts, texts), or a callable; got {type(scorer).__name__}"
    )
