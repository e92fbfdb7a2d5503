"""The results store: one SQLite file per benchmark directory.

Each finished run is written in its own transaction (``INSERT OR REPLACE`` + ``COMMIT``) in
WAL mode with ``synchronous=FULL``, so killing the process at any moment loses no finished
run and leaves a consistent database; a re-run skips every ``(task, method, n, seed)`` key
that is already stored.  Only the process that plans the sweep writes; workers return rows.
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


class Store:
    """SQLite results store in ``directory/results.sqlite``.

    Parameters
    ----------
    directory
        Benchmark output directory (created when missing).
    """

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / DB_NAME
        self._con = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        self._con.execute("PRAGMA journal_mode=WAL")
        self._con.execute("PRAGMA synchronous=FULL")
        self._con.execute(_SCHEMA)
        self._con.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")

    def close(self) -> None:
        """Close the connection (checkpoints the WAL)."""
        self._con.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

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
        """The recorded sweep settings."""
        return {k: json.loads(v) for k, v in self._con.execute("SELECT key, value FROM meta")}

    def rows(self) -> list[dict[str, Any]]:
        """All runs as dicts (JSON columns decoded)."""
        cur = self._con.execute(f"SELECT {', '.join(COLUMNS)} FROM runs ORDER BY rowid")
        out = []
        for r in cur.fetchall():
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
