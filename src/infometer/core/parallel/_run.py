"""The run loop: :func:`run_jobs` checks its arguments, takes the lock, runs the plan on
one back end (in process, threads, local processes, Dask) and compares it with the sink."""

from __future__ import annotations

import collections
import contextlib
import numbers
import os
from collections.abc import Callable, Hashable, Mapping
from pathlib import Path
from typing import Any

from infometer.core._threads import limit_blas
from infometer.core.progress import progress_bar
from infometer.core.validation import (
    Flag,
    Instance,
    Interval,
    Size,
    check_float,
    check_int,
    validate_params,
)

from ._dask import connect, run_dask
from ._execution import Execution
from ._interrupt import POLL_S, Interrupted, StopRequest
from ._local import LocalPool
from ._locks import dir_lock
from ._outcome import Outcome, Progress, describe_error
from ._sinks import Sink


def _check_picklable(func: Callable[[Any], Any], jobs: Mapping[Hashable, Any]) -> None:
    """Worker processes receive ``func`` and each payload by pickle: a lambda, a local
    function or an open file would fail inside the pool; refuse them first, naming them."""
    import pickle

    key = next(iter(jobs))
    for name, obj in (("func", func), (f"jobs[{key!r}]", jobs[key])):
        try:
            pickle.dumps(obj)
        except Exception as exc:  # noqa: BLE001 - pickle raises many types
            raise TypeError(
                f"{name} cannot be pickled for worker processes ({type(exc).__name__}: "
                f"{exc}); use a module-level function and plain payloads, or "
                "Execution(backend='threads')"
            ) from None


