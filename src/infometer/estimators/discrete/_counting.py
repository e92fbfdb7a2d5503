"""Counting kernel: joint symbols -> integer codes -> counts, in O(N + K) memory."""

from __future__ import annotations

import sys
from collections.abc import Sequence

import numpy as np

from infometer.core._threads import n_threads
from infometer.core.data import DISCRETE, Variable, encode_columns

__all__ = ["counts", "joint_codes", "count_histogram", "joint_table", "table_counts"]

# Above this many possible codes per row, bincount's dense array would be wasteful.
_DENSE_FACTOR = 8
#: From this many rows the dense joint table is filled by the compiled one-pass kernel
#: (numba is loaded, or compiled once per install); below, by numpy's bincount.
COMPILED_MIN_ROWS = 1_000_000
#: The dense joint table has at most this many cells (and at most 8 per row).
DENSE_MAX_CELLS = 1 << 24


def joint_codes(*variables: Variable) -> np.ndarray:
    """One int64 code per row for the joint symbol of all ``variables`` (discrete only)."""
    if len(variables) == 1:
        return variables[0].codes
    cols = [v.codes for v in variables]
    return encode_columns(cols, [int(c.max()) + 1 if c.size else 1 for c in cols])


def counts(codes: np.ndarray) -> np.ndarray:
    """Counts of the distinct values of ``codes`` (non-negative int64), zeros dropped."""
    codes = np.asarray(codes)
    if codes.size == 0:
        return np.zeros(0, dtype=np.int64)
    hi = int(codes.max())
    if hi < _DENSE_FACTOR * codes.size + 1024:
        c = np.bincount(codes, minlength=hi + 1)
        return c[c > 0]
    import pandas as pd

    codes2, uniques = pd.factorize(codes)
    return np.bincount(codes2, minlength=len(uniques))


def count_histogram(c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct count values and how many symbols have each (the "profile" of the sample)."""
    vals, mult = np.unique(np.asarray(c, dtype=np.int64), return_counts=True)
    return vals, mult


def _alphabet(v: Variable) -> int | None:
    """An upper bound on ``v.codes`` known without a pass over the data, or None."""
    cards = [k for k, kind in zip(v.cardinalities, v.kinds, strict=True) if kind == DISCRETE]
    if len(cards) != v.d or any(k is None for k in cards):
        return None
    total = 1
    for k in cards:
        total *= int(k)
    return total if total < (1 << 62) else None  # below 2**62 the codes are mixed radix


def joint_table(variables: Sequence[Variable]) -> np.ndarray | None:
    """The dense joint count table of 1 to 3 discrete variables, or None when it would be
    large (more than ``DENSE_MAX_CELLS`` cells or 8 per row).

    Axis ``j`` of the table is variable ``len(variables) - 1 - j``, so that the table in C
    order lists the joint symbols in the order of :func:`joint_codes` (first variable
    fastest) and the counts of any subset are sums over the other axes, in the order that
    :func:`counts` of that subset's codes gives them (same numbers, same order).
    """
    if not 1 <= len(variables) <= 3:
        return None
    ks = [_alphabet(v) for v in variables]
    if any(k is None for k in ks):
        return None
    n = variables[0].n
    cells = int(np.prod(np.asarray(ks, dtype=np.float64)))
    if cells > min(DENSE_MAX_CELLS, _DENSE_FACTOR * n + 1024):
        return None
    shape = tuple(ks[::-1])  # the last variable varies slowest
    compiled = n >= COMPILED_MIN_ROWS or "infometer.estimators.discrete._compiled" in sys.modules
    if compiled and n and sum(v.d for v in variables) <= 3:
        # the columns themselves, each variable's first column fastest: the same cells in
        # the same order as its mixed-radix code, without a pass to form that code
        cols = [
            (c, k)
            for v in variables[::-1]
            for c, k in zip(v.columns[::-1], v.cardinalities[::-1], strict=True)
        ]
        table = _compiled_table([c for c, _ in cols], tuple(int(k) for _, k in cols), cells)
        return table.reshape(shape)
    codes = [v.codes for v in variables][::-1]
    if compiled and n:
        return _compiled_table(codes, shape, cells)
    flat = codes[0]
    for c, k in zip(codes[1:], shape[1:], strict=True):
        flat = flat * k + c
    return np.bincount(flat, minlength=cells).reshape(shape)


def table_counts(table: np.ndarray, n_vars: int, idx: tuple[int, ...]) -> np.ndarray:
    """Non-zero counts of the variables ``idx`` from a :func:`joint_table` of ``n_vars``."""
    other = tuple(n_vars - 1 - i for i in range(n_vars) if i not in idx)
    t = table.sum(axis=other) if other else table
    c = t.ravel()
    return c[c > 0]


def _compiled_table(codes: list[np.ndarray], shape: tuple[int, ...], cells: int) -> np.ndarray:
    """:func:`joint_table` by the compiled kernel, the rows split over two threads when
    the table is small next to the data (each thread fills its own table; sums are exact)."""
    from concurrent.futures import ThreadPoolExecutor

    from ._compiled import joint_table as fill

    n = codes[0].shape[0]
    pad = codes + [codes[0]] * (3 - len(codes))  # unused slots: any int64 array
    kb = shape[1] if len(shape) > 1 else 1
    kc = shape[2] if len(shape) > 2 else 1
    width = 2 * cells if len(codes) == 1 else cells  # one column: two interleaved tables
    threads = min(n_threads(), 2) if n >= COMPILED_MIN_ROWS and 16 * cells <= n else 1
    out = np.zeros((threads, width), np.int64)
    cuts = np.linspace(0, n, threads + 1).astype(np.int64).tolist()
    args = (pad[0], pad[1], pad[2], len(codes), kb, kc)
    if threads == 1:
        fill(*args, 0, n, out[0])
    else:
        with ThreadPoolExecutor(threads) as pool:
            jobs = [pool.submit(fill, *args, cuts[t], cuts[t + 1], out[t]) for t in range(threads)]
            for j in jobs:
                j.result()
    total = out.sum(axis=0)
    if len(codes) == 1:
        total = total[:cells] + total[cells:]
    return total.reshape(shape)
