""":class:`ResultStore`: one store folder (identity, lock, checksummed files) and
:class:`KeyedSink`, the :func:`~infometer.core.parallel.run_jobs` sink on top of it."""

from __future__ import annotations

import contextlib
import json
import numbers
import os
import re
import threading
from collections.abc import Callable, Hashable, Iterable, Mapping
from pathlib import Path
from typing import Any

from . import _codecs
from ._files import atomic_write, canonical_json, is_temporary, sha256, sidecar_of
from ._identity import (
    MANIFEST,
    StoreError,
    differences,
    new_identity,
    read_identity,
    refuse_other,
    what,
)

__all__ = ["ResultStore", "KeyedSink", "LOCK"]

#: The lock file inside every store folder (an ``flock``; see ``infometer.core.parallel``).
LOCK = ".lock"
_REDO = "delete it and run again to recompute it"

#: Folders this process holds open (a second open would wait for its own lock forever).
_HELD: set[str] = set()
_HELD_LOCK = threading.Lock()


def check_folder(path: Any, argument: str) -> Path:
    """``path`` as a folder path: a ``TypeError`` for a non-path, a :class:`StoreError`
    naming ``argument`` for a file."""
    if not isinstance(path, str | os.PathLike):
        raise TypeError(
            f"{argument} must be a folder path (str or os.PathLike), got {type(path).__name__}"
        )
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise StoreError(
            f"{argument}={str(p)!r} is a file, not a folder: give the folder the results are "
            "(or will be) kept in"
        )
    return p


