""":class:`Execution`: where and how a fan-out of work runs, described once and checked once.

``infometer.pairwise``, ``infometer.workflows.bench.run_sweep`` and
:func:`~infometer.core.parallel.run_jobs`
take ``execution=Execution(...)``; their older keywords (``n_jobs=``, ``backend=``,
``client=``, ``store=``; ``workers=``, ``scheduler=``) are shorthands that build one.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Any

from infometer.core.progress import check_progress
from infometer.core.validation import check_budget, check_choice, check_float, check_int

__all__ = ["Execution", "BACKENDS"]

#: ``threads`` (in this process), ``processes`` (spawned local workers), ``dask``.
BACKENDS = ("threads", "processes", "dask")

#: Most local workers one call may start (each is an interpreter of its own).
MAX_WORKERS = 4096


@dataclass(frozen=True)
class Execution:
    """Where and how work runs: local threads or processes, or a Dask cluster.

    Parameters
    ----------
    n_jobs
        Local workers (threads or processes); ``None``: all cores; ``1``: in this process.
        Ignored on Dask.
    backend
        ``"threads"``, ``"processes"`` or ``"dask"``; ``None``: the caller's default
        (threads for ``pairwise``, processes for ``bench``), or Dask when ``scheduler``
        is given.
    scheduler
        A Dask scheduler address (``"tcp://host:8786"``) or a ``distributed.Client`` (used
        as is and left open).  With ``backend="dask"`` and no scheduler, the current
        ``distributed`` client.
    store
        Folder of a resumable result store (``pairwise``: Parquet blocks; ``bench`` takes
        its :class:`~infometer.workflows.bench.Store` as an argument and leaves this ``None``).
    progress
        Progress bar: ``True``, ``False`` or ``None`` (the shared default).
    retries
        Re-runs of a job whose worker died or whose Dask result was lost.
    connect_timeout
        Seconds to reach ``scheduler`` before ``SchedulerUnreachable``.

    Examples
    --------
    >>> from infometer.core.parallel import Execution
    >>> ex = Execution(n_jobs=2)
    >>> ex.resolve_backend("threads"), ex.workers
    ('threads', 2)
    >>> Execution(scheduler="tcp://127.0.0.1:8786").resolve_backend("threads")
    'dask'
    """

    n_jobs: int | None = None
    backend: str | None = None
    scheduler: Any = None
    store: str | os.PathLike | None = None
    progress: bool | None = None
    retries: int = 2
    connect_timeout: float = 5.0

    def __post_init__(self) -> None:

        if self.n_jobs is not None:
            object.__setattr__(self, "n_jobs", check_int(self.n_jobs, "n_jobs", min_value=1))
            check_budget(
                self.n_jobs,
                name="n_jobs",
                limit=MAX_WORKERS,
                what="local worker processes",
                override="run on a Dask scheduler for more",
            )
        if self.backend is not None:
            check_choice(self.backend, "backend", BACKENDS)
            if self.scheduler is not None and self.backend != "dask":
                raise ValueError(
                    f"backend={self.backend!r} with scheduler={self.scheduler!r}: a scheduler "
                    "runs on Dask; pass backend='dask' or leave backend out"
                )
        if self.store is not None and not isinstance(self.store, str | os.PathLike):
            raise TypeError(
                f"store must be a folder path (str or os.PathLike), got {type(self.store).__name__}"
            )
        object.__setattr__(self, "progress", check_progress(self.progress))
        object.__setattr__(self, "retries", check_int(self.retries, "retries", min_value=0))
        object.__setattr__(
            self,
            "connect_timeout",
            check_float(self.connect_timeout, "connect_timeout", low=0.0, inclusive=(False, True)),
        )

    @property
    def workers(self) -> int:
        """Local worker count: ``n_jobs``, or every core."""
        return self.n_jobs if self.n_jobs is not None else os.cpu_count() or 1

    def resolve_backend(self, default: str) -> str:
        """The backend this runs on, with ``default`` standing for ``backend=None``."""
        if self.scheduler is not None:
            return "dask"
        return self.backend or default

    def replace(self, **changes: Any) -> Execution:
        """A copy with some fields changed (checked again)."""
        return dataclasses.replace(self, **changes)

    def run_jobs_kwargs(self, default: str = "processes") -> dict[str, Any]:
        """The keywords of :func:`~infometer.core.parallel.run_jobs` that this describes."""
        backend = self.resolve_backend(default)
        return {
            "workers": self.workers,
            "scheduler": self.scheduler if backend == "dask" else None,
            "pool": "threads" if backend == "threads" else "processes",
            "retries": self.retries,
            "connect_timeout": self.connect_timeout,
        }

    @classmethod
    def from_keywords(
        cls,
        execution: Execution | None,
        func: str,
        defaults: dict[str, Any] | None = None,
        **given: tuple[str, Any, Any],
    ) -> Execution:
        """``execution``, or one built from a function's older keywords.

        ``given`` maps the function's keyword to ``(field, value, default)``, its default
        being the value that means "not given".  A keyword that differs from its default
        beside ``execution=`` is a ``TypeError`` naming both (one source of truth for
        where work runs).  ``defaults`` are the fields a function uses when neither says
        otherwise (e.g. ``{"n_jobs": 1}`` for one that runs in process unless asked).

        Examples
        --------
        >>> Execution.from_keywords(None, "f", workers=("n_jobs", 3, None)).n_jobs
        3
        >>> Execution.from_keywords(None, "f", {"n_jobs": 1}, n_jobs=("n_jobs", 1, 1)).n_jobs
        1
        """
        changed = {k: (f, v) for k, (f, v, d) in given.items() if v is not d and v != d}
        if execution is None:
            return cls(**{**(defaults or {}), **dict(changed.values())})
        if not isinstance(execution, Execution):
            raise TypeError(
                f"execution must be an infometer.Execution, got {type(execution).__name__}"
            )
        if changed:
            raise TypeError(
                f"{func}() got execution= and {', '.join(f'{k}=' for k in changed)}; "
                f"put {'them' if len(changed) > 1 else 'it'} in the Execution"
            )
        return execution
