"""A chunked, resumable store for all-pairs jobs: one Parquet file per finished block.

Layout of a store folder::

    manifest.json          what the job is (fingerprint: data hash, method, parameters, ...)
    input.parquet          the validated columns, for workers that read them (Dask backend)
    blocks/g{G}_h{H}.parquet   one finished block: columns a, b, value, null_ge, method

A block file is written to a temporary name and renamed into place, so a block is either
complete or absent, whatever happens to the process (kill -9, lost worker).  Re-running
the same job on the same folder reads the finished blocks and computes only the missing
ones; a folder that holds a *different* job is refused (never silently mixed).  The blocks
are plain Parquet: ``pandas.read_parquet(folder + "/blocks")`` reads every finished pair.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from infometer.core.data import Variable

from .compute import BlockResult

__all__ = ["BlockStore", "fingerprint_data", "read_input_columns"]

_BLOCK = re.compile(r"^g(\d+)_h(\d+)\.parquet$")


def _pyarrow():
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:  # pragma: no cover - pyarrow ships with the dask/io extras
        raise ImportError(
            "a pairwise store writes Parquet and needs pyarrow: pip install 'infometer[io]' "
            "(or infometer[dask])"
        ) from exc
    return pa, pq


def fingerprint_data(variables: list[Variable], z: Variable | None) -> str:
    """A hash of the numbers (and kinds) of the columns taking part, and of ``given``."""
    h = hashlib.blake2b(digest_size=16)
    for v in [*variables, *([z] if z is not None else [])]:
        h.update(f"{v.name}|{v.kinds}|".encode())
        for c in v.columns:
            h.update(np.ascontiguousarray(c).tobytes())
    return h.hexdigest()


def _read_manifest(path: Path) -> dict[str, Any] | None:
    """The stored fingerprint, or None when there is none yet (missing, or empty or
    unreadable because a run was killed while writing it before it was atomic)."""
    if not path.exists():
        return None
    try:
        old = json.loads(path.read_text())
    except (ValueError, OSError):
        return None
    return old if isinstance(old, dict) else None


class BlockStore:
    """A :class:`infometer.core.parallel.Sink` of :class:`~.compute.BlockResult` blocks on disk.

    Parameters
    ----------
    path
        Folder (created if missing).
    fingerprint
        JSON-able description of the job; must equal the stored one when the folder
        already holds a job.
    """

    def __init__(self, path: str | os.PathLike, fingerprint: dict[str, Any]) -> None:
        self.path = Path(path)
        if self.path.exists() and not self.path.is_dir():
            raise ValueError(f"store {self.path} exists and is not a folder")
        self.blocks = self.path / "blocks"
        self.blocks.mkdir(parents=True, exist_ok=True)
        manifest = self.path / "manifest.json"
        fp = json.loads(json.dumps(fingerprint, default=str))
        old = _read_manifest(manifest)
        if old is None:  # new, or killed before its manifest was written
            n_blocks = len(self.done_keys())
            if n_blocks:
                raise ValueError(
                    f"store {self.path} holds {n_blocks} block(s) but no valid manifest.json "
                    "(the run was killed before its metadata was written?): they cannot be "
                    "matched to this job; delete the folder or use another store"
                )
            tmp = manifest.with_suffix(".tmp")
            tmp.write_text(json.dumps(fp, indent=1, sort_keys=True))
            os.replace(tmp, manifest)
        else:
            diff = sorted(k for k in set(old) | set(fp) if old.get(k) != fp.get(k))
            if diff:
                raise ValueError(
                    f"store {self.path} holds blocks of a different job (it differs in "
                    f"{', '.join(diff)}); use another folder or delete this one"
                )
        self.fingerprint = fp

    # -- the Sink protocol
    def done_keys(self) -> set[tuple[int, int]]:
        out = set()
        for name in os.listdir(self.blocks):
            m = _BLOCK.match(name)
            if m:
                out.add((int(m[1]), int(m[2])))
        return out

    def add(self, key: tuple[int, int], result: BlockResult) -> None:
        pa, pq = _pyarrow()
        table = pa.table(
            {
                "a": pa.array(result.a, pa.int64()),
                "b": pa.array(result.b, pa.int64()),
                "value": pa.array(result.value, pa.float64()),
                "null_ge": pa.array(result.null_ge, pa.int64()),
                "method": pa.DictionaryArray.from_arrays(
                    pa.array(result.code, pa.int16()), pa.array(result.methods, pa.string())
                ),
            }
        ).replace_schema_metadata(
            {"messages": json.dumps(result.messages), "methods": json.dumps(result.methods)}
        )
        final = self.blocks / f"g{key[0]}_h{key[1]}.parquet"
        tmp = self.blocks / f".g{key[0]}_h{key[1]}.{os.getpid()}.tmp"
        pq.write_table(table, tmp)
        os.replace(tmp, final)

    # -- reading back
    def read(self, key: tuple[int, int]) -> BlockResult:
        _, pq = _pyarrow()
        t = pq.read_table(self.blocks / f"g{key[0]}_h{key[1]}.parquet")
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
    def input_path(self) -> Path:
        return self.path / "input.parquet"

    def write_input(self, variables: list[Variable]) -> None:
        """Write the validated columns (codes for discrete ones) once, with their kinds."""
        if self.input_path.exists():
            return
        pa, pq = _pyarrow()
        meta = [
            {
                "name": v.name,
                "kind": v.kinds[0],
                "card": v.cardinalities[0],
                "few": bool(v.diagnostics.get("few_distinct_float_columns")),
            }
            for v in variables
        ]
        table = pa.table({f"c{j}": v.columns[0] for j, v in enumerate(variables)})
        table = table.replace_schema_metadata({"columns": json.dumps(meta)})
        tmp = self.path / f".input.{os.getpid()}.tmp"
        pq.write_table(table, tmp)
        os.replace(tmp, self.input_path)


@lru_cache(maxsize=4)
def _input_meta(path: str, mtime: float) -> list[dict]:
    _, pq = _pyarrow()
    return json.loads(pq.read_schema(path).metadata[b"columns"])


def read_input_columns(path: str, cols: np.ndarray) -> list[Variable]:
    """The columns ``cols`` (indices into the kept columns) of an ``input.parquet``, as Variables.

    Raises a ``ValueError`` that says why when a worker cannot read the file (the Dask
    backend needs the store on a filesystem that every worker can read).
    """
    _, pq = _pyarrow()
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
