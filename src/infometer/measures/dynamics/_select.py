"""Moved to :mod:`infometer.measures.timeseries._select` (issue 25: transfer entropy's ``k="auto"``
needs the history selection, and timeseries sits below dynamics); this name forwards to it
for the network-inference modules that import it from here."""

from typing import Any

from infometer.measures.timeseries import _select as _impl
from infometer.measures.timeseries._select import *  # noqa: F403

__all__ = list(_impl.__all__)


def __getattr__(name: str) -> Any:
    return getattr(_impl, name)
