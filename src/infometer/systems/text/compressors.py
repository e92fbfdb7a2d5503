"""Compressors: a context (and a query) in, a summary text out.

A compressor is any callable ``f(context, query, rng) -> str``; ``f(context, query)`` and
``f(context)`` are accepted too (the measuring functions pass what the callable takes).
``rng`` is a :class:`numpy.random.Generator` for stochastic compressors.  Built-in
extractive compressors keep whole sentences in their original order:

* :class:`LeadK` -- the first k sentences;
* :class:`RandomK` -- k sentences drawn at random;
* :class:`TopK` -- the k sentences most similar to the query (cosine of MiniLM sentence
  vectors, or of any sentence encoder you pass);
* :class:`MIGSelect` -- sentences by marginal information gain under a token budget
  (:mod:`infometer.systems.text.comi`);
* :class:`TokenMerge` -- COMI token merging into memory vectors, read out as the nearest
  context token of each (not extractive: one token per memory vector).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from infometer.core.data import check_float, check_int
from infometer.core.seeding import as_generator

from .embed import SentenceEncoder, check_sentence_vectors, minilm_sentence_encoder, normalize_rows

__all__ = [
    "split_sentences",
    "LeadK",
    "RandomK",
    "TopK",
    "MIGSelect",
    "query_vector",
    "TokenMerge",
    "sentence_similarity",
]

_SENT = re.compile(r"(?<=[.!?])\s+|\n+")


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``: split after ``.``/``!``/``?`` followed by space, and at newlines."""
    return [s.strip() for s in _SENT.split(text) if s.strip()]


def _arity(func: Callable[..., Any]) -> int:
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return 3
    n = 0
    for p in sig.parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            return 3
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            n += 1
    return min(n, 3)


def _call_compressor(
    func: Any, context: str, query: str | None, rng: np.random.Generator, name: str = "compressor"
) -> str:
    """Call a user's compressor with the arguments it takes; check it returns a string."""
    if not callable(func):
        raise TypeError(f"{name} must be callable, got {type(func).__name__}")
    k = _arity(func)
    if k == 0:
        raise TypeError(f"{name} must take the context as its first argument")
    args = (context, query, rng)[:k]
    out = func(*args)
    if not isinstance(out, str):
        raise TypeError(f"{name} must return a string (the summary), got {type(out).__name__}")
    return out


def _join(sentences: Sequence[str], keep: Sequence[int]) -> str:
    return " ".join(sentences[i] for i in sorted(keep))


class LeadK:
    """The first ``k`` sentences."""

    def __init__(self, k: int) -> None:
        self.k = check_int(k, "k", min_value=1)
        self.name = f"lead-{self.k}"

    def __call__(self, context: str, query: str | None = None, rng: Any = None) -> str:
        sents = split_sentences(context)
        return _join(sents, range(min(self.k, len(sents))))


class RandomK:
    """``k`` sentences drawn at random without replacement (kept in order)."""

    def __init__(self, k: int) -> None:
        self.k = check_int(k, "k", min_value=1)
        self.name = f"random-{self.k}"

    def __call__(
        self, context: str, query: str | None = None, rng: np.random.Generator | None = None
    ) -> str:
        sents = split_sentences(context)
        rng = as_generator(rng, "rng")
        keep = rng.choice(len(sents), size=min(self.k, len(sents)), replace=False)
        return _join(sents, keep.tolist())


def query_vector(
    encoder: SentenceEncoder, sentences: list[str], query: str | None
) -> tuple[np.ndarray, np.ndarray]:
    """Unit sentence vectors and the unit query vector (the sentences' centroid without a query)."""
    n = len(sentences)
    texts = sentences if query is None else [*sentences, query]
    emb = normalize_rows(check_sentence_vectors(encoder(texts), len(texts), "encoder"))
    if query is None:
        q = emb.mean(axis=0)
    else:
        q = emb[n]
    return emb[:n], normalize_rows(q[None, :])[0]


