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

from infometer.core._cachedir import cache_dir, configure

__all__ = ["cache_dir", "nb"]

configure()

import numba as nb  # noqa: E402  (after the cache directory is set)
