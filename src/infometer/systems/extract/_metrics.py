"""Extraction metrics as the papers' released code computes them.

SCRIBES' fuzzy F1 (``triple_accuracy_evaluator.py`` of the released code, as the brief
reads it):

1. each triple is normalised element by element -- lower-cased, punctuation removed,
   runs of whitespace collapsed and trimmed -- and joined with tabs; duplicates dropped;
2. the similarity of two triples is ``fuzz.ratio / 100`` (rapidfuzz's normalised Indel
   similarity ``1 - (insertions + deletions) / (len a + len b)``, computed by rapidfuzz
   itself -- :func:`ratio` calls it; the tests hold it to a pure-Python LCS reference,
   so the backend is pinned: fuzzywuzzy without python-Levenshtein falls back to difflib
   and gives other numbers);
3. predictions and gold are matched one to one, **greedily** (best pair first; the
   training reward) or by the **Hungarian** assignment (``scipy.optimize.
   linear_sum_assignment``, maximum total similarity; the evaluation default);
4. ``P = Σ sim / |pred|``, ``R = Σ sim / |gold|``, ``F1 = 2PR / (P + R)``.

A prediction list of ten or more times the gold count scores 0 (the reward's rule against
dumping the page).  Empty gold and empty predictions score 1; either one empty alone, 0.

LiveWeb-IE's matching rule is not published; :func:`set_prf` is the rule this package
states and uses: per (query, page), the set of whitespace-normalised values predicted
against the gold set, exact string match.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from infometer.core.results import Result

__all__ = [
    "normalize_text",
    "normalize_triple",
    "ratio",
    "similarity_matrix",
    "match",
    "PRF",
    "fuzzy_f1",
    "set_prf",
    "MAX_PAIRS",
    "DUMP_FACTOR",
]

#: Largest |pred| x |gold| similarity matrix built (64-bit floats: 160 MB).
MAX_PAIRS = 20_000_000
#: ``len(pred) >= DUMP_FACTOR * len(gold)`` scores 0.
DUMP_FACTOR = 10

_PUNCT = re.compile(f"[{re.escape(string.punctuation)}]")
_WS = re.compile(r"\s+")


def normalize_text(s: str) -> str:
    """Lower-case, drop ASCII punctuation, collapse whitespace, trim.

    Examples
    --------
    >>> normalize_text("  The Year:  1999! ")
    'the year 1999'
    """
    return _WS.sub(" ", _PUNCT.sub("", str(s).lower())).strip()


def normalize_triple(t: Sequence[Any]) -> str:
    """A triple as one normalised string, elements joined by tabs.

    Examples
    --------
    >>> normalize_triple(("Dune", "Author:", "F. Herbert"))
    'dune\\tauthor\\tf herbert'
    """
    return "\t".join(normalize_text(x) for x in t)


def _fuzz() -> Any:
    try:
        from rapidfuzz import fuzz
    except ImportError as exc:  # pragma: no cover - rapidfuzz is in the extra
        raise ImportError(
            "infometer.systems.extract needs rapidfuzz: pip install 'infometer[extract]'"
        ) from exc
    return fuzz


def ratio(a: str, b: str) -> float:
    """Normalised Indel similarity in [0, 100]: rapidfuzz's ``fuzz.ratio``.

    ``100 * (1 - (len a + len b - 2 LCS) / (len a + len b))``; two empty strings give 100.

    Examples
    --------
    >>> ratio("abcd", "abed")
    75.0
    """
    return float(_fuzz().ratio(a, b))


def similarity_matrix(pred: Sequence[str], gold: Sequence[str]) -> np.ndarray:
    """``sim[i, j] = ratio(pred[i], gold[j]) / 100`` of normalised strings.

    The size is checked before allocating (at most :data:`MAX_PAIRS` pairs).
    """
    n = len(pred) * len(gold)
    if n > MAX_PAIRS:
        raise ValueError(
            f"{len(pred)} predictions x {len(gold)} gold triples = {n:,} pairs exceeds the "
            f"limit of {MAX_PAIRS:,} similarity pairs (about {8 * n / 1e9:.1f} GB); score "
            "pages separately"
        )
    fuzz = _fuzz()
    from rapidfuzz.process import cdist

    return np.asarray(cdist(pred, gold, scorer=fuzz.ratio), dtype=np.float64) / 100.0


def match(sim: np.ndarray, method: str = "hungarian") -> tuple[np.ndarray, np.ndarray]:
    """One-to-one matching of rows to columns: ``"greedy"`` or ``"hungarian"``.

    Greedy takes the most similar remaining pair first (ties: lower row, then column);
    Hungarian maximises the total similarity.

    Examples
    --------
    >>> import numpy as np
    >>> s = np.array([[0.9, 0.8], [0.85, 0.0]])
    >>> match(s, "greedy")[1].tolist(), match(s, "hungarian")[1].tolist()
    ([0], [1, 0])
    """
    if method not in ("greedy", "hungarian"):
        raise ValueError(f"matching must be 'greedy' or 'hungarian', got {method!r}")
    if sim.size == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    if method == "hungarian":
        from scipy.optimize import linear_sum_assignment

        r, c = linear_sum_assignment(sim, maximize=True)
        keep = sim[r, c] > 0
        return r[keep], c[keep]
    order = np.lexsort(
        (
            np.tile(np.arange(sim.shape[1]), sim.shape[0]),
            np.repeat(np.arange(sim.shape[0]), sim.shape[1]),
            -sim.ravel(),
        )
    )
    used_r = np.zeros(sim.shape[0], bool)
    used_c = np.zeros(sim.shape[1], bool)
    rows, cols = [], []
    for k in order:
        i, j = divmod(int(k), sim.shape[1])
        if used_r[i] or used_c[j] or sim[i, j] <= 0:
            continue
        used_r[i] = used_c[j] = True
        rows.append(i)
        cols.append(j)
        if len(rows) == min(sim.shape):
            break
    return np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64)


@dataclass(frozen=True, eq=False, repr=False)
class PRF(Result):
    """Precision, recall, F1 and the counts behind them."""

    precision: float
    recall: float
    f1: float
    n_pred: int
    n_gold: int
    matching: str = "hungarian"


def _prf(total: float, n_pred: int, n_gold: int, matching: str) -> PRF:
    if n_pred == 0 and n_gold == 0:
        return PRF(1.0, 1.0, 1.0, 0, 0, matching)
    p = total / n_pred if n_pred else 0.0
    r = total / n_gold if n_gold else 0.0
    f = 2 * p * r / (p + r) if p + r > 0 else 0.0
    return PRF(p, r, f, n_pred, n_gold, matching)


def _items(x: Any, name: str, what: str) -> Any:
    """``x`` when it is a collection of items: never None, a string (one value, not a
    list of characters), a number or anything else that is not iterable."""
    if x is None or isinstance(x, str | bytes) or not isinstance(x, Iterable):
        raise TypeError(f"{name} must be a list of {what}, got {type(x).__name__} {x!r:.60}")
    return x


def _as_triples(x: Any, name: str) -> list[tuple[str, ...]]:
    x = _items(x, name, "(subject, predicate, object) triples")
    out = []
    for i, t in enumerate(x):
        if isinstance(t, str | bytes) or not isinstance(t, Sequence) or len(t) != 3:
            raise ValueError(
                f"{name}[{i}] must be a (subject, predicate, object) triple, got {t!r}"
            )
        out.append(tuple(str(v) for v in t))
    return out


def _dedup(xs: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(xs))


def fuzzy_f1(pred: Any, gold: Any, *, matching: str = "hungarian") -> PRF:
    """SCRIBES' fuzzy precision, recall and F1 of predicted triples against gold.

    Parameters
    ----------
    pred, gold
        Lists of (subject, predicate, object) triples (any 3-element sequences).
    matching
        ``"hungarian"`` (evaluation) or ``"greedy"`` (the training reward).

    Returns
    -------
    PRF
        Counts are after normalisation and de-duplication.

    Examples
    --------
    >>> gold = [("a", "b", "c"), ("d", "e", "f")]
    >>> fuzzy_f1(gold[:1], gold).recall
    0.5
    """
    if matching not in ("greedy", "hungarian"):
        raise ValueError(f"matching must be 'greedy' or 'hungarian', got {matching!r}")
    p = _dedup(normalize_triple(t) for t in _as_triples(pred, "pred"))
    g = _dedup(normalize_triple(t) for t in _as_triples(gold, "gold"))
    if g and len(p) >= DUMP_FACTOR * len(g):
        return PRF(0.0, 0.0, 0.0, len(p), len(g), matching)
    if not p or not g:
        return _prf(0.0, len(p), len(g), matching)
    sim = similarity_matrix(p, g)
    r, c = match(sim, matching)
    return _prf(float(sim[r, c].sum()), len(p), len(g), matching)


def set_prf(pred: Any, gold: Any) -> PRF:
    """Set precision/recall/F1 of predicted values against gold values (exact match).

    Values are whitespace-normalised strings; an empty prediction for an empty gold
    scores 1.

    Examples
    --------
    >>> set_prf(["1999", " 2001 "], ["2001"]).precision
    0.5
    """
    pred, gold = _items(pred, "pred", "values"), _items(gold, "gold", "values")
    p = {_WS.sub(" ", str(v)).strip() for v in pred} - {""}
    g = {_WS.sub(" ", str(v)).strip() for v in gold} - {""}
    return _prf(float(len(p & g)), len(p), len(g), "exact set")