class TopK:
    """The ``k`` sentences closest to the query (cosine), by default with MiniLM vectors.

    Without a query, the sentences closest to the context's centroid.

    Parameters
    ----------
    k
        Sentences to keep.
    encoder
        ``list[str] -> (n, d)`` sentence encoder; default the bundled MiniLM (offline).
    """

    def __init__(self, k: int, encoder: SentenceEncoder | None = None) -> None:
        self.k = check_int(k, "k", min_value=1)
        self.encoder = encoder if encoder is not None else minilm_sentence_encoder()
        self.name = f"top-{self.k}"

    def __call__(self, context: str, query: str | None = None, rng: Any = None) -> str:
        sents = split_sentences(context)
        if not sents:
            return ""
        emb, q = query_vector(self.encoder, sents, query)
        sim = emb @ q
        keep = np.argsort(-sim, kind="stable")[: self.k]
        return _join(sents, keep.tolist())


class MIGSelect:
    """Sentences by marginal information gain under a token budget (COMI's sentence stage).

    Greedy: the next sentence is the one with the largest gain
    ``α·cos(s, q) − β·max_{kept t} cos(s, t)`` among those that still fit in the budget;
    see :func:`infometer.systems.text.comi.select_units`.

    Parameters
    ----------
    budget
        Most tokens the summary may hold (counted by ``count_tokens``, default words).
    alpha, beta
        Weights of relevance and redundancy.
    encoder
        Sentence encoder; default MiniLM.
    count_tokens
        ``str -> int``; default the number of words
        (:func:`~infometer.systems.text.scorers.word_tokens`).
    """

    def __init__(
        self,
        budget: int,
        *,
        alpha: float = 1.0,
        beta: float = 1.0,
        encoder: SentenceEncoder | None = None,
        count_tokens: Callable[[str], int] | None = None,
    ) -> None:
        from .scorers import word_tokens

        self.budget = check_int(budget, "budget", min_value=1)
        self.alpha = check_float(alpha, "alpha", low=0.0)
        self.beta = check_float(beta, "beta", low=0.0)
        self.encoder = encoder if encoder is not None else minilm_sentence_encoder()
        self.count_tokens = count_tokens or (lambda s: len(word_tokens(s)))
        self.name = f"mig-{self.budget}"

    def __call__(self, context: str, query: str | None = None, rng: Any = None) -> str:
        from .comi import select_units

        sents = split_sentences(context)
        if not sents:
            return ""
        emb, q = query_vector(self.encoder, sents, query)
        cost = np.array([self.count_tokens(s) for s in sents])
        keep = select_units(emb, q, cost, self.budget, alpha=self.alpha, beta=self.beta)
        return _join(sents, keep.tolist())


def sentence_similarity(
    memory: np.ndarray, vectors: np.ndarray, sentence_of_token: np.ndarray
) -> np.ndarray:
    """cos(memory vector, mean token vector of each sentence): a (m, sentences) array."""
    n_sent = int(sentence_of_token.max()) + 1
    means = np.stack([vectors[sentence_of_token == k].mean(axis=0) for k in range(n_sent)])
    return normalize_rows(memory) @ normalize_rows(means).T


