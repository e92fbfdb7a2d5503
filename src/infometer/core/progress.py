"""Progress bars: one helper and one ``progress=`` convention for the whole library.

Every long loop (permutations, resamples, training steps, pairs, targets, probes...)
draws its bar through :func:`progress_bar`, and every public function that runs one
takes ``progress: bool | None = None``:

* ``True``: always draw a bar (on stderr);
* ``False``: never;
* ``None`` (default): draw one when stderr is a terminal and the work is expected to be
  long (``expected_seconds`` >= :data:`AUTO_SECONDS` when the caller knows it).

:func:`quiet` (the CLI's ``--quiet``) silences every bar, ``progress=True`` included, as
does the environment variable ``INFOMETER_QUIET=1``.

Examples
--------
>>> from infometer.core.progress import progress_bar
>>> total = 0
>>> with progress_bar(total=3, desc="work", progress=False) as bar:
...     for i in range(3):
...         total += i
...         bar.update(1)
>>> total
3
>>> sum(progress_bar(range(4), desc="items", progress=False))
6
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["check_progress", "show", "progress_bar", "quiet", "is_quiet", "AUTO_SECONDS"]

#: With ``progress=None``, a bar is drawn for work expected to take at least this long.
AUTO_SECONDS = 2.0

_quiet_depth = 0


def is_quiet() -> bool:
    """Whether bars are silenced (inside :func:`quiet`, or ``INFOMETER_QUIET=1``)."""
    return _quiet_depth > 0 or os.environ.get("INFOMETER_QUIET", "") not in ("", "0")


@contextmanager
def quiet(enabled: bool = True) -> Iterator[None]:
    """Within this block no progress bar is drawn (the CLI's ``--quiet``).

    Examples
    --------
    >>> with quiet():
    ...     show(True)
    False
    """
    global _quiet_depth
    if not enabled:
        yield
        return
    _quiet_depth += 1
    try:
        yield
    finally:
        _quiet_depth -= 1


def check_progress(progress: Any, name: str = "progress") -> bool | None:
    """``True``, ``False`` or ``None``; anything else (``"yes"``, 1) is a ``TypeError``.

    Examples
    --------
    >>> check_progress(None) is None
    True
    """
    from infometer.core.validation import check_bool

    return check_bool(progress, name, allow_none=True)


def show(progress: bool | None, *, expected_seconds: float | None = None) -> bool:
    """Whether to draw a bar under the convention above.

    Examples
    --------
    >>> show(False)
    False
    """
    progress = check_progress(progress)
    if is_quiet() or progress is False:
        return False
    if progress:
        return True
    if expected_seconds is not None and expected_seconds < AUTO_SECONDS:
        return False
    return bool(getattr(sys.stderr, "isatty", lambda: False)())


class _NoBar:
    """What :func:`progress_bar` returns when no bar is drawn: the same methods, no output."""

    def __init__(self, iterable: Iterable[Any] | None = None) -> None:
        self._iterable = iterable
        self.n = 0

    def __iter__(self) -> Iterator[Any]:
        if self._iterable is None:
            raise TypeError("this progress bar was made without an iterable")
        return iter(self._iterable)

    def update(self, n: int = 1) -> None:
        self.n += n

    def set_postfix(self, *args: Any, **kwargs: Any) -> None:
        pass

    def set_description(self, *args: Any, **kwargs: Any) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def progress_bar(
    iterable: Iterable[Any] | None = None,
    *,
    total: int | None = None,
    desc: str,
    unit: str = "it",
    progress: bool | None = None,
    leave: bool = False,
    initial: int = 0,
    expected_seconds: float | None = None,
) -> Any:
    """A tqdm bar on stderr, or a silent stand-in with the same methods (``update``,
    ``close``, ``set_postfix``, iteration, ``with``), as :func:`show` decides.

    Examples
    --------
    >>> bar = progress_bar(total=10, desc="steps", progress=False)
    >>> bar.update(10); bar.close()
    """
    if not show(progress, expected_seconds=expected_seconds):
        return _NoBar(iterable)
    from tqdm.auto import tqdm

    return tqdm(
        iterable, total=total, desc=desc, unit=unit, leave=leave, initial=initial, file=sys.stderr
    )