@validate_params(
    {
        "func": [Instance(Callable, what="a function of one payload")],
        "jobs": [Instance(Mapping, what="a mapping key -> payload")],
        "progress": [Flag(), Instance(Callable, what="a function of a Progress"), None],
        "log": [Instance(Callable, what="a function of one message"), None],
        "lock": [Instance(str, os.PathLike, what="a lock file path"), None],
        "lock_timeout": [Interval(numbers.Real, 0), None],
        "threads_per_worker": [Size(1, limit=1024, what="threads per worker")],
        "initializer": [Instance(Callable, what="a function"), None],
        "initargs": [Instance(tuple, what="a tuple of arguments")],
        "interruptible": [Flag()],
    }
)
def run_jobs(
    func: Callable[[Any], Any],
    jobs: Mapping[Hashable, Any],
    sink: Sink,
    *,
    execution: Any = None,
    n_jobs: int | None = None,
    progress: Callable[[Progress], None] | bool | None = None,
    log: Callable[[str], None] | None = None,
    lock: str | Path | None = None,
    lock_timeout: float | None = None,
    threads_per_worker: int = 1,
    initializer: Callable[..., None] | None = None,
    initargs: tuple = (),
    interruptible: bool = True,
) -> Outcome:
    """Run ``func(payload)`` for each planned job the sink lacks; store results as they come.

    Parameters
    ----------
    func
        Picklable (module-level) function of one payload; its return value goes to the sink.
    jobs
        The plan: ``key -> payload``.  Keys are the sink's keys; payloads must pickle.
    sink
        A :class:`Sink`.  Keys it already holds are skipped; at the end the plan is
        checked against it.
    execution
        An :class:`~infometer.core.parallel.Execution`: where the jobs run (its ``n_jobs``;
        ``backend`` ``"processes"`` (spawned interpreters, the default), ``"threads"``
        (for functions that release the GIL; a thread cannot be lost, so nothing is
        retried) or ``"dask"``; ``scheduler``, a Dask address or ``distributed.Client``;
        ``retries``, re-runs of a job whose worker died or whose result was lost;
        ``connect_timeout``; its progress bar).  Default: ``Execution()``, local processes
        on every core.
    n_jobs
        Shorthand for ``Execution(n_jobs=...)``: local workers (``1``: in the calling
        process); beside ``execution`` it is a ``TypeError``.
    progress
        Called with a :class:`Progress` after each finished job, or ``True`` for a
        progress bar (:func:`infometer.core.progress.progress_bar`).
    log
        Called with one-line messages: lost workers, resubmissions, waiting for the lock.
    lock
        Path of a lock file shared by runs that write the same sink (see the module
        docstring).  ``None``: no lock.
    lock_timeout
        Give up waiting for the lock after this many seconds (:class:`LockTimeout`).
    threads_per_worker
        BLAS/OpenMP/numba threads per local worker process (set in its environment), and
        BLAS threads while a thread pool runs (``pool="threads"``).
    initializer, initargs
        Called once in each local worker process before its first job.
    interruptible
        Handle Ctrl-C as described in the module docstring (main thread only).

    Returns
    -------
    Outcome
        ``missing`` lists every planned key the sink lacks at the end, with the reason.

    Raises
    ------
    SchedulerUnreachable, LockTimeout, WorkerStartError
        Before any job runs.  Exceptions raised by ``sink.add`` propagate (after the
        workers are stopped).

    Examples
    --------
    >>> from infometer.core.parallel import Execution, MemorySink
    >>> sink = MemorySink()
    >>> run_jobs(abs, {"a": -1}, sink, execution=Execution(n_jobs=1)).complete, sink.results
    (True, {'a': 1})
    """
    ex = Execution.from_keywords(execution, "run_jobs", n_jobs=("n_jobs", n_jobs, None))
    kw = ex.run_jobs_kwargs("processes")
    workers, scheduler, pool = kw["workers"], kw["scheduler"], kw["pool"]
    retries, connect_timeout = kw["retries"], kw["connect_timeout"]
    if progress is None and ex.progress:
        progress = True
    threads_per_worker = check_int(threads_per_worker, "threads_per_worker", min_value=1)
    if lock_timeout is not None:
        lock_timeout = check_float(lock_timeout, "lock_timeout", low=0.0)
    if workers is None:
        workers = os.cpu_count() or 1
    if lock is not None and Path(lock).is_dir():
        raise ValueError(
            f"lock {str(lock)!r} is a folder; pass the path of a lock file, e.g. "
            f"{str(Path(lock) / '.lock')!r}"
        )
    for name, obj in (("add", sink), ("done_keys", sink)):
        if not callable(getattr(obj, name, None)):
            raise TypeError(f"sink must have a {name}() method (see infometer.core.parallel.Sink)")

    if scheduler is None and pool == "processes" and workers > 1 and jobs:
        _check_picklable(func, jobs)
    client = owned = None
    if scheduler is not None:  # before taking the lock: an unreachable cluster fails at once
        client, owned = connect(scheduler, timeout=connect_timeout)
    stop = StopRequest(interruptible)
    outcome = Outcome(planned=len(jobs))
    try:
        with (
            stop,
            (
                dir_lock(lock, timeout=lock_timeout, log=log, _stop=stop)
                if lock
                else contextlib.nullcontext()
            ),
        ):
            run = _Run(func, jobs, sink, outcome, retries, progress, log, stop)
            try:
                if run.todo:
                    if client is not None:
                        run.on_dask(client)
                    elif workers == 1:
                        run.in_process()
                    elif pool == "threads":
                        run.on_threads(workers, threads_per_worker)
                    else:
                        run.on_processes(workers, threads_per_worker, initializer, initargs)
            except KeyboardInterrupt:  # the second Ctrl-C: workers were stopped at once
                outcome.interrupted = True
            finally:
                run.close_bar()
            outcome.interrupted = outcome.interrupted or stop.requested
            held = set(sink.done_keys())
            for key in jobs:
                if key not in held:
                    outcome.missing[key] = run.why_missing(key)
    except Interrupted:  # Ctrl-C while waiting for the lock
        outcome.interrupted = True
        held = set(sink.done_keys())
        outcome.missing = {
            k: "not run: interrupted while waiting for the lock" for k in jobs if k not in held
        }
    finally:
        if owned:
            client.close()
    return outcome


