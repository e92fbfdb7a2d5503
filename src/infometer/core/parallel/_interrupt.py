"""Ctrl-C during a run: the first stops submitting, the second aborts."""

from __future__ import annotations

import signal
import threading
from typing import Any

POLL_S = 0.2  # how often waits wake up to notice Ctrl-C, dead workers, lock release


class StopRequest:
    """First Ctrl-C: finish the runs in flight, stop.  Second: KeyboardInterrupt."""

    def __init__(self, enabled: bool) -> None:
        self.requested = False
        self._enabled = enabled and threading.current_thread() is threading.main_thread()
        self._prev: Any = None

    def _handler(self, signum: int, frame: object) -> None:
        self.requested = True
        signal.signal(signal.SIGINT, signal.default_int_handler)

    def __enter__(self) -> StopRequest:
        if self._enabled:
            self._prev = signal.getsignal(signal.SIGINT)
            signal.signal(signal.SIGINT, self._handler)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._enabled:
            signal.signal(signal.SIGINT, self._prev)


class Interrupted(Exception):
    pass
