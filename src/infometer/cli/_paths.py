"""Output paths of the CLI, checked before any work (reading data, training, computing).

Every command that writes (``-o/--out`` folders, ``--plot``/``--out`` files) calls one of
these first, so an unwritable place fails in a second with one ``error:`` line naming the
option, not after minutes of work with an ``OSError`` or an internal error.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["check_out_dir", "check_out_file"]


def _existing_parent(path: Path) -> Path:
    p = path.absolute().parent
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def check_out_dir(path: str | os.PathLike[str] | None, option: str) -> None:
    """A folder the command may create or write into; ``ValueError`` naming ``option``.

    Examples
    --------
    >>> check_out_dir(".", "--out")
    """
    if path is None:
        return
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise ValueError(f"{option} {str(path)!r} is a file; give a folder")
    probe = p if p.is_dir() else _existing_parent(p)
    if not probe.is_dir():
        raise ValueError(f"{option} {str(path)!r}: {str(probe)!r} is not a folder")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise ValueError(f"{option} {str(path)!r}: {str(probe)!r} is not writable")


def check_out_file(path: str | os.PathLike[str] | None, option: str) -> None:
    """A file the command may write: not a folder, in an existing writable folder (an
    existing file must be writable too); ``ValueError`` naming ``option``.

    Examples
    --------
    >>> check_out_file("plot.png", "--plot")
    """
    if path is None:
        return
    p = Path(path)
    if p.is_dir():
        raise ValueError(f"{option} {str(path)!r} is a folder; give a file name")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise ValueError(f"{option} {str(path)!r}: folder {str(parent)!r} does not exist")
    if not os.access(parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise ValueError(
            f"{option} {str(path)!r}: {str(p if p.exists() else parent)!r} is not writable"
        )
