"""How many threads the compiled kernels may use (one answer for every family).

Examples
--------
>>> from infometer.core._threads import n_threads
>>> n_threads() >= 1
True
"""

from __future__ import annotations

import os

__all__ = ["n_threads"]


def n_threads() -> int:
    """Threads the kernels use: ``NUMBA_NUM_THREADS`` if set, else the usable CPU cores."""
    env = os.environ.get("NUMBA_NUM_THREADS", "")
    if env.strip().isdigit() and int(env) > 0:
        return int(env)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1
