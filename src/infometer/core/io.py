"""File readers for the CLI and for users: tables (CSV/TSV, Parquet, NumPy .npy, JSONL).

Readers never unpickle: ``.npy`` files are loaded with ``allow_pickle=False``.
Errors are :class:`FileReadError` (a ``ValueError``) with one readable line.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["FileReadError", "read_table", "select_columns", "read_jsonl", "TABLE_FORMATS"]

TABLE_FORMATS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".txt": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".npy": "npy",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
}


class FileReadError(ValueError):
    """A file that does not exist, cannot be parsed, or lacks the requested columns."""


def _format_of(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in (".gz", ".bz2", ".xz", ".zst"):
        suffixes = suffixes[:-1]
    fmt = TABLE_FORMATS.get(suffixes[-1] if suffixes else "")
    if fmt is None:
        known = ", ".join(sorted(TABLE_FORMATS))
        raise FileReadError(f"{path}: unknown table format {path.suffix!r}; known: {known}")
    return fmt


def _check_delimited(p: Path, sep: str) -> None:
    """Refuse what pandas would silently repair in a CSV/TSV: a header naming a column twice
    (renamed ``a.1``) and a row with fewer fields than the header (padded with NaN, or
    shifted).  One pass with the csv module; blank lines are skipped, as pandas does."""
    import csv
    from collections import Counter

    with open(p, newline="", encoding="utf-8", errors="replace") as f:
        rows = csv.reader(f, delimiter=sep)
        header = next(rows, None)
        if header is None:
            return
        twice = sorted(c for c, k in Counter(h.strip() for h in header).items() if k > 1)
        if twice:
            raise FileReadError(
                f"{p}: the header names column(s) {twice} more than once; every column needs "
                "its own name"
            )
        width = len(header)
        for row in rows:
            if row and len(row) != width:
                raise FileReadError(
                    f"{p}: line {rows.line_num} has {len(row)} field(s) but the header has "
                    f"{width}; fix the row (a missing value is an empty field: a,,c)"
                )


def read_table(path: str | Path) -> pd.DataFrame:
    """Read a table file into a DataFrame (``.npy`` columns are named ``"0", "1", ...``).

    ``"-"`` reads standard input: CSV, TSV (a tab in the header and no comma) or JSON lines
    (a first line starting with ``{``).

    Examples
    --------
    >>> import io, sys
    >>> stdin, sys.stdin = sys.stdin, io.StringIO("a,b\\n1,2\\n3,4\\n")
    >>> read_table("-").shape
    (2, 2)
    >>> sys.stdin = stdin
    """
    if str(path) == "-":
        return _read_stdin()
    p = Path(path)
    if not p.exists():
        raise FileReadError(f"{p}: no such file")
    if p.is_dir():
        raise FileReadError(f"{p}: is a directory, not a file")
    fmt = _format_of(p)
    try:
        if fmt in ("csv", "tsv"):
            sep = "," if fmt == "csv" else "\t"
            _check_delimited(p, sep)
            df = pd.read_csv(p, sep=sep)
        elif fmt == "parquet":
            df = pd.read_parquet(p)
        elif fmt == "jsonl":
            df = pd.read_json(p, lines=True)
        else:
            arr = np.load(p, allow_pickle=False)
            if arr.ndim == 1:
                arr = arr.reshape(-1, 1)
            if arr.ndim != 2:
                raise FileReadError(f"{p}: .npy array has {arr.ndim} dimensions; expected 1 or 2")
            df = pd.DataFrame(arr, columns=[str(j) for j in range(arr.shape[1])])
    except FileReadError:
        raise
    except ImportError as exc:
        from infometer.core._extras import install_hint

        # pandas names no module when no Parquet engine is found: pyarrow is the one we use
        pkg = (exc.name or "").split(".")[0] or "pyarrow"
        raise FileReadError(
            f"{p}: reading {fmt} needs {pkg}, which is not installed: {install_hint(pkg)}"
        ) from exc
    except Exception as exc:  # parsers raise many types; report one line
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise FileReadError(f"{p}: cannot read as {fmt}: {msg}") from exc
    if df.shape[0] == 0 or df.shape[1] == 0:
        raise FileReadError(f"{p}: the table is empty")
    df.columns = [str(c) for c in df.columns]
    return _dates(df)


def _read_stdin() -> pd.DataFrame:
    """A table from standard input (``-`` on the command line)."""
    import io
    import sys

    text = sys.stdin.read()
    if not text.strip():
        raise FileReadError("-: standard input is empty (pipe a CSV, TSV or JSONL table in)")
    first = text.lstrip().splitlines()[0]
    try:
        if first.startswith("{"):
            fmt, df = "jsonl", pd.read_json(io.StringIO(text), lines=True)
        elif "\t" in first and "," not in first:
            fmt, df = "tsv", pd.read_csv(io.StringIO(text), sep="\t")
        else:
            fmt, df = "csv", pd.read_csv(io.StringIO(text))
    except Exception as exc:  # parsers raise many types; report one line
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise FileReadError(f"-: cannot read standard input as a table: {msg}") from exc
    if df.shape[0] == 0 or df.shape[1] == 0:
        raise FileReadError(f"-: the table on standard input ({fmt}) is empty")
    df.columns = [str(c) for c in df.columns]
    return _dates(df)


#: An ISO 8601 date or date-time (2024-03-01, 2024-03-01T12:30:00Z, 2024-03-01 12:30).
_ISO_DATE = r"^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?(?:Z|[+-]\d{2}:?\d{2})?$"


def _dates(df: pd.DataFrame) -> pd.DataFrame:
    """Text columns whose every value is an ISO 8601 date or date-time become datetime
    columns, as a Parquet file stores them: the estimators then read them as times (and
    say so), not as one distinct symbol per row."""
    for c in df.columns:
        col = df[c]
        if not (col.dtype == object or pd.api.types.is_string_dtype(col)) or col.isna().any():
            continue
        text = col.astype(str)
        if text.str.fullmatch(_ISO_DATE).all():
            try:
                df[c] = pd.to_datetime(text, format="ISO8601", utc=text.str[-1].eq("Z").any())
            except (ValueError, TypeError):  # a malformed date: leave the text as it is
                continue
            if getattr(df[c].dt, "tz", None) is not None:
                df[c] = df[c].dt.tz_convert("UTC").dt.tz_localize(None)
    return df


def select_columns(
    df: pd.DataFrame, spec: str | None, what: str, path: str | Path = ""
) -> pd.DataFrame:
    """Columns named in a comma-separated ``spec`` (all columns when ``spec`` is None)."""
    if spec is None or spec.strip() == "":
        return df
    names = [s.strip() for s in spec.split(",") if s.strip()]
    missing = [c for c in names if c not in df.columns]
    if missing:
        real = ", ".join(df.columns[:30]) + (" ..." if df.shape[1] > 30 else "")
        where = f"{path}: " if path else ""
        raise FileReadError(
            f"{where}{what}: no column {', '.join(map(repr, missing))}; columns are: {real}"
        )
    return df[names]


def read_jsonl(path: str | Path) -> list[tuple[int, object]]:
    """``(line number, value)`` for every non-blank line of a JSON-lines file.

    A line that is not valid JSON is a :class:`FileReadError` naming the file and the line
    (1-based), so a user can fix it; blank lines are skipped.
    """
    import json

    p = Path(path)
    if not p.exists():
        raise FileReadError(f"{p}: no such file")
    if p.is_dir():
        raise FileReadError(f"{p}: is a directory, not a file")
    out: list[tuple[int, object]] = []
    try:
        with p.open(encoding="utf-8") as fh:
            for no, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    out.append((no, json.loads(line)))
                except json.JSONDecodeError as exc:
                    raise FileReadError(f"{p}:{no}: not valid JSON ({exc.msg})") from exc
    except UnicodeDecodeError as exc:
        raise FileReadError(f"{p}: not UTF-8 text ({exc.reason})") from exc
    if not out:
        raise FileReadError(f"{p}: no JSON lines in the file")
    return out
