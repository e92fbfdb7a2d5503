"""Durable files: atomic writes (temporary name, ``fsync``, rename, ``fsync`` of the folder)
and the checksum record that goes with every stored file."""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from pathlib import Path

__all__ = ["atomic_write", "sha256", "is_temporary", "sidecar_of"]

#: Temporary files of :func:`atomic_write` start with a dot and end with this.
TMP_SUFFIX = ".tmp"
#: The checksum record of ``NAME`` is ``.NAME`` + this, in the same folder.
SUM_SUFFIX = ".sha256"


def sha256(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def is_temporary(name: str) -> bool:
    """A file :func:`atomic_write` was writing when its process died (safe to remove while
    the store's lock is held)."""
    return name.startswith(".") and name.endswith(TMP_SUFFIX)


def sidecar_of(path: Path) -> Path:
    """Where the checksum record of ``path`` lives (a hidden file beside it, so that readers
    of a folder of Parquet blocks, which skip hidden files, see only the blocks)."""
    return path.with_name(f".{path.name}{SUM_SUFFIX}")


def fsync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (a no-op where folders cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - not POSIX
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - some file systems refuse fsync on folders
        pass
    finally:
        os.close(fd)


def atomic_write(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` so that ``path`` is either the old file or the new one,
    whatever happens to the process: a temporary file in the same folder, ``fsync``,
    ``os.replace`` onto ``path``, ``fsync`` of the folder.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.bin"
    >>> atomic_write(p, b"abc"); p.read_bytes()
    b'abc'
    """
    p = Path(path)
    tmp = p.with_name(f".{p.name}.{secrets.token_hex(6)}{TMP_SUFFIX}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask applies
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    fsync_folder(p.parent)


def canonical_json(obj: object) -> bytes:
    """The bytes a checksum is taken of: sorted keys, no spaces, floats as ``repr``."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=True).encode()
