"""Validation of multivariate time-series input for network inference.

Accepts a pandas DataFrame (columns = processes), a dict ``name -> 1-D series``, a list
of 1-D series, or a 2-D array (rows = time).  Errors name the column at fault.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["Panel", "as_panel"]


class Panel:
    """Validated series: ``values`` (T, n) float64 or int64 codes, ``names``, ``discrete``."""

    def __init__(
        self,
        values: np.ndarray,
        names: list[str],
        discrete: bool,
        constant: list[str],
        symbol_series: list[str] | None = None,
        few_level: dict[str, int] | None = None,
    ) -> None:
        self.values = values
        self.names = names
        self.discrete = discrete
        self.constant = constant
        #: with ``discrete=None``: integer / boolean series read as numbers beside floats
        self.symbol_series = symbol_series or []
        #: with ``discrete=None``: float series taking few distinct values -> their count
        self.few_level = few_level or {}

    @property
    def t(self) -> int:
        return int(self.values.shape[0])

    @property
    def n(self) -> int:
        return int(self.values.shape[1])


def _refuse_masked(v: Any, label: str) -> None:
    # np.asarray drops a mask and would use the hidden values
    if isinstance(v, np.ma.MaskedArray):
        mask = np.ma.getmaskarray(v)
        if mask.any():
            first = np.unravel_index(int(np.flatnonzero(mask)[0]), mask.shape)
            raise ValueError(
                f"{label} is a masked array with {int(mask.sum())} masked value(s), the first "
                f"at row {int(first[0])}; drop those rows or fill them before inferring a network"
            )


def _as_array(v: Any, label: str) -> np.ndarray:
    try:
        return np.asarray(v)
    except ValueError:  # numpy's "inhomogeneous shape" for ragged rows
        raise ValueError(f"{label} is ragged: its rows have different lengths") from None


def _ndim(v: Any) -> int:
    try:
        return int(np.ndim(v))
    except ValueError:
        return -1


def _columns(data: Any, name: str) -> tuple[list[str], list[np.ndarray]]:
    if data is None or isinstance(data, str | bytes):
        raise TypeError(
            f"{name} must be a DataFrame, a dict of series or a 2-D array, got {data!r}"
        )
    _refuse_masked(data, name)
    if isinstance(data, dict):
        for k, v in data.items():
            _refuse_masked(v, f"series {str(k)!r} of {name}")
    elif isinstance(data, list | tuple):
        for i, v in enumerate(data):
            _refuse_masked(v, f"{name}[{i}]")
    if hasattr(data, "columns") and hasattr(data, "__getitem__") and not isinstance(data, dict):
        names = [str(c) for c in data.columns]
        cols = [np.asarray(data[c].to_numpy()) for c in data.columns]
        return names, cols
    if isinstance(data, dict):
        return [str(k) for k in data], [
            _as_array(v, f"series {str(k)!r} of {name}") for k, v in data.items()
        ]
    if isinstance(data, list | tuple) and data and all(_ndim(v) == 1 for v in data):
        return [f"x{i}" for i in range(len(data))], [
            _as_array(v, f"{name}[{i}]") for i, v in enumerate(data)
        ]
    arr = _as_array(data, name)
    if arr.dtype == object:
        raise TypeError(f"{name} holds objects (mixed types or ragged rows), not numbers")
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be 2-D (rows = time steps, columns = processes), got {arr.ndim}-D"
        )
    return [f"x{i}" for i in range(arr.shape[1])], [arr[:, i] for i in range(arr.shape[1])]


def as_panel(
    data: Any, *, discrete: bool | None = None, name: str = "data"
) -> tuple[Panel, list[str]]:
    """Validate ``data``; return the panel and warnings (constant series are dropped).

    Raises
    ------
    TypeError
        For non-numeric columns.
    ValueError
        For series of unequal length, NaN or infinite values, fewer than 2 processes.
    """
    names, cols = _columns(data, name)
    if len(set(names)) != len(names):
        raise ValueError(f"{name} has repeated column names")
    lengths = {nm: c.shape[0] if c.ndim else 0 for nm, c in zip(names, cols, strict=True)}
    if len(set(lengths.values())) > 1:
        desc = ", ".join(f"{k}: {v}" for k, v in lengths.items())
        raise ValueError(f"the series of {name} have unequal lengths ({desc}); all must be equal")
    for nm, c in zip(names, cols, strict=True):
        if c.ndim != 1:
            raise ValueError(f"series {nm!r} of {name} must be 1-D, got shape {c.shape}")
        if not (np.issubdtype(c.dtype, np.number) or c.dtype == bool):
            raise TypeError(
                f"series {nm!r} of {name} is not numeric (dtype {c.dtype}); encode it as numbers "
                "or drop it"
            )
        if np.issubdtype(c.dtype, np.complexfloating):
            raise TypeError(f"series {nm!r} of {name} is complex; pass real values")
        if np.issubdtype(c.dtype, np.floating):
            bad = ~np.isfinite(c)
            if bad.any():
                first = int(np.flatnonzero(bad)[0])
                raise ValueError(
                    f"series {nm!r} of {name} has {int(bad.sum())} NaN or infinite values (the "
                    f"first at row {first}); fill or cut the gaps before inferring a network"
                )
    symbols, few = [], {}
    if discrete is None:
        from infometer.core.data import as_variable

        ints = [np.issubdtype(c.dtype, np.integer) or c.dtype == bool for c in cols]
        discrete = all(ints)
        if not discrete:
            symbols = [nm for nm, i in zip(names, ints, strict=True) if i]
            for nm, c, i in zip(names, cols, ints, strict=True):
                # the data reader's flag of floats with few distinct values (one detector)
                if not i and as_variable(c, str(nm)).diagnostics.get("few_distinct_float_columns"):
                    few[nm] = int(np.unique(c).size)
    warns: list[str] = []
    constant = [nm for nm, c in zip(names, cols, strict=True) if c.size and np.all(c == c[0])]
    if constant:
        warns.append(
            f"series {', '.join(map(repr, constant))} of {name} are constant: they carry no "
            "information and are left out (no edges to or from them)"
        )
    keep = [i for i, nm in enumerate(names) if nm not in constant]
    if len(keep) < 2:
        raise ValueError(f"{name} needs at least 2 non-constant series, got {len(keep)}")
    if discrete:
        vals = np.column_stack([np.unique(cols[i], return_inverse=True)[1] for i in keep])
        vals = vals.astype(np.int64)
    else:
        vals = np.column_stack([cols[i].astype(np.float64) for i in keep])
    kept = [names[i] for i in keep]
    symbols = [nm for nm in symbols if nm in kept]
    few = {nm: k for nm, k in few.items() if nm in kept}
    return Panel(vals, kept, bool(discrete), constant, symbols, few), warns