class ResultStore:
    """A folder of resumable results that belong to one analysis, and to no other.

    Opening it checks the identity of the analysis (``manifest.json``: the kind of job,
    the data fingerprint, every parameter that changes a number, the infometer version)
    against this one, writing it first (atomically) in a new folder; it takes the folder's
    lock (``.lock``, an ``flock``: a second run on the folder waits) and verifies the
    checksum of every stored file.  Files are written atomically, each with a checksum
    record (``.NAME.sha256`` beside it), and read back verified.  Every refusal is a
    :class:`StoreError` (a ``ValueError``) of one line that names the folder or the file
    and says what to do.

    Parameters
    ----------
    path
        The folder (created when missing).  A new store needs a missing or empty folder.
    kind
        The kind of job (``"multiplets"``, ``"network"``, ``"pairwise"``, ``"bench"``,
        ``"extract-bench"``).
    params
        Every parameter that changes a stored number (JSON-able; others by ``str``).
        ``None`` with ``readonly``: any analysis of this kind.
    data
        Fingerprint of the input (:func:`fingerprint`), or None for generated data.
    files
        Folder (relative; ``"."`` the store's own) -> regular expression of the names of
        the stored files there.
    argument
        The name of the caller's argument, for messages (``"store"``, ``"out"``).
    readonly
        Open an existing store to read: no lock, nothing written; the identity must be
        valid and of this kind (its parameters and version are not compared).
    lock_timeout, log
        As for :func:`infometer.core.parallel.dir_lock`.

    Examples
    --------
    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> with ResultStore(d, kind="demo", params={"k": 1}, files={"chunks": r"c\\d+\\.json"}) as st:
    ...     st.put_json("chunks/c0.json", {"v": 1.5})
    >>> with ResultStore(d, kind="demo", params={"k": 1}, files={"chunks": r"c\\d+\\.json"}) as st:
    ...     st.names("chunks"), st.get_json("chunks/c0.json")
    (['c0.json'], {'v': 1.5})
    """

    def __init__(
        self,
        path: str | os.PathLike,
        *,
        kind: str,
        params: Mapping[str, Any] | None,
        data: str | None = None,
        files: Mapping[str, str] | None = None,
        argument: str = "store",
        readonly: bool = False,
        lock_timeout: float | None = None,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.path = check_folder(path, argument)
        self.kind, self.readonly = kind, readonly
        self.label = f"{argument} {str(self.path)!r}"
        self._files = {
            ("." if f in ("", ".") else f.strip("/")): re.compile(rx)
            for f, rx in (files or {}).items()
        }
        self._names: dict[str, set[str]] = {f: set() for f in self._files}
        self._stack = contextlib.ExitStack()
        self._held: str | None = None
        try:
            if readonly:
                self._open_readonly(params)
            else:
                self._open(kind, params, data, lock_timeout, log)
            self._scan()
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------------ opening
    def _open_readonly(self, params: Mapping[str, Any] | None) -> None:
        if not self.path.is_dir():
            raise StoreError(f"{self.label} does not exist")
        ident = read_identity(self.path, self.label)
        if ident is None:
            raise self._no_identity(self._entries())
        if ident["kind"] != self.kind:
            raise refuse_other(self.label, ident, {**ident, "kind": self.kind})
        if params is not None:
            want = new_identity(self.kind, ident["data"], params)
            want["version"] = ident["version"]
            if differences(ident, want):
                raise refuse_other(self.label, ident, want)
        self.identity = ident

    def _open(self, kind, params, data, lock_timeout, log) -> None:
        from infometer.core.parallel import dir_lock

        if params is None:
            raise TypeError("params is required to open a store for writing")
        seed = params.get("seed", 0)
        if not isinstance(seed, numbers.Integral) or isinstance(seed, bool):
            raise StoreError(
                f"{self.label}: a store resumes by running again what is missing, which "
                f"seed={seed!r} (fresh random numbers each run) cannot repeat; give an int seed"
            )
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"{self.label} cannot be created ({exc.strerror or exc})") from None
        key = os.path.realpath(self.path)
        with _HELD_LOCK:
            if key in _HELD:
                raise StoreError(
                    f"{self.label} is already open in this process; close it (or finish the "
                    "run using it) before opening it again"
                )
            _HELD.add(key)
        self._held = key
        self._stack.enter_context(dir_lock(self.path / LOCK, timeout=lock_timeout, log=log))
        want = new_identity(kind, data, params)
        ident = read_identity(self.path, self.label)
        if ident is None:
            entries = self._entries()
            if entries:
                raise self._no_identity(entries)
            atomic_write(self.path / MANIFEST, json.dumps(want, indent=1).encode() + b"\n")
            ident = want
        elif ident["kind"] != kind or differences(ident, want):
            raise refuse_other(self.label, ident, want)
        self.identity = ident
        for folder in self._files:
            (self.path / folder).mkdir(exist_ok=True)

    def _entries(self) -> list[str]:
        names = [e for e in os.listdir(self.path) if e != LOCK and not is_temporary(e)]
        return sorted(names, key=lambda e: (e.startswith("."), e))  # hidden ones last

    def _no_identity(self, entries: list[str]) -> StoreError:
        more = f" and {len(entries) - 3} more" if len(entries) > 3 else ""
        shown = ", ".join(entries[:3]) + more
        return StoreError(
            f"{self.label} holds {shown or 'nothing'} but no {MANIFEST} (the identity of the "
            "analysis its results belong to): it was deleted, or the folder is not an "
            f"infometer store, so nothing in it can be matched to this {what(self.kind)}; use "
            "another folder, or empty this one"
        )

    def _scan(self) -> None:
        """Verify every stored file (a damaged one is refused before any work)."""
        for folder, rx in self._files.items():
            d = self.path / folder
            if not d.is_dir():
                continue
            for name in sorted(os.listdir(d)):
                if is_temporary(name):
                    if not self.readonly:  # a write cut off by a crash: never a result
                        with contextlib.suppress(OSError):
                            os.unlink(d / name)
                    continue
                if rx.fullmatch(name):
                    self._verified(d / name)
                    self._names[folder].add(name)

    # ------------------------------------------------------------------ the files
    @property
    def digest(self) -> str:
        """The checksum of this store's identity (each file's record names it)."""
        return self.identity["sha256"]

    def _resolve(self, relpath: str) -> tuple[str, str, Path]:
        folder, _, name = relpath.rpartition("/")
        folder = folder or "."
        rx = self._files.get(folder)
        if rx is None or not rx.fullmatch(name):
            raise ValueError(f"{relpath!r} is not a file name of this {what(self.kind)} store")
        return folder, name, self.path / folder / name

    def names(self, folder: str = ".") -> list[str]:
        """The stored (verified) file names in ``folder``, sorted."""
        return sorted(self._names.get(folder, ()))

    def has(self, relpath: str) -> bool:
        """Whether ``relpath`` (``"chunks/s3_c0.npz"``) is stored."""
        folder, name, _ = self._resolve(relpath)
        return name in self._names[folder]

    def put(self, relpath: str, data: bytes) -> None:
        """Store ``data`` as ``relpath``: the checksum record first, then the file, each
        atomically, so that a crash leaves the file complete and verifiable or absent."""
        if self.readonly:
            raise ValueError(f"{self.label} is open read-only")
        folder, name, path = self._resolve(relpath)
        if name in self._names[folder]:  # replaced: absent (never mismatched) until renamed
            path.unlink()
            self._names[folder].discard(name)
        record = {"file": name, "sha256": sha256(data), "bytes": len(data), "store": self.digest}
        atomic_write(sidecar_of(path), canonical_json(record))
        atomic_write(path, data)
        self._names[folder].add(name)

    def get(self, relpath: str) -> bytes:
        """The bytes of a stored file, verified against its checksum record."""
        folder, name, path = self._resolve(relpath)
        if name not in self._names[folder]:
            raise KeyError(relpath)
        return self._verified(path)

    def _verified(self, path: Path) -> bytes:
        side = sidecar_of(path)
        try:
            rec = json.loads(side.read_bytes())
        except FileNotFoundError:
            raise StoreError(
                f"{path} has no checksum record ({side.name}): it was not written by this "
                f"store (a foreign or copied file); {_REDO}"
            ) from None
        except (OSError, ValueError, UnicodeDecodeError):
            rec = None
        if not (
            isinstance(rec, dict)
            and set(rec) == {"file", "sha256", "bytes", "store"}
            and rec["file"] == path.name
        ):
            raise StoreError(
                f"{path}: its checksum record {side.name} is damaged; delete both and run "
                "again to recompute it"
            )
        if rec["store"] != self.digest:
            raise StoreError(
                f"{path} was written by another store (its checksum record names another "
                f"analysis); {_REDO}"
            )
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise StoreError(f"{path} cannot be read ({exc.strerror}); {_REDO}") from None
        if len(data) != rec["bytes"] or sha256(data) != rec["sha256"]:
            how = (
                f"{len(data)} of its {rec['bytes']} bytes"
                if len(data) != rec["bytes"]
                else "its checksum does not match"
            )
            raise StoreError(
                f"{path} is damaged ({how}: truncated or changed after it was written); {_REDO}"
            )
        return data

    # -- formats
    def put_json(self, relpath: str, obj: Any, indent: int | None = None) -> None:
        """Store ``obj`` as JSON."""
        self.put(relpath, _codecs.json_to_bytes(obj, indent))

    def get_json(self, relpath: str, required: Iterable[str] = ()) -> Any:
        """A stored JSON value (an object with the ``required`` keys)."""
        return _codecs.json_from_bytes(self.get(relpath), str(self.path / relpath), required)

    def put_arrays(self, relpath: str, arrays: Mapping[str, Any]) -> None:
        """Store numeric arrays as an ``.npz`` (never pickled)."""
        self.put(relpath, _codecs.arrays_to_bytes(arrays))

    def get_arrays(self, relpath: str, required: Iterable[str] = ()) -> dict[str, Any]:
        """Stored arrays (``allow_pickle=False``)."""
        return _codecs.arrays_from_bytes(self.get(relpath), str(self.path / relpath), required)

    def put_table(self, relpath: str, columns: Mapping[str, Any], metadata: Mapping) -> None:
        """Store pyarrow ``columns`` as a Parquet file with string ``metadata``."""
        self.put(relpath, _codecs.table_to_bytes(columns, metadata))

    def get_table(self, relpath: str, required: Iterable[str] = ()) -> Any:
        """A stored Parquet file as a ``pyarrow.Table``."""
        return _codecs.table_from_bytes(self.get(relpath), str(self.path / relpath), required)

    # ------------------------------------------------------------------ closing
    def close(self) -> None:
        """Release the lock (the files stay)."""
        self._stack.close()
        if self._held is not None:
            with _HELD_LOCK:
                _HELD.discard(self._held)
            self._held = None

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # a store dropped without close() still frees its folder
        with contextlib.suppress(Exception):
            self.close()


