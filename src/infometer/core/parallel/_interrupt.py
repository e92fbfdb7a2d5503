"""Ctrl-C during a run: the first stops submitting, the second aborts."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
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

    @contextlib.contextmanager
    def immediate(self) -> Iterator[None]:
        """Ctrl-C raises ``KeyboardInterrupt`` at once inside this block: jobs run in the
        calling process have no worker to wait for, so the first Ctrl-C stops the job it
        interrupts (a target of a network can take minutes) instead of waiting for it."""
        if not self._enabled:
            yield
            return
        signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, self._handler)


class Interrupted(Exception):
    pass
