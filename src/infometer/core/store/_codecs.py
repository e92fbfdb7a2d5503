"""The formats of stored files: ``.npz`` arrays (never pickled), JSON, Parquet tables.
Each reader turns what a foreign or forged file does to it into one :class:`StoreError`."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from ._identity import StoreError

__all__ = ["arrays_to_bytes", "arrays_from_bytes", "json_to_bytes", "json_from_bytes"]

_REDO = "delete it and run again to recompute it"


def arrays_to_bytes(arrays: Mapping[str, np.ndarray]) -> bytes:
    """An ``.npz`` of numeric arrays (object arrays, which numpy would pickle, are refused)."""
    for k, a in arrays.items():
        if np.asarray(a).dtype.hasobject:
            raise TypeError(f"array {k!r} has dtype object, which a store never pickles")
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def arrays_from_bytes(
    data: bytes,
    where: str,
    required: Iterable[str] = (),
    shapes: Mapping[str, tuple[int, ...]] | None = None,
) -> dict[str, Any]:
    """The arrays of an ``.npz`` (``allow_pickle=False``: nothing is ever unpickled), with
    the ``required`` names and the given ``shapes``."""
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            out = {k: z[k] for k in z.files}
    except ValueError as exc:
        if "allow_pickle" in str(exc) or "Object arrays" in str(exc):
            raise StoreError(
                f"{where} holds object arrays (pickled data), which infometer never loads; {_REDO}"
            ) from None
        raise StoreError(f"{where} is not a readable .npz file ({exc}); {_REDO}") from None
    except (OSError, EOFError, zipfile.BadZipFile, KeyError) as exc:
        raise StoreError(f"{where} is not a readable .npz file ({exc}); {_REDO}") from None
    missing = [k for k in required if k not in out]
    if missing:
        raise StoreError(f"{where} lacks the array {missing[0]!r} of a stored result; {_REDO}")
    for k, shape in (shapes or {}).items():
        if k in out and out[k].shape != tuple(shape):
            raise StoreError(
                f"{where} holds {k} of shape {out[k].shape}, not the {tuple(shape)} of its "
                f"result; {_REDO}"
            )
    return out


def json_to_bytes(obj: Any, indent: int | None = None) -> bytes:
    """``obj`` as UTF-8 JSON."""
    return json.dumps(obj, indent=indent).encode()


def json_from_bytes(data: bytes, where: str, required: Iterable[str] = ()) -> Any:
    """The JSON value of a stored file; with ``required``, an object holding those keys."""
    try:
        obj = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise StoreError(f"{where} is not JSON ({exc}); {_REDO}") from None
    keys = list(required)
    if keys:
        if not isinstance(obj, dict):
            raise StoreError(f"{where} is not a stored result (a JSON object); {_REDO}")
        missing = [k for k in keys if k not in obj]
        if missing:
            raise StoreError(f"{where} is not a stored result (no key {missing[0]!r}); {_REDO}")
    return obj


def parquet_modules() -> tuple[Any, Any]:
    """``(pyarrow, pyarrow.parquet)``, or an ImportError that names the extra."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:  # pragma: no cover - pyarrow ships with the dask/io extras
        raise ImportError(
            "a store of Parquet files needs pyarrow: pip install 'infometer[io]' "
            "(or infometer[dask])"
        ) from exc
    return pa, pq


def table_to_bytes(columns: Mapping[str, Any], metadata: Mapping[str, str]) -> bytes:
    """A Parquet file of ``columns`` (pyarrow arrays) with string ``metadata``."""
    pa, pq = parquet_modules()
    table = pa.table(dict(columns)).replace_schema_metadata(dict(metadata))
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return sink.getvalue().to_pybytes()


def table_from_bytes(data: bytes, where: str, required: Iterable[str] = ()) -> Any:
    """The ``pyarrow.Table`` of a stored Parquet file."""
    pa, pq = parquet_modules()
    try:
        table = pq.read_table(pa.BufferReader(data))
    except (OSError, ValueError, pa.ArrowException) as exc:
        raise StoreError(f"{where} is not a readable Parquet file ({exc}); {_REDO}") from None
    missing = [k for k in required if k not in table.column_names]
    if missing:
        raise StoreError(f"{where} lacks the column {missing[0]!r} of a stored result; {_REDO}")
    return table