class KeyedSink:
    """A :class:`infometer.core.parallel.Sink` of one folder of a :class:`ResultStore`: job key
    -> one stored file.

    Parameters
    ----------
    store, folder
        Where the files go.
    name, key
        Job key -> file name, and back (``key`` returns None for a file of the folder that
        is not this sink's: several sinks may share a folder).
    format
        ``"npz"`` (a result is a dict of numeric arrays) or ``"json"``; or give ``encode``
        (result -> bytes) and ``decode`` (``(bytes, where)`` -> result; ``where`` names the
        file in errors) for another format.
    required
        Keys every stored result holds (a file without one is refused when read).

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> from infometer.core.parallel import run_jobs
    >>> st = ResultStore(tempfile.mkdtemp(), kind="demo", params={}, files={"c": r"\\d+\\.npz"})
    >>> sink = KeyedSink(st, "c", name="{}.npz".format, key=lambda n: int(n[:-4]))
    >>> run_jobs(np.ones, {2: 2, 3: 3}, sink, workers=1).complete, sink.get(3)["value"]
    (True, array([1., 1., 1.]))
    >>> st.close()
    """

    def __init__(
        self,
        store: ResultStore,
        folder: str,
        *,
        name: Callable[[Any], str],
        key: Callable[[str], Hashable | None],
        format: str = "npz",
        required: Iterable[str] = (),
        encode: Callable[[Any], bytes] | None = None,
        decode: Callable[[bytes, str], Any] | None = None,
    ) -> None:
        self.store, self.folder = store, folder
        self._name, self._key = name, key
        req = self._required = tuple(required)
        self._format = format if encode is None or decode is None else None
        if encode is None or decode is None:
            if format == "npz":
                encode = _as_npz
                decode = lambda data, where: _codecs.arrays_from_bytes(data, where, req)  # noqa: E731
            elif format == "json":
                encode = _codecs.json_to_bytes
                decode = lambda data, where: _codecs.json_from_bytes(data, where, req)  # noqa: E731
            else:
                raise ValueError(f"format must be 'npz' or 'json', got {format!r}")
        self._encode, self._decode = encode, decode

    def _rel(self, key: Any) -> str:
        return f"{self.folder}/{self._name(key)}"

    def done_keys(self) -> list[Hashable]:
        """Keys of the stored results."""
        keys = (self._key(n) for n in self.store.names(self.folder))
        return [k for k in keys if k is not None]

    def add(self, key: Hashable, result: Any) -> None:
        """Store one result (atomically, with its checksum)."""
        self.store.put(self._rel(key), self._encode(result))

    def get(self, key: Hashable, shapes: Mapping[str, tuple[int, ...]] | None = None) -> Any:
        """One stored result, verified (``shapes``: of its arrays, ``"npz"`` format)."""
        rel = self._rel(key)
        data, where = self.store.get(rel), str(self.store.path / rel)
        if shapes is not None and self._format == "npz":
            return _codecs.arrays_from_bytes(data, where, self._required, shapes)
        return self._decode(data, where)


def _as_npz(result: Any) -> bytes:
    if not isinstance(result, Mapping):  # one array: stored as "value"
        result = {"value": result}
    return _codecs.arrays_to_bytes(result)
