"""The resumable store of all-pairs jobs: one Parquet file per finished block, kept by the
one store service (:mod:`infometer.core.store`: identity, checksums, atomic writes, lock).

Layout of a store folder::

    manifest.json          the identity of the job (data fingerprint, method, parameters, ...)
    input.parquet          the validated columns, for workers that read them (Dask backend)
    blocks/g{G}_h{H}.parquet   one finished block: columns a, b, value, null_ge, method

(each file with its checksum record ``.NAME.sha256`` beside it).  Re-running the same job
on the same folder reads the finished blocks and computes only the missing ones; a folder
that holds a *different* job, or no valid identity, is refused (never silently mixed).
The blocks are plain Parquet: ``pandas.read_parquet(folder + "/blocks")`` reads every
finished pair (readers skip the hidden checksum records).
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from typing import Any

import numpy as np

from infometer.core.data import Variable
from infometer.core.store import ResultStore, fingerprint, parquet_modules

from .compute import BlockResult

__all__ = ["BlockStore", "fingerprint_data", "read_input_columns"]

_COLUMNS = ("a", "b", "value", "null_ge", "method")


def fingerprint_data(variables: list[Variable], z: Variable | None) -> str:
    """A hash of the numbers (and kinds) of the columns taking part, and of ``given``."""
    parts: list[Any] = []
    for v in [*variables, *([z] if z is not None else [])]:
        parts += [v.name, list(v.kinds), *v.columns]
    return fingerprint(*parts)


class BlockStore:
    """A :class:`infometer.core.parallel.Sink` of :class:`~.compute.BlockResult` blocks on disk.

    Parameters
    ----------
    path
        Folder (created if missing; a new store needs a missing or empty folder).
    data
        :func:`fingerprint_data` of the job's columns.
    params
        Every setting of the job that changes a number (JSON-able).
    """

    def __init__(self, path: str | os.PathLike, *, data: str, params: dict[str, Any]) -> None:
        self.store = ResultStore(
            path,
            kind="pairwise",
            data=data,
            params=params,
            files={"blocks": r"g\d+_h\d+\.parquet", ".": r"input\.parquet"},
        )
        self.path = self.store.path

    def close(self) -> None:
        """Release the store's lock."""
        self.store.close()

    # -- the Sink protocol
    def done_keys(self) -> set[tuple[int, int]]:
        out = set()
        for name in self.store.names("blocks"):
            g, h = name[1 : -len(".parquet")].split("_h")
            out.add((int(g), int(h)))
        return out

    def add(self, key: tuple[int, int], result: BlockResult) -> None:
        pa, _ = parquet_modules()
        self.store.put_table(
            f"blocks/g{key[0]}_h{key[1]}.parquet",
            {
                "a": pa.array(result.a, pa.int64()),
                "b": pa.array(result.b, pa.int64()),
                "value": pa.array(result.value, pa.float64()),
                "null_ge": pa.array(result.null_ge, pa.int64()),
                "method": pa.DictionaryArray.from_arrays(
                    pa.array(result.code, pa.int16()), pa.array(result.methods, pa.string())
                ),
            },
            {"messages": json.dumps(result.messages), "methods": json.dumps(result.methods)},
        )

    # -- reading back
    def read(self, key: tuple[int, int]) -> BlockResult:
        t = self.store.get_table(f"blocks/g{key[0]}_h{key[1]}.parquet", _COLUMNS)
        meta = t.schema.metadata or {}
        cols = {name: t.column(name) for name in ("a", "b", "value", "null_ge")}
        methods = json.loads(meta[b"methods"])
        codes = t.column("method").combine_chunks().indices.to_numpy(zero_copy_only=False)
        return BlockResult(
            key=tuple(key),
            a=cols["a"].to_numpy().astype(np.int64),
            b=cols["b"].to_numpy().astype(np.int64),
            value=cols["value"].to_numpy().astype(np.float64),
            null_ge=cols["null_ge"].to_numpy().astype(np.int64),
            code=codes.astype(np.int16),
            methods=methods,
            messages=json.loads(meta.get(b"messages", b"{}")),
        )

    # -- input columns for remote workers
    @property
    def input_path(self):
        return self.path / "input.parquet"

    def write_input(self, variables: list[Variable]) -> None:
        """Write the validated columns (codes for discrete ones) once, with their kinds."""
        if self.store.has("input.parquet"):
            return
        meta = [
            {
                "name": v.name,
                "kind": v.kinds[0],
                "card": v.cardinalities[0],
                "few": bool(v.diagnostics.get("few_distinct_float_columns")),
            }
            for v in variables
        ]
        self.store.put_table(
            "input.parquet",
            {f"c{j}": v.columns[0] for j, v in enumerate(variables)},
            {"columns": json.dumps(meta)},
        )


@lru_cache(maxsize=4)
def _input_meta(path: str, mtime: float) -> list[dict]:
    _, pq = parquet_modules()
    return json.loads(pq.read_schema(path).metadata[b"columns"])


def read_input_columns(path: str, cols: np.ndarray) -> list[Variable]:
    """The columns ``cols`` (indices into the kept columns) of an ``input.parquet``, as Variables.

    Raises a ``ValueError`` that says why when a worker cannot read the file (the Dask
    backend needs the store on a filesystem that every worker can read).
    """
    _, pq = parquet_modules()
    try:
        meta = _input_meta(path, os.path.getmtime(path))
        t = pq.read_table(path, columns=[f"c{int(j)}" for j in cols])
    except OSError as exc:
        raise ValueError(
            f"this worker cannot read {path} ({exc}); with backend='dask' the store folder "
            "must be on a filesystem that every worker can read"
        ) from exc
    out = []
    for j in cols:
        m = meta[int(j)]
        col = t.column(f"c{int(j)}").to_numpy()
        diag = {"few_distinct_float_columns": [0]} if m["few"] else {}
        out.append(
            Variable(
                columns=(np.ascontiguousarray(col),),
                kinds=(m["kind"],),
                cardinalities=(m["card"],),
                name=m["name"],
                labels=(m["name"],),
                diagnostics=diag,
            )
        )
    return out
