"""The progress bar over targets: the shared service when present, else a silent one."""

from __future__ import annotations

import contextlib
from typing import Any


class _Silent:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self) -> _Silent:
        return self

    def __exit__(self, *exc: Any) -> None:
        pass


def bar(*, total: int, desc: str, unit: str, progress: bool | None) -> Any:
    """``infometer.progress.progress_bar`` (a context manager with ``update``)."""
    try:
        from ..progress import progress_bar
    except ImportError:  # the shared service is not merged in yet
        return _Silent() if not progress else _tqdm(total, desc, unit)
    return progress_bar(total=total, desc=desc, unit=unit, progress=progress)


def _tqdm(total: int, desc: str, unit: str) -> Any:
    from tqdm.auto import tqdm

    t = tqdm(total=total, desc=desc, unit=unit, leave=False)
    return contextlib.closing(t) if not hasattr(t, "__enter__") else t
