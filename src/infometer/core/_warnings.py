"""Warnings that point at the user's line: ``warn_user`` finds the first stack frame
outside the ``infometer`` package and warns there (Python's ``stacklevel`` counted for
you, however deep the call came from)."""

from __future__ import annotations

import os
import sys
import warnings

from infometer.core.data import InfometerWarning

__all__ = ["user_stacklevel", "warn_user"]

#: The infometer package (this file is in its ``core`` layer): frames under it are ours.
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def user_stacklevel() -> int:
    """The ``stacklevel`` (for a ``warnings.warn`` called by the caller of this function)
    that names the first frame outside infometer: the user's line.

    Examples
    --------
    >>> user_stacklevel() >= 1
    True
    """
    level = 1
    frame = sys._getframe(1)  # the function that will call warnings.warn
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame = frame.f_back
        level += 1
    return level


def warn_user(message: str, category: type[Warning] | None = None) -> None:
    """``warnings.warn(message, category)`` attributed to the user's line.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     warn_user("look here")
    >>> seen[0].filename.endswith("_warnings.py")
    False
    """
    if category is None:
        category = InfometerWarning
    warnings.warn(message, category, stacklevel=user_stacklevel())
