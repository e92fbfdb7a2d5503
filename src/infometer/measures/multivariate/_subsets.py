"""Subsets of variables as numbers, and each distinct subset's entropy computed once.

Every multiplet quantity is a signed sum of the entropies of subsets of the multiplet
(:mod:`._terms`); a sweep over all multiplets of sizes 3-5 of 20 variables names 21,489
multiplets but only 21,679 distinct subsets of sizes 1-5, while evaluating each
multiplet's terms separately would compute 5-11 log-determinants per multiplet.
:class:`SubsetEntropies` computes each distinct subset's entropy once (one batched call
per subset size) and gathers the values for every multiplet by the subset's rank.

A k-subset ``c_0 < c_1 < ... < c_{k-1}`` of ``0..d-1`` is numbered by its colexicographic
rank ``Σ_j C(c_j, j + 1)`` (0 ... C(d, k) - 1), which needs no table of the subsets.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from math import comb

import numpy as np

__all__ = [
    "lex_combinations",
    "colex_ranks",
    "colex_levels",
    "prefix_levels",
    "SubsetEntropies",
    "TABLE_BYTES",
]

#: Largest memo of one subset size (values of every k-subset, per data set) kept whole.
TABLE_BYTES = 64 * 2**20


def lex_combinations(d: int, k: int) -> np.ndarray:
    """Every k-subset of ``0..d-1``, in the order of :func:`itertools.combinations`.

    Built a column at a time (each (j-1)-subset followed by every larger element), several
    times faster than materialising the iterator.

    Examples
    --------
    >>> lex_combinations(4, 2).tolist()
    [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]
    >>> lex_combinations(3, 0).shape, lex_combinations(2, 3).shape
    ((1, 0), (0, 3))
    """
    if k > d:
        return np.zeros((0, k), dtype=np.intp)
    out = np.zeros((1, 0), dtype=np.intp)
    for j in range(k):
        # prefixes whose last element leaves room for the k - j - 1 elements still to come
        last = out[:, -1] if j else np.full(out.shape[0], -1, dtype=np.intp)
        room = np.maximum(d - (k - j - 1) - 1 - last, 0)
        rows = np.repeat(np.arange(out.shape[0]), room)
        starts = np.cumsum(room) - room
        nxt = last[rows] + 1 + (np.arange(rows.size) - starts[rows])
        out = np.column_stack([out[rows], nxt]).astype(np.intp, copy=False)
    return out


@lru_cache(maxsize=64)
def _binomials(d: int, k: int) -> np.ndarray:
    """``B[c, j] = C(c, j + 1)`` for ``c < d``, ``j < k`` (int64; read-only, cached)."""
    b = np.array([[comb(c, j + 1) for j in range(k)] for c in range(d)], dtype=np.int64)
    b = b.reshape(d, k)
    b.flags.writeable = False
    return b


def colex_ranks(sub: np.ndarray, d: int) -> np.ndarray:
    """Colexicographic ranks of the rows of ``sub`` ((m, k), each row increasing, < d).

    Examples
    --------
    >>> colex_ranks(np.array([[0, 1], [0, 2], [1, 2], [0, 3]]), 4).tolist()
    [0, 1, 2, 3]
    """
    m, k = sub.shape
    if k == 0:
        return np.zeros(m, dtype=np.int64)
    if k == 1:
        return sub[:, 0].astype(np.int64)
    b = _binomials(d, k)
    r = b[sub[:, 0], 0].copy()
    for j in range(1, k):
        r += b[sub[:, j], j]
    return r


def colex_levels(d: int, kmax: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Every k-subset of ``0..d-1`` for k = 1..kmax, in colexicographic order, each with the
    position of its (k-1)-prefix (all elements but the largest) in the level below.

    The k-subsets whose largest element is e are e appended to the first C(e, k-1)
    (k-1)-subsets (those of ``0..e-1``), so a level is built from the one below.

    Examples
    --------
    >>> (s1, _), (s2, p2) = colex_levels(3, 2)
    >>> s2.tolist(), p2.tolist()
    ([[0, 1], [0, 2], [1, 2]], [0, 0, 1])
    """
    levels = [(np.arange(d, dtype=np.intp)[:, None], np.zeros(d, dtype=np.intp))]
    for k in range(2, kmax + 1):
        counts = np.array([comb(e, k - 1) for e in range(k - 1, d)], dtype=np.intp)
        total = int(counts.sum())
        starts = np.cumsum(counts) - counts
        parent = np.arange(total, dtype=np.intp) - np.repeat(starts, counts)
        last = np.repeat(np.arange(k - 1, d, dtype=np.intp), counts)
        levels.append((np.column_stack([levels[-1][0][parent], last]), parent))
    return levels


