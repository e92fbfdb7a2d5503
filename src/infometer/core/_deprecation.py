"""Deprecation aliases: a renamed public function keeps its old name for one release.

Examples
--------
>>> import warnings
>>> def new_name(x):
...     return x + 1
>>> old_name = deprecated_alias(new_name, "old_name")
>>> with warnings.catch_warnings(record=True) as w:
...     warnings.simplefilter("always")
...     old_name(1), w[0].category.__name__
(2, 'DeprecationWarning')
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

__all__ = ["deprecated_alias", "REMOVED_IN"]

#: The release in which the deprecated names go.
REMOVED_IN = "0.2.0"


def deprecated_alias(func: Callable[..., Any], old: str) -> Callable[..., Any]:
    """``func`` under its former name ``old``: the same call, with a ``DeprecationWarning``
    (at the caller's line) naming the new name."""
    new = func.__name__

    @functools.wraps(func)
    def alias(*args: Any, **kwargs: Any) -> Any:
        warnings.warn(
            f"{old} is deprecated and goes in infometer {REMOVED_IN}; use {new} (same arguments)",
            DeprecationWarning,
            stacklevel=2,
        )
        return func(*args, **kwargs)

    alias.__name__ = alias.__qualname__ = old
    alias.__deprecated__ = new  # type: ignore[attr-defined]
    alias.__doc__ = f"Deprecated alias of :func:`{new}` (goes in {REMOVED_IN})."
    return alias
