"""numba, imported with an on-disk cache that works for any install.

numba caches compiled kernels (``cache=True``) next to their source by default, which
fails when the package is installed read-only (a system-wide install); numba then falls
back to a directory of its own.  infometer sets ``NUMBA_CACHE_DIR`` to a user cache
directory of its own instead, before numba is first imported, unless the user has set it:
``$XDG_CACHE_HOME/infometer/numba`` (``~/.cache/...``) on Linux,
``~/Library/Caches/infometer/numba`` on macOS, ``%LOCALAPPDATA%\\infometer\\numba`` on
Windows.  When that directory cannot be created, numba's own behaviour is left as it is.

Modules with compiled kernels import numba as ``from ..jit import nb``; this module is
imported only by them, never by ``import infometer``.
"""

from __future__ import annotations

import os
import sys

__all__ = ["cache_dir", "nb"]


def cache_dir() -> str:
    """The directory for infometer's compiled kernels (not created here)."""
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.expanduser(r"~\AppData\Local")
    elif sys.platform == "darwin":
        base = os.path.expanduser("~/Library/Caches")
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return os.path.join(base, "infometer", "numba")


def _configure() -> None:
    """Point ``NUMBA_CACHE_DIR`` at :func:`cache_dir` unless the user has set it."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    path = cache_dir()
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        return
    if not os.access(path, os.W_OK):
        return
    os.environ["NUMBA_CACHE_DIR"] = path
    if "numba" in sys.modules:  # imported before infometer: numba reads the setting now
        sys.modules["numba"].config.CACHE_DIR = path


_configure()

import numba as nb  # noqa: E402  (after the cache directory is set)
