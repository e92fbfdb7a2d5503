"""The results store: one SQLite file per benchmark directory.

Each finished run is written in its own transaction (``INSERT OR REPLACE`` + ``COMMIT``) in
WAL mode with ``synchronous=FULL``, so killing the process at any moment loses no finished
run and leaves a consistent database; a re-run skips every ``(task, method, n, seed)`` key
that is already stored.  Only the process that plans the sweep writes; workers return rows.
The ``planned`` table keeps every key a sweep here set out to run, so a partial store can
say what it lacks.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

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

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS runs ("
    + ", ".join(f"{k} {v}" for k, v in COLUMNS.items())
    + ", PRIMARY KEY (task, method, n, seed))"
)
_PLANNED = (
    "CREATE TABLE IF NOT EXISTS planned (task TEXT NOT NULL, method TEXT NOT NULL, "
    "n INTEGER NOT NULL, seed INTEGER NOT NULL, PRIMARY KEY (task, method, n, seed))"
)


class Store:
    """SQLite results store in ``directory/results.sqlite``.

    Parameters
    ----------
    directory
        Benchmark output directory (created when missing, unless ``readonly``).
    readonly
        Open an existing store for reading only (what ``infometer report`` does): nothing
        is written, so a store on a read-only disk, a read-only directory or a file
        without write permission can be read.  When SQLite cannot even create its shared
        memory file next to a WAL database there, the file is opened as immutable; rows
        still in an un-checkpointed ``-wal`` file are then not visible, and
        :attr:`note` says so.
    """

    def __init__(self, directory: str | Path, *, readonly: bool = False) -> None:
        self.directory = Path(directory)
        self.path = self.directory / DB_NAME
        self.readonly = readonly
        self.note: str | None = None
        if readonly:
            self._con = self._open_readonly()
            self._verify()
            return
        if self.directory.exists() and not self.directory.is_dir():
            raise NotADirectoryError(f"{self.directory} is a file, not a results directory")
        self.directory.mkdir(parents=True, exist_ok=True)
        self._con = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        self._verify()  # before writing anything into a file that is not ours
        self._con.execute("PRAGMA journal_mode=WAL")
        self._con.execute("PRAGMA synchronous=FULL")
        self._con.execute(_SCHEMA)
        self._con.execute(_PLANNED)
        self._con.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")

    def _verify(self) -> None:
        """Refuse a ``results.sqlite`` that is damaged (truncated, not SQLite) or another
        program's database, with a ``ValueError`` naming the file, before any write."""
        try:
            tables = {
                r[0] for r in self._con.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
            cols = (
                {r[1] for r in self._con.execute("PRAGMA table_info(runs)")}
                if "runs" in tables
                else set()
            )
        except sqlite3.DatabaseError as exc:
            self._con.close()
            raise ValueError(
                f"{self.path} is not a readable results store ({exc}: truncated or not "
                "SQLite); move it away, or choose another --out"
            ) from None
        if tables and ("runs" not in tables or not {"task", "method", "n", "seed"} <= cols):
            self._con.close()
            raise ValueError(
                f"{self.path} is another program's SQLite database (tables "
                f"{sorted(tables)[:5]}), not an infometer results store; choose another --out"
            )

    def _open_readonly(self) -> sqlite3.Connection:
        if not self.path.is_file():
            raise FileNotFoundError(f"{self.directory} has no {DB_NAME}")
        uri = self.path.resolve().as_uri()
        try:
            con = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=60)
            con.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            return con
        except sqlite3.DatabaseError as exc:
            if not isinstance(exc, sqlite3.OperationalError) or "not a database" in str(exc):
                raise ValueError(
                    f"{self.path} is not a readable results store ({exc}: truncated or not SQLite)"
                ) from None
            # a WAL database in a directory where SQLite cannot create its -shm file
            con = sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True)
            wal = self.path.with_name(DB_NAME + "-wal")
            if wal.exists() and wal.stat().st_size > 0:
                self.note = (
                    f"{wal.name} holds runs that were never checkpointed into {DB_NAME} and "
                    "cannot be read without write access; they are not shown"
                )
            return con

    def close(self) -> None:
        """Close the connection (checkpoints the WAL)."""
        self._con.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def add_planned(self, keys: Iterable[tuple[str, str, int, int]]) -> None:
        """Record planned ``(task, method, n, seed)`` keys (the union over all sweeps here)."""
        self._con.execute("BEGIN IMMEDIATE")
        try:
            self._con.executemany(
                "INSERT OR IGNORE INTO planned (task, method, n, seed) VALUES (?, ?, ?, ?)",
                [(t, m, int(n), int(s)) for t, m, n, s in keys],
            )
            self._con.execute("COMMIT")
        except BaseException:
            if self._con.in_transaction:
                self._con.execute("ROLLBACK")
            raise

    def planned_keys(self) -> set[tuple[str, str, int, int]]:
        """Every key a sweep on this directory planned (empty for stores older than that)."""
        try:
            rows = self._con.execute("SELECT task, method, n, seed FROM planned").fetchall()
        except sqlite3.OperationalError:  # a store written before plans were recorded
            return set()
        return {(t, m, int(n), int(s)) for t, m, n, s in rows}

    def missing_keys(self) -> list[tuple[str, str, int, int]]:
        """Planned keys without a stored run, sorted."""
        return sorted(self.planned_keys() - self.done_keys())

    def done_keys(self) -> set[tuple[str, str, int, int]]:
        """Keys ``(task, method, n, seed)`` already stored."""
        rows = self._con.execute("SELECT task, method, n, seed FROM runs").fetchall()
        return {(t, m, int(n), int(s)) for t, m, n, s in rows}

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
        for k in ("tags", "dims", "flags", "diagnostics"):
            if rec[k] is not None and not isinstance(rec[k], str):
                rec[k] = json.dumps(rec[k], default=str)
        cols = ", ".join(COLUMNS)
        marks = ", ".join("?" for _ in COLUMNS)
        self._con.execute("BEGIN IMMEDIATE")
        try:
            self._con.execute(
                f"INSERT OR REPLACE INTO runs ({cols}) VALUES ({marks})", list(rec.values())
            )
            self._con.execute("COMMIT")
        except BaseException:
            if self._con.in_transaction:
                self._con.execute("ROLLBACK")
            raise

    def set_meta(self, items: dict[str, Any]) -> None:
        """Record sweep settings (JSON values) in one transaction."""
        self._con.execute("BEGIN IMMEDIATE")
        for k, v in items.items():
            self._con.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (k, json.dumps(v))
            )
        self._con.execute("COMMIT")

    def meta(self) -> dict[str, Any]:
        """The recorded sweep settings (empty for a store without them)."""
        try:
            rows = self._con.execute("SELECT key, value FROM meta").fetchall()
        except sqlite3.OperationalError:  # no meta table (a read-only store of an old sweep)
            return {}
        try:
            return {k: json.loads(v) for k, v in rows}
        except json.JSONDecodeError as exc:
            raise ValueError(f"{self.path}: its meta table is damaged ({exc})") from None

    def rows(self) -> list[dict[str, Any]]:
        """All runs as dicts (JSON columns decoded)."""
        try:
            cur = self._con.execute(f"SELECT {', '.join(COLUMNS)} FROM runs ORDER BY rowid")
            fetched = cur.fetchall()
        except sqlite3.DatabaseError as exc:
            raise ValueError(
                f"{self.path} cannot be read ({exc}): the file is damaged or from another "
                "version; move it away to start afresh"
            ) from None
        out = []
        for r in fetched:
            d = dict(zip(COLUMNS, r, strict=True))
            for k in ("tags", "dims", "flags", "diagnostics"):
                if d[k] is not None:
                    d[k] = json.loads(d[k])
            out.append(d)
        return out

    def count(self) -> int:
        """Number of stored runs."""
        return int(self._con.execute("SELECT COUNT(*) FROM runs").fetchone()[0])

    def integrity_ok(self) -> bool:
        """``PRAGMA integrity_check`` is ``ok``."""
        return self._con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def frame(rows: Iterable[dict[str, Any]]):
    """Rows as a pandas DataFrame."""
    import pandas as pd

    return pd.DataFrame(list(rows))
