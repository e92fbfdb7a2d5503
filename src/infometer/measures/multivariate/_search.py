"""Kernels of the multiplet search (numpy in, numpy out): one chunk of an exhaustive
sweep (also the job that :func:`infometer.core.parallel.run_jobs` runs), and the greedy/beam
search that grows the best multiplets one variable at a time."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, islice
from typing import Any

import numpy as np

from . import kernels
from ._subsets import SubsetEntropies, colex_levels, lex_combinations, prefix_levels
from ._terms import terms

__all__ = [
    "Counts",
    "multiplet_values",
    "subset_entropies",
    "chunk_stats",
    "chunk_job",
    "beam_search",
    "OBJECTIVES",
]

#: objective -> sign: the search maximises ``sign * value``
OBJECTIVES = {"synergy": -1.0, "redundancy": 1.0, "min": -1.0, "max": 1.0}


@dataclass(frozen=True)
class Counts:
    """Discrete data for the multiplet kernels, in place of a scatter matrix: ``codes``
    (n, d) int64 (column j in ``0..cards[j] - 1``) or a stack (b, n, d) of surrogates,
    and the entropy estimator (plug-in or Miller-Madow).  ``shape[-1]`` is d and
    ``counts[b]`` is one surrogate, as for a stack of scatter matrices."""

    codes: np.ndarray
    cards: np.ndarray
    miller_madow: bool

    @property
    def shape(self) -> tuple[int, ...]:
        return self.codes.shape

    def __getitem__(self, b: int) -> Counts:
        return Counts(self.codes[b], self.cards, self.miller_madow)

    def tobytes(self) -> bytes:
        """What identifies the data (a resumable store's key)."""
        return (
            np.ascontiguousarray(self.codes).tobytes()
            + self.cards.tobytes()
            + bytes([self.miller_madow])
        )


def subset_entropies(
    scatter: np.ndarray | Counts, n: int, bias_correct: bool = True
) -> SubsetEntropies:
    """The memo of subset entropies of the scatter matrix (d, d) or stack (b, d, d)
    (Gaussian entropies from the Cholesky factors of their prefixes:
    :func:`.kernels.gaussian_tree_entropies`), or of :class:`Counts` (entropies of the
    joint symbols)."""
    if isinstance(scatter, Counts):

        def compute(blocks: np.ndarray) -> np.ndarray:
            return kernels.codes_block_entropies(
                scatter.codes, scatter.cards, blocks, scatter.miller_madow
            )

        return SubsetEntropies(scatter.shape[-1], scatter.shape[:-2], compute)
    d = scatter.shape[-1]

    def compute_tree(blocks: np.ndarray) -> np.ndarray:
        levels = prefix_levels(blocks, d)
        return kernels.gaussian_tree_entropies(scatter, n, levels, bias_correct)[-1]

    def tables(kmax: int) -> list[np.ndarray]:
        return kernels.gaussian_tree_entropies(scatter, n, colex_levels(d, kmax), bias_correct)

    return SubsetEntropies(d, scatter.shape[:-2], compute_tree, tables)


def multiplet_values(
    scatter: np.ndarray | Counts,
    n: int,
    idx: np.ndarray,
    measure: str,
    bias_correct: bool = True,
    cache: SubsetEntropies | None = None,
) -> np.ndarray:
    """``measure`` of each multiplet (rows of ``idx``, (m, s)) from the scatter matrix
    (d, d) or a stack (b, d, d) (Gaussian entropies), or from :class:`Counts` (entropies
    of the joint symbols); returns (m,) or (b, m) values in nats.

    Each distinct subset's entropy is computed once (all terms of one size in one batched
    call), and once for the whole run when the same ``cache`` (a
    :func:`subset_entropies` of the same data) is passed to every call.

    Examples
    --------
    >>> import numpy as np
    >>> w = np.eye(3) * 100.0  # independent columns, 101 rows
    >>> multiplet_values(w, 101, np.array([[0, 1, 2]]), "total_correlation", False).round(12)
    array([0.])
    """
    s = idx.shape[1]
    if cache is None:
        cache = subset_entropies(scatter, n, bias_correct)
    t = terms(measure, s)
    by_size: dict[int, list[frozenset]] = {}
    for sub in t:
        by_size.setdefault(len(sub), []).append(sub)
    h: dict[frozenset, np.ndarray] = {}
    for subs in by_size.values():
        for sub, v in zip(subs, cache.of([idx[:, sorted(sub)] for sub in subs]), strict=True):
            h[sub] = v
    out = 0.0
    for sub, c in t.items():  # the terms' own order: the same sum on every path
        out = out + c * h[sub]
    return np.asarray(out)


def chunk_stats(
    w: np.ndarray,
    ws: np.ndarray | None,
    n: int,
    idx: np.ndarray,
    measure: str,
    bias_correct: bool,
    caches: tuple[SubsetEntropies, SubsetEntropies | None] | None = None,
) -> dict[str, np.ndarray]:
    """Values of the multiplets ``idx`` (m, s) and, with surrogate scatters ``ws``
    (B, d, d), per multiplet the count of surrogates with ``|null| ≥ |value|`` and per
    surrogate the largest ``|null|`` over the chunk.  ``caches``: the
    :func:`subset_entropies` of ``w`` and ``ws``, shared by the chunks of one run.

    Examples
    --------
    >>> out = chunk_stats(np.eye(3) * 50.0, None, 51, np.array([[0, 1, 2]]),
    ...                   "total_correlation", False)
    >>> out["value"].round(12)
    array([0.])
    """
    cw, cws = caches if caches is not None else (None, None)
    v = multiplet_values(w, n, idx, measure, bias_correct, cw)
    out = {"value": v}
    if ws is not None:
        nv = np.abs(multiplet_values(ws, n, idx, measure, bias_correct, cws))
        out["hits"] = (nv >= np.abs(v)[None, :]).sum(0)
        out["null_max"] = np.nanmax(nv, axis=1)
    return out


def chunk_job(payload: dict[str, Any]) -> dict[str, np.ndarray]:
    """One planned chunk (``d, size, start, count`` of the lexicographic combinations)."""
    it = combinations(range(payload["d"]), payload["size"])
    rows = list(islice(it, payload["start"], payload["start"] + payload["count"]))
    idx = np.array(rows, dtype=np.intp).reshape(len(rows), payload["size"])
    return chunk_stats(
        payload["w"], payload["ws"], payload["n"], idx, payload["measure"], payload["bias_correct"]
    )


def _grow(beam: np.ndarray, d: int) -> np.ndarray:
    """Every multiplet one variable larger than a row of ``beam``, sorted, no repeats."""
    seen = set()
    for row in beam.tolist():
        have = set(row)
        for j in range(d):
            if j not in have:
                seen.add(tuple(sorted((*row, j))))
    return np.array(sorted(seen), dtype=np.intp).reshape(len(seen), beam.shape[1] + 1)


def _keep(idx: np.ndarray, vals: np.ndarray, sign: float, width: int):
    score = np.where(np.isnan(vals), -np.inf, sign * vals)
    order = np.argsort(-score, kind="stable")[:width]
    return idx[order], vals[order]


def beam_search(
    w: np.ndarray,
    n: int,
    lo: int,
    hi: int,
    width: int,
    measure: str,
    sign: float,
    bias_correct: bool,
) -> tuple[list[tuple[np.ndarray, np.ndarray]], int]:
    """Beam search: all triplets, keep the ``width`` best (largest ``sign * value``),
    grow each by every other variable, keep the ``width`` best, ... up to size ``hi``.

    Returns the kept multiplets and values of each size ``lo..hi`` and the number of
    multiplets evaluated.  ``width=1`` is the greedy search; a width of at least
    ``C(d, s)`` at every size keeps everything (the exhaustive search).

    Examples
    --------
    >>> kept, evaluated = beam_search(np.eye(4) * 99.0, 100, 3, 4, 1, "o_information",
    ...                               -1.0, False)
    >>> [k[0].tolist() for k in kept], evaluated
    ([[[0, 1, 2]], [[0, 1, 2, 3]]], 5)
    """
    d = w.shape[-1]
    cache = subset_entropies(w, n, bias_correct)
    idx = lex_combinations(d, 3)
    vals = multiplet_values(w, n, idx, measure, bias_correct, cache)
    evaluated = idx.shape[0]
    idx, vals = _keep(idx, vals, sign, width)
    out = [(idx, vals)] if lo == 3 else []
    for s in range(4, hi + 1):
        cand = _grow(idx, d)
        cv = multiplet_values(w, n, cand, measure, bias_correct, cache)
        evaluated += cand.shape[0]
        idx, vals = _keep(cand, cv, sign, width)
        if s >= lo:
            out.append((idx, vals))
    return out, evaluated


def best_of_search(payload: dict[str, Any]) -> np.ndarray:
    """``sign`` x the best value of each size ``lo..hi`` that :func:`beam_search` finds on
    the scatter matrix ``payload["w"]`` (``-inf`` where a size kept nothing): the null
    statistic of one surrogate, in process or as a job of ``parallel.run_jobs``."""
    kept, _ = beam_search(
        payload["w"],
        payload["n"],
        payload["lo"],
        payload["hi"],
        payload["width"],
        payload["measure"],
        payload["sign"],
        payload["bias_correct"],
    )
    sign = payload["sign"]
    return np.array([sign * v[0] if v.size else -np.inf for _, v in kept], dtype=np.float64)


def search_cost(d: int, lo: int, hi: int, width: int) -> int:
    """Upper bound on the multiplets a beam search evaluates."""
    from math import comb

    total, k = comb(d, 3), min(width, comb(d, 3))
    for s in range(4, hi + 1):
        total += min(k * (d - s + 1), comb(d, s))
        k = min(width, comb(d, s))
    return total
