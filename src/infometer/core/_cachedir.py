"""Where infometer's compiled kernels are cached (see :mod:`infometer.core.jit`); imports
nothing heavy, so the kNN engine can look for its cache without loading numba."""

from __future__ import annotations

import os
import sys

__all__ = ["cache_dir", "configure"]


def cache_dir() -> str:
    """The directory for infometer's compiled kernels (not created here): ``numba`` in the
    user cache directory of the platform, as ``platformdirs`` finds it (``$XDG_CACHE_HOME``
    or ``~/.cache`` on Linux, ``~/Library/Caches`` on macOS, ``%LOCALAPPDATA%`` on Windows).
    ``NUMBA_CACHE_DIR``, when set, wins (see :func:`configure`)."""
    from platformdirs import user_cache_dir

    return os.path.join(user_cache_dir("infometer", appauthor=False), "numba")


def configure() -> None:
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
