""":class:`RowStore`: keyed rows in one SQLite file of a :class:`ResultStore` folder, each
row with its checksum, each write its own transaction (WAL, ``synchronous=FULL``: a
``kill -9`` loses no committed row and leaves a consistent file)."""

from __future__ import annotations

import math
import os
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._files import canonical_json, sha256
from ._identity import StoreError
from ._store import ResultStore

__all__ = ["RowStore", "Table"]

_AFRESH = "use another folder, or delete this one to start afresh"


@dataclass(frozen=True)
class Table:
    """One table of a :class:`RowStore`: column name -> SQL type, and the key columns."""

    columns: Mapping[str, str]
    key: tuple[str, ...]

    def schema(self, name: str) -> str:
        cols = ", ".join(f"{k} {v}" for k, v in self.columns.items())
        return (
            f"CREATE TABLE IF NOT EXISTS {name} ({cols}, checksum TEXT NOT NULL, "
            f"PRIMARY KEY ({', '.join(self.key)}))"
        )

    def canonical(self, row: Mapping[str, Any]) -> list[Any]:
        """The row's values as SQLite will give them back (so that the checksum of what is
        written is the checksum of what is read): INTEGER -> int, REAL -> float (NaN, which
        SQLite stores as NULL, -> None), TEXT -> str."""
        out = []
        for name, sql in self.columns.items():
            v = row.get(name)
            kind = sql.split()[0].upper()
            if v is None:
                out.append(None)
            elif kind == "INTEGER":
                out.append(int(v))
            elif kind == "REAL":
                f = float(v)
                out.append(None if math.isnan(f) else f)
            else:
                out.append(str(v))
        return out


