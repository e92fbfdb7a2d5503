"""The inter-process lock: one run per output at a time (an ``flock`` the kernel drops
when its holder dies)."""

from __future__ import annotations

import contextlib
import datetime as _dt
import os
import platform
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from ._interrupt import POLL_S, Interrupted, StopRequest


class LockTimeout(TimeoutError):
    """Another process held the lock longer than ``lock_timeout``."""


def _lock_file(fd: int) -> bool:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False


@contextlib.contextmanager
def dir_lock(
    path: str | Path,
    *,
    timeout: float | None = None,
    log: Callable[[str], None] | None = None,
    _stop: StopRequest | None = None,
) -> Iterator[Path]:
    """Hold an exclusive lock on ``path`` (created if missing, with its folder) for the
    ``with`` block.

    Waits while another process holds it (``log`` is told who, once); raises
    :class:`LockTimeout` after ``timeout`` seconds.  The lock is an ``flock`` on an open
    file: the kernel releases it when the holder exits or is killed.  The file itself
    is left in place (removing lock files races with the next locker).  On systems
    without ``fcntl`` the block runs unlocked.
    """
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)  # lock="out/.lock" before out/ exists
    fd = os.open(p, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        if not _lock_file(fd):
            os.lseek(fd, 0, os.SEEK_SET)
            holder = os.read(fd, 300).decode("utf-8", "replace").strip() or "another process"
            if log is not None:
                log(f"{p} is locked by {holder}; waiting for it to finish")
            t0 = time.monotonic()
            while not _lock_file(fd):
                if _stop is not None and _stop.requested:
                    raise Interrupted
                if timeout is not None and time.monotonic() - t0 > timeout:
                    raise LockTimeout(f"{p} is still locked by {holder} after {timeout:g} s")
                time.sleep(POLL_S)
        now = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, f"pid {os.getpid()} on {platform.node()} since {now}\n".encode())
        yield p
    finally:
        os.close(fd)