class _Run:
    """State of one :func:`run_jobs` call: the queue, attempts, outcome, progress."""

    def __init__(self, func, jobs, sink, outcome, retries, progress, log, stop) -> None:
        self.func, self.jobs, self.sink, self.out = func, jobs, sink, outcome
        self.retries, self.log, self.stop = retries, log, stop
        held = set(sink.done_keys())
        self.todo = [k for k in jobs if k not in held]
        outcome.already_done = len(jobs) - len(self.todo)
        self.attempts: collections.Counter = collections.Counter()
        self.gave_up: dict[Hashable, str] = {}
        self.finished = 0
        self._bar = None
        self._cb: Callable[[Progress], None] | None = None
        if callable(progress):
            self._cb = progress
        elif progress is True:
            bar = progress_bar(total=len(self.todo), desc="jobs", unit="job", progress=True)
            self._bar = bar
            self._cb = lambda p: bar.update(p.done - bar.n)

    def close_bar(self) -> None:
        if self._bar is not None:
            self._bar.close()

    def _say(self, msg: str) -> None:
        if self.log is not None:
            self.log(msg)

    def deliver(self, key: Hashable, ok: bool, value: Any) -> None:
        """A job finished: its result to the sink, or its error to the outcome."""
        if ok:
            self.sink.add(key, value)
            self.out.ran += 1
            self.out.errors.pop(key, None)
        else:
            self.out.errors[key] = value
        self.finished += 1
        if self._cb is not None:
            self._cb(Progress(self.finished, len(self.todo), key, ok, self.out.retried))

    def lost(self, key: Hashable, why: str) -> bool:
        """A job's worker or result was lost; True when it should be re-run."""
        self.attempts[key] += 1
        if self.attempts[key] > self.retries:
            n = self.attempts[key]
            self.gave_up[key] = f"lost: {why}; gave up after {n} attempt{'s' * (n > 1)}"
            self._say(f"giving up on {key!r}: {why}, on each of {n} attempt(s)")
            return False
        self.out.retried += 1
        self._say(
            f"{why} running {key!r}; running it again "
            f"(retry {self.attempts[key]} of {self.retries})"
        )
        return True

    def why_missing(self, key: Hashable) -> str:
        if key in self.out.errors:
            return f"error: {self.out.errors[key]}"
        if key in self.gave_up:
            return self.gave_up[key]
        if self.out.interrupted or self.stop.requested:
            return "not run: interrupted"
        return "not stored: finished, but the sink does not hold it"

    # -- back ends
    def in_process(self) -> None:
        for key in self.todo:
            if self.stop.requested:
                return
            try:
                with self.stop.immediate():  # no worker to wait for: Ctrl-C stops the job
                    value, ok = self.func(self.jobs[key]), True
            except Exception as exc:
                value, ok = describe_error(exc), False
            self.deliver(key, ok, value)

    def on_threads(self, workers: int, threads: int | None = 1) -> None:
        """Jobs on a pool of threads; BLAS on ``threads`` threads meanwhile (a BLAS pool of
        every core under each of ``workers`` threads would oversubscribe the cores)."""
        from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

        queue = collections.deque(self.todo)
        with (
            limit_blas(threads),
            ThreadPoolExecutor(max_workers=min(workers, len(queue))) as ex,
        ):
            running: dict = {}
            while queue or running:
                while queue and len(running) < 2 * workers and not self.stop.requested:
                    key = queue.popleft()
                    running[ex.submit(self.func, self.jobs[key])] = key
                if not running:
                    return
                done, _ = wait(running, timeout=POLL_S, return_when=FIRST_COMPLETED)
                for f in done:
                    key = running.pop(f)
                    exc = f.exception()
                    self.deliver(key, exc is None, describe_error(exc) if exc else f.result())
                if self.stop.requested:
                    queue.clear()

    def on_processes(self, workers, threads, initializer, initargs) -> None:
        LocalPool(self, min(workers, len(self.todo)), threads, initializer, initargs).run()

    def on_dask(self, client) -> None:
        run_dask(self, client)
