"""A table of many variables, validated column by column for all-pairs estimation.

:func:`as_table` is the only place where :func:`infometer.pairwise` looks at raw input.
Each kept column becomes a one-column :class:`~infometer.core.data.Variable` through
:func:`infometer.core.data.as_variable` (so kinds, codes and error messages are the library's
usual ones), and the problems that concern a whole table are handled here:

* fewer than two columns, duplicated column names: ``ValueError`` naming them;
* an all-missing column: dropped with a warning; its row and column of the matrix are NaN;
* missing values in some rows: ``nan="error"`` (default) names the columns,
  ``nan="drop_rows"`` keeps the complete rows, ``nan="drop_columns"`` drops those columns;
* a constant column: kept; its information with anything is exactly 0 (warned).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from infometer.core.data import Variable, _as_array, as_variable, check_choice

__all__ = ["Table", "as_table", "NAN_POLICIES"]

NAN_POLICIES = ("error", "drop_rows", "drop_columns")


@dataclass
class Table:
    """Validated columns of a table.

    Attributes
    ----------
    labels
        Every column label, in input order (dropped columns included).
    variables
        One-column :class:`Variable` per label, ``None`` for a dropped column.
    dropped
        Label -> why it was dropped.
    constant
        Labels of constant columns.
    n
        Number of rows used.
    warnings
        Messages about what was dropped or found.
    """

    labels: list[str]
    variables: list[Variable | None]
    dropped: dict[str, str] = field(default_factory=dict)
    constant: list[str] = field(default_factory=list)
    n: int = 0
    warnings: list[str] = field(default_factory=list)

    @property
    def kept(self) -> list[int]:
        """Indices of the columns that take part in the computation."""
        return [j for j, v in enumerate(self.variables) if v is not None]

    def kind(self, j: int) -> str:
        v = self.variables[j]
        return "dropped" if v is None else v.kind


def _frame(data: Any, name: str) -> tuple[list[str], list[Any]]:
    """Column labels (as given) and columns: numpy arrays, or Series for pandas-only dtypes."""
    import pandas as pd

    if data is None:
        raise TypeError(f"{name} is None; pass a table (DataFrame or 2-D array) of samples")
    if isinstance(data, str | bytes):
        raise TypeError(f"{name} must be a table (DataFrame or 2-D array), got a string")
    mod = type(data).__module__
    if mod.startswith("polars"):
        data = data.to_pandas()
    if isinstance(data, pd.Series):
        data = data.to_frame()
    if isinstance(data, dict):
        data = pd.DataFrame(data)
    if isinstance(data, pd.DataFrame):
        cols = []
        for j in range(data.shape[1]):
            s = data.iloc[:, j]
            plain = isinstance(s.dtype, np.dtype) and s.dtype.kind in "biuf"
            cols.append(s.to_numpy() if plain else s)
        return list(data.columns), cols
    if mod.startswith("torch"):
        data = data.detach().cpu().numpy()
    # the library's one reader of raw arrays: masked values, sets, ragged rows are refused
    arr = _as_array(data, name)
    if arr.ndim == 0:
        raise ValueError(f"{name} must be a table (DataFrame or 2-D array), got a scalar")
    if arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    if arr.ndim != 2:
        raise ValueError(
            f"{name} has {arr.ndim} dimensions; pass a 2-D table (rows = samples, "
            "columns = variables)"
        )
    return [str(j) for j in range(arr.shape[1])], [arr[:, j] for j in range(arr.shape[1])]


def _missing(col: Any) -> np.ndarray:
    if isinstance(col, np.ndarray) and col.dtype.kind in "biu":
        return np.zeros(col.shape[0], bool)
    if isinstance(col, np.ndarray) and col.dtype.kind == "f":
        return np.isnan(col)
    import pandas as pd

    return np.asarray(pd.isna(col), dtype=bool)


def as_table(
    data: Any,
    *,
    name: str = "data",
    discrete: bool | None = None,
    nan: str = "error",
    columns: Sequence[str] | None = None,
    min_columns: int = 2,
) -> Table:
    """Validate a table for all-pairs estimation.

    Parameters
    ----------
    data
        pandas / polars DataFrame, dict of columns, or 2-D array (columns named ``"0"``,
        ``"1"``, ...).
    name
        Argument name used in messages.
    discrete
        As for :func:`infometer.mutual_info`: force every column to symbols / numbers.
    nan
        Missing values: ``"error"``, ``"drop_rows"`` or ``"drop_columns"`` (all-missing
        columns are always dropped with a warning).
    columns
        Use only these columns (labels).
    min_columns
        Fewest usable columns accepted.

    Returns
    -------
    Table
    """
    check_choice(nan, "nan", NAN_POLICIES)
    raw_labels, raw_cols = _frame(data, name)
    labels = [str(c) for c in raw_labels]
    dups = sorted(lab for lab, c in Counter(labels).items() if c > 1)
    if dups:
        raise ValueError(
            f"{name} has duplicated column names {dups}; every column needs its own name "
            "(rename them, e.g. df.columns = [...])"
        )
    if columns is not None:
        if isinstance(columns, str | bytes) or not isinstance(columns, Sequence):
            raise TypeError(f"columns must be a list of column names, got {columns!r}")
        want = [str(c) for c in columns]
        twice = sorted(c for c, k in Counter(want).items() if k > 1)
        if twice:
            raise ValueError(f"columns names {twice} more than once; name each column once")
        missing = [c for c in want if c not in labels]
        if missing:
            raise ValueError(f"columns: {name} has no column {missing}; it has {labels[:20]}")
        raw_cols = [raw_cols[labels.index(c)] for c in want]
        labels = want
    if len(labels) < min_columns:
        raise ValueError(
            f"{name} has {len(labels)} column(s); pairwise information needs at least "
            f"{min_columns} variables (columns)"
        )
    n_rows = len(raw_cols[0])
    if n_rows == 0:
        raise ValueError(f"{name} has no rows")
    dropped: dict[str, str] = {}
    warns: list[str] = []
    miss = {lab: _missing(col) for lab, col in zip(labels, raw_cols, strict=True)}
    partial = {lab: int(m.sum()) for lab, m in miss.items() if m.any() and not m.all()}
    for lab, m in miss.items():
        if m.all():
            dropped[lab] = "all values are missing (NaN)"
    rows = np.ones(n_rows, bool)
    if partial:
        where = ", ".join(f"{lab!r} ({c} rows)" for lab, c in list(partial.items())[:10])
        if nan == "error":
            raise ValueError(
                f"{name} has missing values in {len(partial)} column(s): {where}; pass "
                "nan='drop_rows' to use the complete rows, nan='drop_columns' to drop these "
                "columns, or impute them first"
            )
        if nan == "drop_columns":
            for lab in partial:
                dropped[lab] = f"{partial[lab]} missing values (nan='drop_columns')"
        else:
            for lab in partial:
                rows &= ~miss[lab]
            warns.append(
                f"nan='drop_rows': kept {int(rows.sum())} of {n_rows} rows (missing values "
                f"in {where})"
            )
    n = int(rows.sum())
    if n < 2:
        raise ValueError(f"{name} has {n} complete row(s); at least 2 are needed")
    variables: list[Variable | None] = []
    constant: list[str] = []
    for j, lab in enumerate(labels):
        if lab in dropped:
            variables.append(None)
            continue
        col = raw_cols[j]
        if not rows.all():
            col = col[rows] if isinstance(col, np.ndarray) else col[rows].reset_index(drop=True)
        v = as_variable(col, f"column {lab!r}", discrete=discrete)
        v = Variable(
            columns=v.columns,
            kinds=v.kinds,
            cardinalities=v.cardinalities,
            name=lab,
            labels=(lab,),
            diagnostics=v.diagnostics,
            symbols=v.symbols,
        )
        c = v.columns[0]
        if c.shape[0] and c[0] == c.min() == c.max():
            constant.append(lab)
        variables.append(v)
    if dropped:
        warns.append(
            "dropped column(s) "
            + ", ".join(f"{lab!r} ({why})" for lab, why in dropped.items())
            + "; their rows and columns of the matrix are NaN"
        )
    if constant:
        warns.append(
            f"constant column(s) {constant}: they carry no information; their MI with every "
            "other column is exactly 0"
        )
    usable = sum(v is not None for v in variables)
    if usable < min_columns:
        raise ValueError(
            f"{name} has {usable} usable column(s) after dropping {list(dropped)}; "
            f"pairwise information needs at least {min_columns}"
        )
    return Table(
        labels=labels, variables=variables, dropped=dropped, constant=constant, n=n, warnings=warns
    )
