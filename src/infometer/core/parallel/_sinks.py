"""Sinks: where :func:`~infometer.core.parallel.run_jobs` puts results (the protocol and a
dict-backed one)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class Sink(Protocol):
    """Where results go.  Called only from the thread that called :func:`run_jobs`."""

    def done_keys(self) -> Iterable[Hashable]:
        """Keys whose results are already held (skipped at the start, checked at the end)."""
        ...

    def add(self, key: Hashable, result: Any) -> None:
        """Keep one result (make it durable before returning if it must survive a crash)."""
        ...


class MemorySink:
    """A :class:`Sink` that keeps results in the dict :attr:`results`."""

    def __init__(self) -> None:
        self.results: dict[Hashable, Any] = {}

    def done_keys(self) -> Iterable[Hashable]:
        return self.results.keys()

    def add(self, key: Hashable, result: Any) -> None:
        self.results[key] = result
