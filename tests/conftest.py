"""Suite-wide guard: no ``pytest.approx`` tolerance may be NaN or infinite.

A NaN tolerance (e.g. ``sqrt`` of a -1e-16 that is 0 in exact arithmetic) makes a
comparison fail on one machine and pass on another; an infinite one makes it pass
always.  ``pytest.approx`` is wrapped once here, before any test module runs, so every
call in the suite is checked (see ``tests/_tol.py`` for the helpers tests use to build
tolerances from computed quantities).
"""

from __future__ import annotations

import functools
from typing import Any

import pytest

from tests._tol import check_tolerance

_approx = pytest.approx


@functools.wraps(_approx)
def _checked_approx(expected: Any, rel: Any = None, abs: Any = None, nan_ok: bool = False) -> Any:  # noqa: A002
    if rel is not None:
        check_tolerance(rel, "pytest.approx rel")
    if abs is not None:
        check_tolerance(abs, "pytest.approx abs")
    return _approx(expected, rel=rel, abs=abs, nan_ok=nan_ok)


if not getattr(pytest.approx, "_tolerance_checked", False):
    _checked_approx._tolerance_checked = True  # type: ignore[attr-defined]
    pytest.approx = _checked_approx
