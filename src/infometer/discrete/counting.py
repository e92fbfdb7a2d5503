"""Counting kernel: joint symbols -> integer codes -> counts, in O(N + K) memory."""

from __future__ import annotations

import numpy as np

from ..data import Variable, encode_columns

__all__ = ["counts", "joint_codes", "count_histogram"]

# Above this many possible codes per row, bincount's dense array would be wasteful.
_DENSE_FACTOR = 8


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
