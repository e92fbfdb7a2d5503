"""Input coercion, validation and kind detection: the only module that looks at raw user input.

Every public entry point turns its data arguments into :class:`Variable` objects here.
A :class:`Variable` is always 2-D (rows = samples, columns = dimensions of *one*
variable) and knows the kind of each column:

* ``"discrete"``: booleans, strings, categoricals, integers;
* ``"continuous"``: floating point numbers (even when they take few distinct values:
  that is recorded as a diagnostic, never silently turned into symbols).

A variable whose columns differ in kind is ``"mixed"``.  Multi-column discrete
variables are joint symbols; :attr:`Variable.codes` encodes them to integers once.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from infometer.core.seeding import Seed, as_generator
from infometer.core.validation import check_choice, check_float, check_int, check_stochastic_matrix

__all__ = [
    "Variable",
    "as_variable",
    "as_variables",
    "check_same_length",
    "encode_columns",
    "check_int",
    "check_float",
    "check_choice",
    "check_discrete",
    "scaled_moments",
    "InfometerWarning",
    "Ties",
    "find_ties",
    "cell_widths",
    "dequantize",
]

DISCRETE = "discrete"
CONTINUOUS = "continuous"
MIXED = "mixed"


class InfometerWarning(UserWarning):
    """Dubious-but-valid input or a result to take with care."""


# ------------------------------------------------------------------ standardising
def scaled_moments(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per column of ``a`` (n, d), or of a 1-D ``a``: ``(scale, mean, sd)`` such that
    ``(a * scale - mean) / sd`` is the column standardised.

    ``scale`` is a power of two near ``1 / max |column|`` and ``mean``, ``sd`` are the
    moments of the scaled column.  Multiplying by a power of two is exact, so for ordinary
    data the standardised values are bit for bit ``(a - a.mean()) / a.std()``; near the
    float64 limits (1e±300) the squares of ``np.std`` would overflow or underflow, and
    scaled they do not.  The column's own sd is ``sd / scale``, its mean ``mean / scale``
    (either may overflow to inf past ~1.8e308: use them only for reporting or logs, via
    ``log(sd) - log(scale)``).  A constant column has ``sd`` 0.
    """
    a = np.asarray(a, dtype=np.float64)
    top = np.max(np.abs(a), axis=0) if a.shape[0] else np.zeros(a.shape[1:])
    e = np.frexp(np.where(top > 0, top, 1.0))[1]
    scale = np.ldexp(1.0, -np.clip(e, -1000, 1000))  # stays a normal number
    with np.errstate(under="ignore"):  # values 1e-308 times below a column's largest
        u = a * scale
        return scale, u.mean(axis=0), u.std(axis=0)


# ------------------------------------------------------------ ties and rounding grids
#: A value within this many steps of its grid point lies on the grid (rounding in the last
#: place of a finer unit: thirds rounded to 0.01 are within 0.015 steps of 1/3).
GRID_TOLERANCE = 0.05
#: With at most this many distinct values a grid must hold them to float noise
#: (``GRID_EXACT`` steps): five values fit some grid within 5% by chance about once in 50
#: (the logs 0, 0.69, 1.39, 1.50, 2.08 fit steps of 0.116), with seven ~1e-5.
GRID_FEW_LEVELS = 6
GRID_EXACT = 1e-6
#: Share of the rows that must lie on a grid for the column to be called rounded to it.
GRID_MIN_SHARE = 0.99
#: Values closer than this (relative to the column's largest magnitude) are one value:
#: ``0.1 * 3`` and ``0.3`` differ by 1 ulp, not by a step.
NOISE = 2.0**-44


@dataclass(frozen=True)
class Ties:
    """Ties and rounding grid of one float column (found by :func:`find_ties`).

    Attributes
    ----------
    n
        Rows.
    levels
        Distinct values (values that differ by float noise only are one value).
    tied_share
        Share of the rows whose value occurs in another row too.
    top_share
        Share of the rows holding the most common value.
    step
        The grid step Δ when at least ``GRID_MIN_SHARE`` of the rows lie on a grid
        ``offset + k·Δ`` (within ``GRID_TOLERANCE`` steps), as rounded measurements do
        (0.1 for one decimal, 1 for whole numbers, 1/3 for thirds); ``None`` when the tied
        values lie on no common step.
    """

    n: int
    levels: int
    tied_share: float
    top_share: float
    step: float | None

    def describe(self, unit: float = 1.0) -> str:
        """The facts in words: ``94% of rows tied (35 distinct values among 150, on a grid
        of step 0.1)``; ``unit`` multiplies the step (a column's sd after standardising)."""
        grid = (
            f"on a grid of step {self.step * unit:.4g}"
            if self.step is not None
            else "on no common step"
        )
        return (
            f"{self.tied_share:.0%} of rows tied ({self.levels} distinct values among "
            f"{self.n}, {grid})"
        )


def _noise_gap(s: np.ndarray) -> float:
    """For sorted ``s``: the float noise of its values, ``NOISE`` times the largest
    magnitude; a value exceeding the one before by more starts a new distinct value — the
    one rule of :func:`_distinct` and :func:`_all_distinct`."""
    return NOISE * max(-float(s[0]), float(s[-1]))