def prefix_levels(blocks: np.ndarray, d: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The levels of :func:`colex_levels` restricted to ``blocks`` ((m, k), rows increasing)
    and their prefixes: level j holds the distinct j-prefixes (sorted by rank), the top
    level the blocks themselves in their order; each with its prefix's position below."""
    k = blocks.shape[1]
    ranks = [np.unique(colex_ranks(blocks[:, :j], d)) for j in range(1, k)]
    levels = []
    for j in range(1, k + 1):
        subs = blocks if j == k else _unrank(ranks[j - 1], d, j)
        if j == 1:
            parent = np.zeros(subs.shape[0], dtype=np.intp)
        else:
            parent = np.searchsorted(ranks[j - 2], colex_ranks(subs[:, :-1], d))
        levels.append((subs, parent))
    return levels


def tables_bytes(d: int, kmax: int, batch: tuple[int, ...]) -> float:
    """Bytes of :func:`infometer.measures.multivariate.kernels.gaussian_subset_tables` on
    every subset of sizes 1..kmax: a factor row (k values) and a log-det per k-subset below
    the top level, a log-det per top-level subset."""
    per = sum(comb(d, k) * (k + 1) for k in range(1, kmax)) + comb(d, kmax)
    return 8.0 * per * int(np.prod(batch, dtype=np.int64))


class SubsetEntropies:
    """Entropies of column subsets of one data set (or a stack), each subset computed once.

    Parameters
    ----------
    d
        Columns of the data.
    batch
        Leading shape of the data (``()`` for one data set, ``(B,)`` for B surrogates).
    compute
        ``compute(blocks)`` -> entropies of the subsets ``blocks`` ((u, k) column indices),
        shape ``batch + (u,)``; the value of one subset must not depend on the others in
        the call (batched LAPACK / per-block sorts), so that results are bit for bit the
        same however subsets are grouped.
    tables
        ``tables(kmax)`` -> the entropies of every subset of each size 1..kmax in
        colexicographic order (bit for bit what ``compute`` gives for each), used by
        :meth:`complete`; None: no such shortcut.
    table_bytes
        Memo budget per subset size: when ``C(d, k)`` values per data set fit, every
        k-subset computed is kept for later calls; otherwise each call computes the
        distinct subsets it names.
    """

    def __init__(
        self,
        d: int,
        batch: tuple[int, ...],
        compute: Callable[[np.ndarray], np.ndarray],
        tables: Callable[[int], list[np.ndarray]] | None = None,
        table_bytes: int = TABLE_BYTES,
    ):
        self.d = d
        self.batch = tuple(batch)
        self.compute = compute
        self.tables = tables
        self.table_bytes = table_bytes
        self._memo: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._whole: set[int] = set()  # sizes whose every subset is in the memo

    def complete(self, kmax: int) -> bool:
        """Compute every subset of sizes 1..kmax now, in one pass (an exhaustive sweep needs
        nearly all of them), when a ``tables`` shortcut exists and fits ``table_bytes``."""
        if self.tables is None or tables_bytes(self.d, kmax, self.batch) > self.table_bytes:
            return False
        for k, values in enumerate(self.tables(kmax), start=1):
            if k not in self._memo:
                self._memo[k] = (np.ones(values.shape[-1], dtype=bool), values)
            self._whole.add(k)
        return True

    def _table(self, k: int) -> tuple[np.ndarray, np.ndarray] | None:
        if k in self._memo:
            return self._memo[k]
        size = comb(self.d, k)
        if 8.0 * size * int(np.prod(self.batch, dtype=np.int64)) > self.table_bytes:
            return None
        self._memo[k] = (np.zeros(size, dtype=bool), np.empty(self.batch + (size,)))
        return self._memo[k]

    def of(self, subsets: list[np.ndarray]) -> list[np.ndarray]:
        """Entropies of several arrays of k-subsets (each (m_i, k), rows increasing, all of
        one k): a list of arrays of shape ``batch + (m_i,)``."""
        k = subsets[0].shape[1]
        ranks = [colex_ranks(s, self.d) for s in subsets]
        table = self._table(k)
        if table is not None:
            known, values = table
            if k in self._whole:
                return [values[..., r] for r in ranks]
            need = np.zeros(known.size, dtype=bool)
            for r in ranks:
                need[r] = True
            need &= ~known
            new = np.flatnonzero(need)
            if new.size:
                values[..., new] = self.compute(_unrank(new, self.d, k))
                known[new] = True
            return [values[..., r] for r in ranks]
        allr = np.concatenate(ranks)
        uniq, inverse = np.unique(allr, return_inverse=True)
        h = self.compute(_unrank(uniq, self.d, k))
        out, start = [], 0
        for r in ranks:
            out.append(h[..., inverse[start : start + r.size]])
            start += r.size
        return out


def _unrank(ranks: np.ndarray, d: int, k: int) -> np.ndarray:
    """The k-subsets with colexicographic ``ranks`` ((u, k), rows increasing).

    Greedy from the largest element: ``c_{k-1}`` is the largest c with ``C(c, k) ≤ r``.

    Examples
    --------
    >>> _unrank(np.array([0, 1, 2, 3]), 4, 2).tolist()
    [[0, 1], [0, 2], [1, 2], [0, 3]]
    """
    out = np.empty((ranks.size, k), dtype=np.intp)
    if k == 0:
        return out
    b = _binomials(d + 1, k)
    r = ranks.astype(np.int64, copy=True)
    for j in range(k - 1, -1, -1):
        col = b[:, j]  # C(c, j + 1), non-decreasing in c
        c = np.searchsorted(col, r, side="right") - 1
        out[:, j] = c
        r -= col[c]
    return out
