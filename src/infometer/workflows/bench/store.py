"""The results store of a benchmark directory: ``results.sqlite`` in a folder of the one
store service (:mod:`infometer.core.store`: identity, lock, checksums, refusals).

Each finished run is written in its own transaction in WAL mode with
``synchronous=FULL``, so killing the process at any moment loses no finished run and
leaves a consistent database; every row carries the checksum of its values, verified
when the store opens.  A re-run skips every ``(task, method, n, seed)`` key that is
already stored.  Only the process that plans the sweep writes; workers return rows.
The ``planned`` table keeps every key a sweep here set out to run, so a partial store can
say what it lacks.  The folder's identity is the kind of job (a benchmark sweep), the
table layout and the infometer version: each row holds its own key (task, method, n,
seed), so sweeps of other tasks, methods or sizes share one folder.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from infometer.core.store import RowStore, Table

__all__ = ["Store", "DB_NAME", "COLUMNS"]

DB_NAME = "results.sqlite"

#: Column name -> SQL type of the ``runs`` table (key: task, method, n, seed).
COLUMNS: dict[str, str] = {
    "task": "TEXT NOT NULL",
    "method": "TEXT NOT NULL",
    "n": "INTEGER NOT NULL",
    "seed": "INTEGER NOT NULL",
    "quantity": "TEXT NOT NULL",
    "family": "TEXT",
    "tags": "TEXT",
    "dims": "TEXT",
    "truth": "REAL NOT NULL",
    "truth_se": "REAL",
    "estimate": "REAL",
    "error": "REAL",
    "stderr": "REAL",
    "resolved_method": "TEXT",
    "status": "TEXT NOT NULL",
    "message": "TEXT",
    "flags": "TEXT",
    "diagnostics": "TEXT",
    "wall_s": "REAL",
    "peak_mem_mb": "REAL",
    "version": "TEXT",
    "host": "TEXT",
    "finished_at": "TEXT",
}
_KEY = ("task", "method", "n", "seed")
_JSON = ("tags", "dims", "flags", "diagnostics")
TABLES = {
    "runs": Table(COLUMNS, _KEY),
    "planned": Table({k: COLUMNS[k] for k in _KEY}, _KEY),
    "meta": Table({"key": "TEXT NOT NULL", "value": "TEXT"}, ("key",)),
}

#: The identity's parameters: the table layout (rows hold their own keys).
_PARAMS = {"tables": {k: list(t.columns) for k, t in TABLES.items()}}


class Store:
    """SQLite results store in ``directory/results.sqlite``.

    Parameters
    ----------
    directory
        Benchmark output directory (created when missing, unless ``readonly``; a new one
        must be missing or empty).  Opening it for writing holds its lock (``.lock``): a
        second sweep on the directory waits for the first.
    readonly
        Open an existing store for reading only (what ``infometer report`` does): nothing
        is written and no lock is taken, so a store on a read-only disk, a read-only
        directory or a file without write permission can be read.  When SQLite cannot
        even create its shared memory file next to a WAL database there, the file is
        opened as immutable; rows still in an un-checkpointed ``-wal`` file are then not
        visible, and :attr:`note` says so.
    log, lock_timeout
        Told who holds the lock while this open waits for it; how long to wait
        (:class:`~infometer.core.parallel.LockTimeout`).

    Examples
    --------
    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> with Store(d) as st:
    ...     st.add({"task": "t", "method": "m", "n": 10, "seed": 0, "quantity": "entropy",
    ...             "truth": 1.0, "status": "ok", "estimate": 0.9})
    >>> with Store(d, readonly=True) as st:
    ...     [(r["task"], r["estimate"]) for r in st.rows()]
    [('t', 0.9)]
    """

    def __init__(
        self,
        directory: str | Path,
        *,
        readonly: bool = False,
        log: Callable[[str], None] | None = None,
        lock_timeout: float | None = None,
    ) -> None:
        self._rows = RowStore(
            directory,
            kind="bench",
            params=None if readonly else _PARAMS,
            tables=TABLES,
            db_name=DB_NAME,
            argument="directory",
            readonly=readonly,
            lock_timeout=lock_timeout,
            log=log,
        )
        self.directory = self._rows.directory
        self.path = self._rows.path
        self.readonly = readonly
        self.note: str | None = self._rows.note

    def close(self) -> None:
        """Close the connection (checkpoints the WAL) and release the lock."""
        self._rows.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def add_planned(self, keys: Iterable[tuple[str, str, int, int]]) -> None:
        """Record planned ``(task, method, n, seed)`` keys (the union over all sweeps here)."""
        rows = [dict(zip(_KEY, k, strict=True)) for k in keys]
        self._rows.insert("planned", rows, replace=False)

    def planned_keys(self) -> set[tuple[str, str, int, int]]:
        """Every key a sweep on this directory planned."""
        return self._rows.keys("planned")

    def missing_keys(self) -> list[tuple[str, str, int, int]]:
        """Planned keys without a stored run, sorted."""
        return sorted(self.planned_keys() - self.done_keys())

    def done_keys(self) -> set[tuple[str, str, int, int]]:
        """Keys ``(task, method, n, seed)`` already stored."""
        return self._rows.keys("runs")

    def add(self, row: dict[str, Any]) -> None:
        """Write one finished run in its own transaction."""
        missing = [
            k
            for k in ("task", "method", "n", "seed", "quantity", "truth", "status")
            if row.get(k) is None
        ]
        if missing:
            raise ValueError(f"row is missing {missing}")
        rec = {k: row.get(k) for k in COLUMNS}
        for k in _JSON:
            if rec[k] is not None and not isinstance(rec[k], str):
                rec[k] = json.dumps(rec[k], default=str)
        self._rows.insert("runs", [rec])

    def set_meta(self, items: dict[str, Any]) -> None:
        """Record sweep settings (JSON values) in one transaction."""
        self._rows.insert("meta", [{"key": k, "value": json.dumps(v)} for k, v in items.items()])

    def meta(self) -> dict[str, Any]:
        """The recorded sweep settings (empty for a store without them)."""
        try:
            return {k: json.loads(v) for k, v in self._rows.select("meta")}
        except json.JSONDecodeError as exc:
            raise ValueError(f"{self.path}: its meta table is damaged ({exc})") from None

    def rows(self) -> list[dict[str, Any]]:
        """All runs as dicts (JSON columns decoded), each verified against its checksum."""
        out = []
        for r in self._rows.select("runs"):
            d = dict(zip(COLUMNS, r, strict=True))
            for k in _JSON:
                if d[k] is not None:
                    d[k] = json.loads(d[k])
            out.append(d)
        return out

    def count(self) -> int:
        """Number of stored runs."""
        return self._rows.count("runs")

    def integrity_ok(self) -> bool:
        """``PRAGMA integrity_check`` is ``ok``."""
        return self._rows.integrity_ok()


def frame(rows: Iterable[dict[str, Any]]):
    """Rows as a pandas DataFrame."""
    import pandas as pd

    return pd.DataFrame(list(rows))