class RowStore:
    """SQLite rows inside a :class:`ResultStore` folder (the identity, the lock and the
    refusals are the folder's; every row carries a checksum of its values).

    Parameters
    ----------
    directory
        The store folder.
    kind, params, argument, readonly, lock_timeout, log
        As for :class:`ResultStore` (``params`` may be None when ``readonly``).
    tables
        Table name -> :class:`Table`.
    db_name
        The SQLite file in the folder.

    Examples
    --------
    >>> import tempfile
    >>> t = {"runs": Table({"k": "TEXT NOT NULL", "v": "REAL"}, ("k",))}
    >>> d = tempfile.mkdtemp()
    >>> with RowStore(d, kind="demo", params={}, tables=t, db_name="rows.sqlite") as rs:
    ...     rs.insert("runs", [{"k": "a", "v": 0.5}])
    >>> with RowStore(d, kind="demo", params={}, tables=t, db_name="rows.sqlite") as rs:
    ...     rs.select("runs")
    [('a', 0.5)]
    """

    def __init__(
        self,
        directory: str | os.PathLike,
        *,
        kind: str,
        params: Mapping[str, Any] | None,
        tables: Mapping[str, Table],
        db_name: str,
        argument: str = "directory",
        readonly: bool = False,
        lock_timeout: float | None = None,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.tables = dict(tables)
        self.readonly = readonly
        self.note: str | None = None
        self.folder = ResultStore(
            directory,
            kind=kind,
            params=params,
            argument=argument,
            readonly=readonly,
            lock_timeout=lock_timeout,
            log=log,
        )
        self.path = self.folder.path / db_name
        self._con: sqlite3.Connection | None = None
        try:
            if readonly:
                self._con = self._open_readonly()
                self._check()
            else:
                self._con = sqlite3.connect(self.path, timeout=60, isolation_level=None)
                self._check()  # before writing anything into a file that is not ours
                self._con.execute("PRAGMA journal_mode=WAL")
                self._con.execute("PRAGMA synchronous=FULL")
                self._con.execute("BEGIN IMMEDIATE")  # every table or none (a kill -9)
                for name, t in self.tables.items():
                    self._con.execute(t.schema(name))
                self._con.execute("COMMIT")
            for name in self.tables:
                self.select(name)  # every row's checksum, before any work
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------------ opening
    def _damaged(self, exc: Exception) -> StoreError:
        return StoreError(
            f"{self.path} is not a readable results store ({exc}: truncated, damaged or not "
            f"SQLite); {_AFRESH}"
        )

    def _open_readonly(self) -> sqlite3.Connection:
        if not self.path.is_file():
            raise FileNotFoundError(f"{self.folder.path} has no {self.path.name}")
        uri = self.path.resolve().as_uri()
        try:
            con = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=60)
            con.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            return con
        except sqlite3.DatabaseError as exc:
            if not isinstance(exc, sqlite3.OperationalError) or "not a database" in str(exc):
                raise self._damaged(exc) from None
            # a WAL database in a folder where SQLite cannot create its -shm file
            con = sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True)
            wal = self.path.with_name(self.path.name + "-wal")
            if wal.exists() and wal.stat().st_size > 0:
                self.note = (
                    f"{wal.name} holds rows that were never checkpointed into {self.path.name} "
                    "and cannot be read without write access; they are not shown"
                )
            return con

    def _check(self) -> None:
        """Refuse a file that is damaged (truncated, not SQLite, failing SQLite's own
        check) or another program's database, naming the file, before any write."""
        assert self._con is not None
        try:
            found = {
                r[0] for r in self._con.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
            cols = {
                name: {r[1] for r in self._con.execute(f"PRAGMA table_info({name})")}
                for name in self.tables
                if name in found
            }
            verdict = self._con.execute("PRAGMA quick_check").fetchone()[0] if found else "ok"
        except sqlite3.DatabaseError as exc:
            raise self._damaged(exc) from None
        if verdict != "ok":
            raise self._damaged(sqlite3.DatabaseError(verdict))
        wanted = {name: {*t.columns, "checksum"} for name, t in self.tables.items()}
        if found and (set(wanted) - found or any(not wanted[n] <= cols[n] for n in cols)):
            raise StoreError(
                f"{self.path} is another program's SQLite database (tables "
                f"{sorted(found)[:5]}), not an infometer results store; {_AFRESH}"
            )

    # ------------------------------------------------------------------ rows
    def _checksum(self, table: str, values: Sequence[Any]) -> str:
        return sha256(canonical_json([self.folder.digest, table, *values]))

    def insert(self, table: str, rows: Iterable[Mapping[str, Any]], *, replace=True) -> None:
        """Write ``rows`` in one transaction (``replace``: a row with the same key is
        replaced; else it is kept)."""
        if self.readonly:
            raise ValueError(f"{self.path} is open read-only")
        assert self._con is not None
        t = self.tables[table]
        cols = [*t.columns, "checksum"]
        values = []
        for row in rows:
            v = t.canonical(row)
            values.append([*v, self._checksum(table, v)])
        verb = "INSERT OR REPLACE" if replace else "INSERT OR IGNORE"
        sql = f"{verb} INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})"
        self._con.execute("BEGIN IMMEDIATE")
        try:
            self._con.executemany(sql, values)
            self._con.execute("COMMIT")
        except BaseException:
            if self._con.in_transaction:
                self._con.execute("ROLLBACK")
            raise

    def select(self, table: str) -> list[tuple]:
        """Every row of ``table`` (in insertion order), each checked against its checksum."""
        assert self._con is not None
        t = self.tables[table]
        try:
            fetched = self._con.execute(
                f"SELECT {', '.join(t.columns)}, checksum FROM {table} ORDER BY rowid"
            ).fetchall()
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc) and self.readonly:
                return []
            raise self._damaged(exc) from None
        except sqlite3.DatabaseError as exc:
            raise self._damaged(exc) from None
        out = []
        for r in fetched:
            values = list(r[:-1])
            if self._checksum(table, values) != r[-1]:
                key = {k: values[list(t.columns).index(k)] for k in t.key}
                raise StoreError(
                    f"{self.path}: the row {key} of table {table} is damaged (its checksum "
                    f"does not match: changed after it was written); {_AFRESH}"
                )
            out.append(tuple(values))
        return out

    def keys(self, table: str) -> set[tuple]:
        """The keys of ``table`` (its rows were verified when the store was opened)."""
        assert self._con is not None
        t = self.tables[table]
        try:
            rows = self._con.execute(f"SELECT {', '.join(t.key)} FROM {table}").fetchall()
        except sqlite3.OperationalError:
            return set()
        return {tuple(r) for r in rows}

    def count(self, table: str) -> int:
        """Rows in ``table``."""
        assert self._con is not None
        return int(self._con.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])

    def integrity_ok(self) -> bool:
        """SQLite's ``PRAGMA integrity_check`` is ``ok``."""
        assert self._con is not None
        return self._con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"

    # ------------------------------------------------------------------ closing
    def close(self) -> None:
        """Close the connection (checkpoints the WAL) and release the folder's lock."""
        if self._con is not None:
            self._con.close()
            self._con = None
        self.folder.close()

    def __enter__(self) -> RowStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def directory(self) -> Path:
        return self.folder.path