def _new_values(s: np.ndarray) -> np.ndarray:
    """For sorted ``s``: whether each value after the first starts a new distinct value
    (:func:`_noise_gap`)."""
    return (s[1:] - s[:-1]) > _noise_gap(s)


def _distinct(col: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(distinct values, their counts)``, sorted, with values that differ by float noise
    merged into the first of them (:func:`_new_values`)."""
    s = np.sort(col)
    starts = np.flatnonzero(np.concatenate([[True], _new_values(s)]))
    counts = np.diff(np.append(starts, s.size))
    return s[starts], counts


def _all_distinct(col: np.ndarray) -> bool:
    """Whether no two values of ``col`` are one value by :func:`_distinct`'s rule (a few
    numpy calls: the reader asks it of every float column's first rows)."""
    s = np.sort(col)
    return s.size < 2 or bool((s[1:] - s[:-1]).min() > _noise_gap(s))


def _grid_fit(
    u: np.ndarray, c: np.ndarray, step0: float, anchor: float, tol: float
) -> tuple[float, int]:
    """``(step, rows on the grid)`` of the grid ``anchor + k·step`` near ``step0``, a row
    on the grid when its value is within ``tol`` steps of a grid point."""
    d = np.diff(u)
    r = d / step0
    k = np.rint(r)
    good = (k >= 1) & (np.abs(r - k) <= 0.25)
    if not good.any():
        return step0, 0
    step = float(d[good].sum() / k[good].sum())  # the gaps telescope: a precise step
    kk = np.rint((u - anchor) / step)
    near = np.abs((u - anchor) / step - kk) <= 0.25
    if np.count_nonzero(near) >= 2 and np.ptp(kk[near]) > 0:  # least squares: offset, step
        step, a = np.polyfit(kk[near], u[near], 1)
        step = float(step)
    else:
        a = anchor
    if not step > 0:
        return step0, 0
    z = (u - a) / step
    on = np.abs(z - np.rint(z)) <= tol
    return step, int(c[on].sum())


def _grid_step(u: np.ndarray, c: np.ndarray) -> float | None:
    """The largest step Δ such that ``GRID_MIN_SHARE`` of the rows lie on ``offset + k·Δ``.

    Candidates are the smallest distinct gaps between values and their halves, thirds and
    quarters (a grid whose neighbouring points never both occur); each is refined from
    the gaps near its multiples, which telescope (thirds rounded to 0.01 give 1/3, not
    0.33), then by least squares.  The largest grid that holds the rows wins: a value off
    a coarse grid (one 0.906 among hundredths) does not make the step 0.002.  Up to
    ``GRID_FEW_LEVELS`` distinct values a grid must hold them exactly (to ``GRID_EXACT``
    steps): few values fit a loose grid by chance.
    """
    m = u.size
    if m < 2:
        return None
    if m == 2:
        return float(u[1] - u[0])
    gaps = np.sort(np.diff(u))
    bases: list[float] = []
    for g in gaps:
        if not bases or g > bases[-1] * (1 + 2 * GRID_TOLERANCE):
            bases.append(float(g))
            if len(bases) == 5:
                break
    cands: list[float] = []
    for cand in sorted((b / q for b in bases for q in (1, 2, 3, 4)), reverse=True):
        if not cands or cand < cands[-1] * (1 - GRID_TOLERANCE):
            cands.append(cand)
    need = GRID_MIN_SHARE * c.sum()
    anchor = float(u[np.argmax(c)])  # the most common value is on the grid
    tol = GRID_TOLERANCE if m > GRID_FEW_LEVELS else GRID_EXACT
    for cand in cands:
        step, held = _grid_fit(u, c, cand, anchor, tol)
        if held >= need:
            return step
    return None


def find_ties(col: Any) -> Ties | None:
    """Ties and rounding grid of one float column, or ``None`` when no value repeats.

    The one detector of ties and rounding in infometer: the kNN preparation, the
    ``method="auto"`` rules and the warnings all read their facts from it.

    Examples
    --------
    >>> import numpy as np
    >>> t = find_ties(np.round(np.random.default_rng(0).normal(5, 1, 300), 1))
    >>> round(t.step, 6), t.levels < 300
    (0.1, True)
    >>> find_ties(np.random.default_rng(0).normal(size=300)) is None
    True
    """
    col = np.asarray(col, dtype=np.float64).ravel()
    n = col.size
    if n < 2:
        return None
    u, c = _distinct(col)
    if u.size == n:
        return None
    return Ties(
        n=n,
        levels=int(u.size),
        tied_share=float(c[c > 1].sum() / n),
        top_share=float(c.max() / n),
        step=_grid_step(u, c),
    )


def cell_widths(col: np.ndarray, ties: Ties) -> np.ndarray:
    """Width of the cell each row's value stands for (0: the value is left as it is).

    On a grid every value stands for ``[v - Δ/2, v + Δ/2]``; a value off the grid, or next
    to a nearer neighbour, for less: the width is the smallest of Δ and the gaps to the
    neighbouring distinct values, so cells never overlap.  Without a grid only tied values
    get a cell, as wide as the smaller gap to their neighbours (the cells of rounding in
    transformed units, such as the log of whole numbers); untied values keep width 0.
    """
    col = np.asarray(col, dtype=np.float64)
    u, c = _distinct(col)
    if u.size < 2:
        return np.zeros(col.size)
    d = np.diff(u)
    left = np.concatenate([[np.inf], d])
    right = np.concatenate([d, [np.inf]])
    w = np.minimum(left, right)
    if ties.step is not None:
        w = np.minimum(w, ties.step)
    else:
        w = np.where(c > 1, w, 0.0)
    # each row's value lies in the group that starts at the largest distinct value <= it
    return w[np.searchsorted(u, col, side="right") - 1]


def dequantize(col: np.ndarray, widths: np.ndarray, seed: Seed = 0) -> np.ndarray:
    """``col`` with each value spread uniformly over its cell ``[v - w/2, v + w/2]``
    (:func:`cell_widths`), drawn from ``seed`` (a ``numpy.random.Generator``'s next
    ``len(col)`` uniforms are used).

    Rounded data ``X = Δ·round(Y/Δ)`` become ``X' = X + U``, ``U ~ Uniform(-Δ/2, Δ/2)``
    independent of everything: ``X'`` has the histogram density ``P(X = v)/Δ`` on each
    cell, so ``h(X') = H(X) + log Δ`` and, since ``X`` is a function of ``X'``,
    ``I(X'; Y') = I(X; Y)`` (docs/knn.md, "Ties and rounding").

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([1.0, 1.0, 1.1, 1.2, 1.2])
    >>> y = dequantize(x, cell_widths(x, find_ties(x)), seed=0)
    >>> bool(np.all(np.abs(y - x) <= 0.05 + 1e-12)), np.unique(y).size
    (True, 5)
    """
    return col + widths * (as_generator(seed).random(col.size) - 0.5)


# ------------------------------------------------------------------ the variable
# (check_int, check_float and check_choice live in infometer.core.validation; re-exported here)
@dataclass(frozen=True)
class Variable:
    """A validated variable: ``values`` is 2-D, one kind per column.

    Attributes
    ----------
    values
        2-D array (n, d).  Float64 for continuous-only variables; for discrete or
        mixed ones each column keeps its own dtype inside an object-free encoding,
        see :attr:`columns`.
    columns
        Tuple of 1-D arrays, one per dimension (float64 for continuous columns,
        int64 codes ``0..K-1`` for discrete columns).
    kinds
        Kind of each column: ``"discrete"`` or ``"continuous"``.
    cardinalities
        Number of distinct symbols of each discrete column (``None`` for continuous).
    name
        The argument name used in error messages (``"x"``, ``"y"``, ...).
    labels
        Column labels, when the input had them (pandas / polars), else ``None``.
    diagnostics
        Facts found while validating (e.g. floats with few distinct values).
    symbols
        For each discrete column, the original symbol of each code (``None`` when the
        codes are the symbols themselves, i.e. small non-negative integers).
    """

    columns: tuple[np.ndarray, ...]
    kinds: tuple[str, ...]
    cardinalities: tuple[int | None, ...]
    name: str = "x"
    labels: tuple[str, ...] | None = None
    diagnostics: dict[str, Any] = field(default_factory=dict)
    symbols: tuple[np.ndarray | None, ...] | None = None

    @property
    def n(self) -> int:
        """Number of samples (rows)."""
        return int(self.columns[0].shape[0])

    @property
    def d(self) -> int:
        """Number of dimensions (columns)."""
        return len(self.columns)

    @property
    def kind(self) -> str:
        """``"discrete"``, ``"continuous"`` or ``"mixed"``."""
        if len(self.kinds) == 1:
            return self.kinds[0]
        ks = set(self.kinds)
        return ks.pop() if len(ks) == 1 else MIXED

    @property
    def is_discrete(self) -> bool:
        return self.kind == DISCRETE

    @property
    def is_continuous(self) -> bool:
        return self.kind == CONTINUOUS

    @cached_property
    def values(self) -> np.ndarray:
        """The data as one float64 (n, d) array (discrete columns as their integer codes)."""
        return np.column_stack([c.astype(np.float64, copy=False) for c in self.columns])

    @cached_property
    def codes(self) -> np.ndarray:
        """Joint symbol of each row as int64 codes ``0..K-1`` (discrete columns only)."""
        disc = [c for c, k in zip(self.columns, self.kinds, strict=True) if k == DISCRETE]
        if not disc:
            raise ValueError(f"{self.name} has no discrete columns to encode as symbols")
        cards = [c for c, k in zip(self.cardinalities, self.kinds, strict=True) if k == DISCRETE]
        return encode_columns(disc, cards)

    @cached_property
    def ties(self) -> dict[int, Ties]:
        """Ties and rounding grid of each continuous column that has ties
        (:func:`find_ties`), by column index; empty for tie-free data."""
        out = {}
        for j, (c, k) in enumerate(zip(self.columns, self.kinds, strict=True)):
            if k == CONTINUOUS:
                t = find_ties(c)
                if t is not None:
                    out[j] = t
        return out

    def select(self, idx: np.ndarray) -> Variable:
        """Rows ``idx`` of this variable (codes and cardinalities are kept)."""
        return Variable(
            columns=tuple(c[idx] for c in self.columns),
            kinds=self.kinds,
            cardinalities=self.cardinalities,
            name=self.name,
            labels=self.labels,
            diagnostics=self.diagnostics,
            symbols=self.symbols,
        )

    def decoded(self, j: int) -> np.ndarray:
        """Column ``j`` with discrete codes mapped back to the original symbols."""
        sym = None if self.symbols is None else self.symbols[j]
        return self.columns[j] if sym is None else sym[self.columns[j]]

    def join(self, other: Variable, name: str | None = None) -> Variable:
        """The joint variable (self, other): columns side by side."""
        return Variable(
            columns=self.columns + other.columns,
            kinds=self.kinds + other.kinds,
            cardinalities=self.cardinalities + other.cardinalities,
            name=name or f"({self.name},{other.name})",
            labels=None,
            diagnostics={},
            symbols=(self.symbols or (None,) * self.d) + (other.symbols or (None,) * other.d),
        )

    @classmethod
    def from_codes(
        cls, codes: np.ndarray, name: str = "x", cardinality: int | None = None
    ) -> Variable:
        """A one-column discrete variable from non-negative integer codes (no checks)."""
        codes = np.asarray(codes, dtype=np.int64)
        k = int(codes.max()) + 1 if cardinality is None and codes.size else cardinality
        return cls(columns=(codes,), kinds=(DISCRETE,), cardinalities=(k,), name=name)


# ---------------------------------------------------------------- encoding
_MAX_DIRECT_RADIX = 1 << 22


def _factorize_symbols(col: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes 0..K-1 and the sorted symbols for an arbitrary 1-D array (hash based, O(n))."""
    import pandas as pd

    codes, uniques = pd.factorize(col, sort=True)
    return codes.astype(np.int64, copy=False), np.asarray(uniques)


def _factorize(col: np.ndarray) -> tuple[np.ndarray, int]:
    """Codes 0..K-1 for an arbitrary 1-D array and the number of distinct values."""
    codes, uniques = _factorize_symbols(col)
    return codes, len(uniques)


def encode_columns(
    cols: Sequence[np.ndarray], cards: Sequence[int | None] | None = None
) -> np.ndarray:
    """Encode several integer-code columns into one joint code per row.

    Mixed radix (``c0 + K0*(c1 + K1*...)``) while the product of cardinalities fits in
    int64; when it would overflow, the partial code is re-factorized (hashing) so
    the radix stays bounded by ``n``.  Memory is O(n); codes are dense only after a
    re-factorization, so callers must not assume ``max(code) < n``.
    """
    if cards is None:
        cards = [None] * len(cols)
    code = np.asarray(cols[0], dtype=np.int64)
    radix = int(cards[0]) if cards[0] is not None else int(code.max()) + 1
    for col, k in zip(cols[1:], cards[1:], strict=True):
        k = int(k) if k is not None else int(col.max()) + 1
        if radix * k >= (1 << 62):
            code, radix = _factorize(code)
            if radix * k >= (1 << 62):  # the column's own codes are sparse: densify them too
                col, k = _factorize(np.asarray(col, dtype=np.int64))
        code = code + radix * np.asarray(col, dtype=np.int64)
        radix *= k
    return code


# ------------------------------------------------------------ raw -> columns
def _to_numpy_frame(
    data: Any, name: str = "data"
) -> tuple[list[np.ndarray], tuple[str, ...] | None, list[bool]] | None:
    """Split pandas / polars / torch / array-likes into columns.

    Returns (columns, labels, categorical flags) or None if ``data`` is not a frame type.
    """
    mod = type(data).__module__
    if mod.startswith("pandas"):
        import pandas as pd

        if isinstance(data, pd.Series):
            data = data.to_frame()
        if isinstance(data, pd.DataFrame):
            dup = data.columns[data.columns.duplicated()].unique().tolist()
            if dup:
                # data[c] would be a DataFrame for a repeated name (AttributeError on .dtype)
                raise ValueError(
                    f"{name} has repeated column names {dup}; give each column its own name"
                )
            cols, cats = [], []
            for c in data.columns:
                s = data[c]
                is_cat = isinstance(s.dtype, pd.CategoricalDtype)
                if is_cat:
                    codes = np.asarray(s.cat.codes.to_numpy(), dtype=np.int64)
                    if (codes < 0).any():
                        raise ValueError(
                            f"column {c!r} has missing values (row {int(np.argmax(codes < 0))})"
                        )
                    # the labels, not pandas' codes: two samples (KL's p and q) with other
                    # category sets must still share one alphabet
                    arr = np.asarray(s.cat.categories.to_numpy(dtype=object))[codes]
                elif pd.api.types.is_extension_array_dtype(s.dtype):
                    if s.isna().any():
                        row = int(np.argmax(s.isna().to_numpy()))
                        raise ValueError(
                            f"column {c!r} has a missing value (NaN/None) at row {row}"
                        )
                    arr = s.to_numpy(dtype=object if s.dtype == "string" else None)
                else:
                    arr = s.to_numpy()
                cols.append(arr)
                cats.append(is_cat)
            return cols, tuple(str(c) for c in data.columns), cats
    if mod.startswith("polars"):
        import polars as pl

        if isinstance(data, pl.Series):
            data = data.to_frame()
        if isinstance(data, pl.DataFrame):
            cols, cats = [], []
            for c in data.columns:
                s = data[c]
                if s.null_count():
                    row = int(np.argmax(s.is_null().to_numpy()))
                    raise ValueError(f"column {c!r} has a missing value (null) at row {row}")
                is_cat = s.dtype in (pl.Categorical, pl.Enum)
                arr = s.cast(pl.Utf8).to_numpy() if is_cat else s.to_numpy()
                cols.append(np.asarray(arr))
                cats.append(is_cat)
            return cols, tuple(data.columns), cats
    if mod.startswith("torch"):
        arr = data.detach().cpu().numpy()
        arr = arr.reshape(-1, 1) if arr.ndim == 1 else arr
        return (
            None
            if arr.ndim != 2
            else ([arr[:, j] for j in range(arr.shape[1])], None, [False] * arr.shape[1])
        )
    return None


def _as_array(data: Any, name: str) -> np.ndarray:
    if isinstance(data, str | bytes):
        raise TypeError(
            f"{name} must be array-like (list, numpy array, Series, DataFrame), got a string"
        )
    if isinstance(data, dict | set):
        raise TypeError(f"{name} must be array-like, got {type(data).__name__}")
    if isinstance(data, np.ma.MaskedArray):  # its mask would be dropped silently below
        masked = np.ma.getmaskarray(data)
        if masked.any():
            first = [int(i) for i in np.argwhere(masked)[0]]
            where = f"row {first[0]}" + (f", column {first[1]}" if len(first) == 2 else "")
            raise ValueError(
                f"{name} is a masked array with {int(masked.sum())} masked value(s), the "
                f"first at {where}; drop those rows or fill them before estimating"
            )
        return np.ma.getdata(data)
    if isinstance(data, np.ndarray):
        return data
    try:
        arr = np.asarray(data)
    except ValueError as exc:
        raise ValueError(
            f"{name} is ragged: its rows have different lengths; pass a rectangular array"
        ) from exc
    except TypeError as exc:
        raise TypeError(f"{name} could not be read as an array: {exc}") from exc
    if (
        arr.dtype == object
        and arr.ndim >= 1
        and arr.size
        and any(isinstance(v, list | tuple | np.ndarray) for v in arr.ravel()[:1000])
    ):
        raise ValueError(
            f"{name} is ragged: its rows have different lengths; pass a rectangular array"
        )
    return arr


def _check_stray_text(sym: np.ndarray, codes: np.ndarray, where: str) -> None:
    """Refuse a text column that is numbers except for a few stray values (``'?'``, ``'NA'``).

    Read from a CSV, such a column arrives as strings and would become hundreds of discrete
    symbols without a word.  Raised when at least two distinct values and at least half of
    them read as finite numbers while others do not; ``discrete=True`` (symbols on purpose)
    skips the check.
    """
    if sym.size < 3:
        return
    import pandas as pd

    num = pd.to_numeric(pd.Series(sym, dtype=object), errors="coerce").to_numpy(
        dtype=np.float64, na_value=np.nan
    )
    ok = np.isfinite(num)
    n_ok = int(ok.sum())
    if n_ok < 2 or n_ok == sym.size or n_ok < 0.5 * sym.size:
        return
    bad = np.flatnonzero(~ok)
    rows = np.flatnonzero(np.isin(codes, bad))
    shown = ", ".join(repr(str(v)) for v in sym[bad][:5]) + (", ..." if bad.size > 5 else "")
    raise ValueError(
        f"{where} is text, but {n_ok} of its {sym.size} distinct values are numbers and "
        f"{bad.size} {'is' if bad.size == 1 else 'are'} not ({shown}: {rows.size} rows, the "
        f"first at row {int(rows[0])}). "
        "Fix or drop those rows (e.g. pandas.read_csv(..., na_values=['?']) then dropna()), "
        "or pass discrete=True to treat every value as a symbol"
    )


def _column_kind(
    col: np.ndarray,
    name: str,
    j: int,
    categorical: bool,
    check_text: bool = True,
    label: str | None = None,
) -> tuple[np.ndarray, str, int | None, np.ndarray | None]:
    """Validate one column; return (encoded column, kind, cardinality, symbols).

    ``check_text``: refuse text columns of numbers with stray values (see
    :func:`_check_stray_text`); off when the caller asked for symbols (``discrete=True``).
    """
    where = name if j < 0 else f"{name}[:, {j}]"
    if label is not None:
        where = f"{name} column {label!r}"
    if categorical:
        codes, sym = _factorize_symbols(col)
        return codes, DISCRETE, len(sym), sym
    kind_char = col.dtype.kind
    if kind_char == "b":
        return col.astype(np.int64), DISCRETE, 2, np.array([False, True])
    if kind_char in "iu":
        c = col.astype(np.int64, copy=False)
        # one pass: read as unsigned, a negative value is >= 2**63, so a maximum below
        # 2**22 means every value is in [0, 2**22)
        hi = int(c.view(np.uint64).max()) if c.size else 0
        if hi < _MAX_DIRECT_RADIX:
            # small non-negative integers are their own codes: no hashing needed
            return c, DISCRETE, hi + 1, None
        codes, sym = _factorize_symbols(c)
        return codes, DISCRETE, len(sym), sym
    if kind_char == "f":
        c = col.astype(np.float64, copy=False)
        if not np.isfinite(c).all():
            row = int(np.argmax(~np.isfinite(c)))
            what = "NaN" if np.isnan(c[row]) else "inf"
            raise ValueError(
                f"{where} contains {what} at row {row}; remove or impute missing values first"
            )
        return c, CONTINUOUS, None, None
    if kind_char == "c":
        raise TypeError(f"{where} is complex-valued; pass real numbers")
    if kind_char in "US":
        codes, sym = _factorize_symbols(col.astype(object))
        if check_text:
            _check_stray_text(sym, codes, where)
        return codes, DISCRETE, len(sym), sym
    if kind_char == "O":
        types = {type(v) for v in col}
        if any(v is None for v in col):
            row = int(np.argmax([v is None for v in col]))
            raise ValueError(f"{where} contains None at row {row}")
        if types <= {str} or types <= {bytes}:
            codes, sym = _factorize_symbols(col)
            if check_text and types <= {str}:
                _check_stray_text(sym, codes, where)
            return codes, DISCRETE, len(sym), sym
        if types <= {bool, np.bool_}:
            return col.astype(np.int64), DISCRETE, 2, np.array([False, True])
        if all(issubclass(t, numbers.Number) for t in types):
            num = np.asarray(col.tolist())
            if num.dtype == object:
                raise TypeError(f"{where} mixes numeric types that cannot share one array")
            return _column_kind(num, name, j, False, check_text)
        names = sorted(t.__name__ for t in types)
        raise TypeError(
            f"{where} is an object array of mixed types ({', '.join(names)}); "
            "pass one type per column (numbers, strings or booleans)"
        )
    if kind_char in "mM":
        nat = np.isnat(col)
        if nat.any():
            row = int(np.argmax(nat))
            raise ValueError(
                f"{where} contains NaT (a missing time) at row {row}; remove or impute "
                "missing values first"
            )
        c = (
            col.astype("datetime64[ns]").astype(np.int64)
            if kind_char == "M"
            else col.astype(np.int64)
        )
        return _column_kind(c.astype(np.float64), name, j, False)
    raise TypeError(f"{where} has unsupported dtype {col.dtype}")


def check_discrete(discrete: Any) -> bool | None:
    """``discrete=`` must be ``True``, ``False`` or ``None`` (``1`` or ``"yes"`` are refused,
    not read as truthy: a typo must not silently change how data are treated)."""
    if discrete is None or isinstance(discrete, bool | np.bool_):
        return None if discrete is None else bool(discrete)
    raise TypeError(
        f"discrete must be True, False or None, got {type(discrete).__name__} {discrete!r}"
    )


def _as_numbers(c: np.ndarray, categorical: bool, where: str) -> np.ndarray:
    """A discrete column as float64 for ``discrete=False``: integers, booleans, or a
    categorical whose categories are numbers; anything else is an error."""
    if c.dtype.kind in "iub":
        return np.asarray(c, dtype=np.float64)
    if categorical:
        try:
            num = np.asarray(c, dtype=np.float64)
        except (TypeError, ValueError):
            num = None
        if num is not None and np.all(np.isfinite(num)):
            return num
        example = next(iter(c[:1]), None)
        raise ValueError(
            f"{where} is categorical with non-numeric categories (e.g. {example!r}); "
            "discrete=False needs numbers: leave discrete=None to treat them as symbols"
        )
    raise ValueError(f"{where} has non-numeric symbols; discrete=False needs numbers")


def _label(labels: tuple[str, ...] | None, j: int, multi: bool) -> str | None:
    """The column label to name in messages (not the "0" of an unnamed Series)."""
    if labels is None or (not multi and labels[j] == "0"):
        return None
    return labels[j]


def as_variable(
    data: Any,
    name: str = "x",
    *,
    discrete: bool | None = None,
    min_samples: int = 1,
) -> Variable:
    """Validate ``data`` and return a :class:`Variable`.

    Parameters
    ----------
    data
        numpy array, list, pandas Series/DataFrame, polars Series/DataFrame or torch tensor.
        1-D is one variable; 2-D has samples in rows and dimensions in columns.
    name
        Argument name used in error messages.
    discrete
        Force every column to be treated as discrete symbols (``True``) or as
        continuous numbers (``False``).  ``None`` infers per column from the dtype.
    min_samples
        Smallest acceptable number of rows.

    Raises
    ------
    TypeError, ValueError
        With a message that names ``name`` and the problem.
    """
    discrete = check_discrete(discrete)
    if data is None:
        raise TypeError(f"{name} is None; pass an array of samples")
    if isinstance(data, Variable):
        return data
    fast = _float_variable(data, name, discrete, min_samples)
    if fast is not None:
        return fast
    framed = _to_numpy_frame(data, name)
    if framed is not None:
        raw_cols, labels, cats = framed
        if not raw_cols:
            raise ValueError(f"{name} is empty: it has no columns")
    else:
        arr = _as_array(data, name)
        if arr.ndim == 0:
            raise ValueError(f"{name} must be array-like with at least one sample, got a scalar")
        if arr.ndim > 2:
            raise ValueError(
                f"{name} has {arr.ndim} dimensions; pass 1-D (one variable) or 2-D "
                "(rows = samples, columns = dimensions); reshape e.g. x.reshape(len(x), -1)"
            )
        if arr.ndim == 1:
            arr = arr.reshape(-1, 1)
        if arr.shape[1] == 0:
            raise ValueError(f"{name} is empty: it has no columns")
        raw_cols = [arr[:, j] for j in range(arr.shape[1])]
        labels, cats = None, [False] * arr.shape[1]
    n = len(raw_cols[0])
    if n == 0:
        raise ValueError(f"{name} is empty: it has no samples")
    if n < min_samples:
        raise ValueError(f"{name} has {n} samples; at least {min_samples} are needed")
    cols, kinds, cards, syms, diags = [], [], [], [], {}
    ties: dict[int, Ties] = {}  # the detector's facts, kept on the variable (n <= SAMPLE)
    deferred = False  # some column's detector left to the first use of Variable.ties
    multi = len(raw_cols) > 1
    for j, (c, cat) in enumerate(zip(raw_cols, cats, strict=True)):
        c = np.asarray(c)
        if c.ndim != 1:
            raise ValueError(f"{name}[:, {j}] is not one-dimensional")
        enc, kind, card, sym = _column_kind(
            c,
            name,
            j if multi else -1,
            cat,
            check_text=discrete is not True,
            label=_label(labels, j, multi),
        )
        if discrete is True and kind == CONTINUOUS:
            enc, sym = _factorize_symbols(enc)
            card, kind = len(sym), DISCRETE
        elif discrete is False and kind == DISCRETE:
            where = f"{name}[:, {j}]" if multi else name
            lab = _label(labels, j, multi)
            enc = _as_numbers(c, cat, where if lab is None else f"{name} column {lab!r}")
            kind, card, sym = CONTINUOUS, None, None
        cols.append(enc)
        kinds.append(kind)
        cards.append(card)
        syms.append(sym)
        if kind == CONTINUOUS:
            deferred |= _note_continuous(j, enc, n, ties, diags)
        if c.dtype.kind in "mM":  # dates and durations: read as numbers, and said so
            diags.setdefault("time_columns", []).append(j)
    return _variable(
        tuple(cols),
        tuple(kinds),
        tuple(cards),
        tuple(syms),
        name,
        labels,
        diags,
        discrete,
        ties if n <= _TIES_SAMPLE and not deferred else None,
    )


def _variable(
    cols: tuple,
    kinds: tuple,
    cards: tuple,
    syms: tuple,
    name: str,
    labels: Any,
    diags: dict[str, Any],
    discrete: bool | None,
    ties: dict[int, Ties] | None,
) -> Variable:
    """The :class:`Variable` the reader found, with the tie detector's facts kept when it
    ran on every continuous column (``ties`` not None: no second look at first use)."""
    if discrete is not None:  # a stated choice: auto rules respect it
        diags["discrete_override"] = bool(discrete)
    var = Variable(
        columns=cols,
        kinds=kinds,
        cardinalities=cards,
        name=name,
        labels=labels,
        diagnostics=diags,
        symbols=syms,
    )
    if ties is not None:
        var.__dict__["ties"] = ties
    return var


def _note_continuous(
    j: int, col: np.ndarray, n: int, ties: dict[int, Ties], diags: dict[str, Any]
) -> bool:
    """Record the facts of continuous column ``j`` of ``n`` rows: the tie detector's (in
    ``ties``) and whether it takes few distinct values (between 2 and "few", in
    ``diags``; a constant column is said as constant by the estimators, not as "few
    values").  Returns whether the detector was deferred: the column's first rows already
    hold more than "few" distinct values, so it waits for :attr:`Variable.ties` (a
    Gaussian fit never asks)."""
    few = max(20, int(0.05 * min(n, _TIES_SAMPLE)))  # "few distinct values": up to this
    deferred = False
    if n > _TIES_SAMPLE:
        nu = len(np.unique(col[:_TIES_SAMPLE]))
    elif n > 2 * few and _all_distinct(col[: few + 1]):
        nu, deferred = n, True
    else:
        t = find_ties(col)
        if t is not None:
            ties[j] = t
        nu = n if t is None else t.levels
    if n >= 20 and 1 < nu <= few and nu < n:
        diags.setdefault("few_distinct_float_columns", []).append(j)
    return deferred


def _float_variable(
    data: Any, name: str, discrete: bool | None, min_samples: int
) -> Variable | None:
    """:func:`as_variable` of a float numpy array (the common case) with one finiteness
    check for all columns; ``None`` when ``data`` is not one, or is empty, too short or
    not finite, for the general path to read or to say what is wrong."""
    if (
        type(data) is not np.ndarray
        or data.dtype.kind != "f"
        or discrete is True
        or not 1 <= data.ndim <= 2
        or data.shape[0] < max(1, min_samples)
        or data.size == 0
    ):
        return None
    a = data.astype(np.float64, copy=False)
    if not np.isfinite(a).all():
        return None
    n, d = a.shape[0], (1 if a.ndim == 1 else a.shape[1])
    cols = (a,) if a.ndim == 1 else tuple(a[:, j] for j in range(d))
    diags: dict[str, Any] = {}
    ties: dict[int, Ties] = {}
    deferred = False
    for j, c in enumerate(cols):
        deferred |= _note_continuous(j, c, n, ties, diags)
    return _variable(
        cols,
        (CONTINUOUS,) * d,
        (None,) * d,
        (None,) * d,
        name,
        None,
        diags,
        discrete,
        ties if n <= _TIES_SAMPLE and not deferred else None,
    )


def _matrix_variable(a: np.ndarray, name: str) -> Variable:
    """A checked, finite float64 matrix (an image) as one continuous variable of its
    columns, without the reader's per-column facts: a column of an image is no variable of
    its own, and its ties are not the image's (:attr:`Variable.ties` still finds them on
    first use); :attr:`Variable.values` is the matrix itself, not a copy."""
    d = a.shape[1]
    cols = tuple(a[:, j] for j in range(d))
    var = _variable(cols, (CONTINUOUS,) * d, (None,) * d, (None,) * d, name, None, {}, False, None)
    var.__dict__["values"] = a
    return var


#: Up to this many rows ``as_variable`` runs the tie detector on every float column (one
#: sort each) unless its first rows already hold more than "few" distinct values; above,
#: it counts distinct values on this many rows.  Otherwise :attr:`Variable.ties` runs the
#: detector on first use.
_TIES_SAMPLE = 100_000


def check_same_length(*variables: Variable) -> int:
    """Raise if the variables do not all have the same number of rows; return it."""
    first = variables[0]
    for v in variables[1:]:
        if v.n != first.n:
            raise ValueError(
                f"{v.name} has {v.n} rows but {first.name} has {first.n}; "
                "paired samples must have the same length"
            )
    return first.n


def as_variables(
    named: dict[str, Any],
    *,
    discrete: bool | None = None,
    paired: bool = True,
) -> dict[str, Variable]:
    """Validate several arguments at once; check lengths when ``paired``."""
    discrete = check_discrete(discrete)
    out = {k: as_variable(v, k, discrete=discrete) for k, v in named.items()}
    if paired and len(out) > 1:
        check_same_length(*out.values())
    return out


# ------------------------------------------------------- classifier outputs
def check_probabilities(v: Variable, *, atol: float = 1e-6) -> np.ndarray:
    """Rows of ``v`` as probability vectors: (n, C) float, non-negative, rows summing to 1
    within ``atol`` (:func:`infometer.core.validation.check_stochastic_matrix`); the rows are
    returned as given (not renormalised).

    Raises ``ValueError`` naming ``v.name`` and the first offending row.
    """
    if not v.is_continuous:
        raise TypeError(
            f"{v.name} must hold probabilities as floats (one column per class), got {v.kind} data"
        )
    if v.d < 2:
        raise ValueError(f"{v.name} has {v.d} column; probabilities need one column per class")

    p = v.values
    what = "(one row per sample; pass probabilities, or logits with from_logits=True)"
    check_stochastic_matrix(p, v.name, atol=atol, what=what)
    return p


def check_labels(v: Variable, n_classes: int) -> np.ndarray:
    """Class indices ``0..n_classes-1`` of a one-column variable, as int64."""
    if v.d != 1:
        raise ValueError(f"{v.name} must be one column of class indices, got {v.d} columns")
    if not (v.is_discrete and (v.symbols is None or v.symbols[0] is None)):
        col = np.asarray(v.decoded(0))
        if col.dtype.kind == "f":
            raise TypeError(f"{v.name} must be integer class indices, got floats; cast to int")
        if col.dtype.kind not in "iu":
            raise TypeError(
                f"{v.name} must be integer class indices 0..{n_classes - 1}, got {col.dtype} values"
            )
        row = int(np.argmax((col < 0) | (col >= n_classes)))
        raise ValueError(
            f"{v.name} has label {int(col[row])} at row {row}, outside the class range "
            f"0..{n_classes - 1}"
        )
    lab = v.columns[0]
    if int(lab.max()) >= n_classes:
        row = int(np.argmax(lab >= n_classes))
        raise ValueError(
            f"{v.name} has label {int(lab[row])} at row {row}, outside the class range "
            f"0..{n_classes - 1} given by the {n_classes} probability columns"
        )
    return lab