class TokenMerge:
    """COMI token merging as a compressor: memory vectors, read out as text.

    The context's sentences are embedded token by token (MiniLM by default, each sentence
    on its own), the query vector is the mean of the query's token vectors (the context's
    centroid without a query), and :func:`infometer.systems.text.comi.compress` merges the n tokens
    into at most ceil(n / rate) memory vectors.  Called as a compressor it returns the
    *readout*: the sentences that are nearest (cosine to their mean token vector) to at least
    one memory vector, in document order -- what a reader of the memory can point to, as
    text a scorer can read.  (Nearest *tokens* would read out mostly "the", "for", "is":
    contextual vectors of function words carry their sentence.)

    Parameters
    ----------
    rate
        Nominal group size (compression rate).
    alpha, beta
        MIG weights; ``beta=0`` is relevance-only merging, ``alpha=beta=0`` mean pooling.
    coarse, fine
        Enable the two stages (see :func:`~infometer.systems.text.comi.compress`).
    embedder
        ``text -> (tokens, (L, d) vectors)``; default MiniLM token vectors.
    name
        Label in tables.
    """

    def __init__(
        self,
        rate: int,
        *,
        alpha: float = 1.0,
        beta: float = 1.0,
        coarse: bool = True,
        fine: bool = True,
        embedder: Callable[[str], tuple[list[str], Any]] | None = None,
        name: str | None = None,
    ) -> None:
        from .embed import minilm_token_embedder

        self.rate = check_int(rate, "rate", min_value=1)
        self.alpha = check_float(alpha, "alpha", low=0.0)
        self.beta = check_float(beta, "beta", low=0.0)
        self.coarse, self.fine = bool(coarse), bool(fine)
        self.embedder = embedder if embedder is not None else minilm_token_embedder()
        self.name = name or f"merge-{self.rate}"

    def _embed(self, text: str, what: str) -> tuple[list[str], np.ndarray]:
        toks, vecs = self.embedder(text)
        arr = np.asarray(vecs, dtype=np.float64)
        if arr.ndim != 2 or arr.shape[0] != len(toks):
            raise ValueError(
                f"embedder returned {len(toks)} tokens and vectors of shape {arr.shape} for the "
                f"{what}; expected one row per token"
            )
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"embedder returned NaN or inf for the {what}")
        return list(toks), arr

    def encode(self, context: str) -> tuple[list[str], np.ndarray, np.ndarray, list[str]]:
        """``(tokens, vectors (n, d), sentence index of each token, sentences)``."""
        sents = split_sentences(context)
        many = getattr(self.embedder, "many", None)
        if many is not None:  # one batched call for all sentences
            many(sents)
        toks: list[str] = []
        vecs, sid = [], []
        for k, s in enumerate(sents):
            t, v = self._embed(s, f"sentence {k}")
            toks.extend(t)
            vecs.append(v)
            sid.extend([k] * len(t))
        if not toks:
            raise ValueError("the context has no tokens to compress")
        return toks, np.concatenate(vecs), np.array(sid, dtype=np.int64), sents

    def query_vector(self, query: str | None, h: np.ndarray) -> np.ndarray:
        """Mean of the query's token vectors (the context's mean without a query)."""
        if query is None or not query.strip():
            return h.mean(axis=0)
        _, v = self._embed(query, "query")
        return v.mean(axis=0) if v.shape[0] else h.mean(axis=0)

    def compress(self, context: str, query: str | None = None) -> dict[str, Any]:
        """Everything about one compression: ``compressed``, ``tokens``, ``vectors``,
        ``sentence_of_token``, ``sentences``, ``query_vector``, ``sentence_scores`` (max
        cosine of each sentence to the memory), ``readout_sentences``, ``readout``."""
        from .comi import compress

        toks, h, sid, sents = self.encode(context)
        q = self.query_vector(query, h)
        comp = compress(
            h, q, self.rate, alpha=self.alpha, beta=self.beta, coarse=self.coarse, fine=self.fine
        )
        sim = sentence_similarity(comp.memory, h, sid)  # (memory vectors, sentences)
        near = np.unique(np.argmax(sim, axis=1))
        return {
            "compressed": comp,
            "tokens": toks,
            "vectors": h,
            "sentence_of_token": sid,
            "sentences": sents,
            "query_vector": q,
            "sentence_scores": sim.max(axis=0),
            "readout_sentences": near,
            "readout": _join(sents, near.tolist()),
        }

    def __call__(self, context: str, query: str | None = None, rng: Any = None) -> str:
        return self.compress(context, query)["readout"]
