"""Run a planned set of keyed jobs robustly, on local processes or a Dask cluster.

One execution layer for everything in infometer that fans work out (``infometer bench``,
the all-pairs matrices): the caller plans a mapping ``key -> payload``, gives a picklable
function and a *sink* that stores results, and gets back an :class:`Outcome` that says
what is missing and why.  Nothing is silently dropped: at the end the planned keys are
compared with what the sink holds.

Stable API (kept backwards compatible; new arguments are added as keywords only)
-------------------------------------------------------------------------------
``run_jobs(func, jobs, sink, *, workers=None, scheduler=None, pool="processes",
retries=2, progress=None, log=None, lock=None, lock_timeout=None, connect_timeout=5.0,
threads_per_worker=1, initializer=None, initargs=(), interruptible=True) -> Outcome``
    Run ``func(payload)`` for every ``(key, payload)`` in ``jobs`` whose key the sink
    does not hold yet and hand each result to ``sink.add(key, result)`` in the calling
    thread, as it arrives.
:class:`Sink`
    Protocol: ``done_keys() -> Iterable[key]`` and ``add(key, result) -> None``.
    :class:`MemorySink` is a dict-backed one.
:class:`Outcome`
    ``planned, already_done, ran, retried, errors, missing, interrupted``; ``complete``,
    ``describe()``, ``raise_if_incomplete()``.
:class:`Progress`
    What the ``progress`` callback receives after each finished job.
:func:`connect`
    A ``distributed.Client`` for an address, failing fast and clearly.
:func:`dir_lock`
    The inter-process lock ``run_jobs(lock=...)`` takes (a context manager).
Errors: :class:`IncompleteRun`, :class:`SchedulerUnreachable`, :class:`LockTimeout`,
:class:`WorkerStartError`.

Guarantees
----------
* **Lost work is re-run.**  Locally, each worker runs one job at a time, so when a worker
  process dies (killed, segfault, out of memory) exactly its job is charged: it is
  re-queued up to ``retries`` more times and a fresh worker replaces the dead one.  On
  Dask, futures that come back ``lost``/``cancelled``, that fail with ``KilledWorker``,
  or whose result cannot be fetched are resubmitted under the same budget.  An exception
  raised *by func* is deterministic and is not retried: it is reported in
  ``Outcome.errors``.
* **Nothing is missed silently.**  ``Outcome.missing`` maps every planned key that the
  sink does not hold at the end to the reason (raised, lost too often, interrupted,
  never returned).  ``Outcome.raise_if_incomplete()`` turns that into an
  :class:`IncompleteRun` error.
* **Workers die with the parent.**  Local workers are fresh ``spawn`` interpreters that
  ask Linux to SIGKILL them when the parent dies (``PR_SET_PDEATHSIG``), also watch their
  parent's pid elsewhere, and leave when their pipe closes; so ``kill -9`` of the parent
  leaves no worker and no ``multiprocessing`` resource tracker behind.
* **One run per output at a time.**  With ``lock=PATH``, the run holds an exclusive
  ``flock`` on ``PATH`` from before it reads the sink until it returns.  A second run on
  the same path *waits* (``log`` says for whom; ``lock_timeout`` bounds the wait), then
  reads the sink and runs only what is still missing, so two processes on one output
  directory never both run a job.  The kernel releases the lock when its holder dies,
  even by ``kill -9``.
* **Unreachable schedulers fail fast.**  A ``tcp://`` address is probed with a plain
  socket first: a refused connection is an immediate :class:`SchedulerUnreachable`, an
  unanswered one after ``connect_timeout`` seconds, with one clear message.
* **Ctrl-C** (``interruptible=True``, main thread only): the first stops submitting new
  jobs, waits for the running ones and stores them (on Dask: cancels every unfinished
  one), then returns with ``interrupted=True``; the second aborts at once.

``func``, the payloads and ``initializer`` must be picklable by reference (module-level
functions): local workers are ``spawn``-ed interpreters, Dask workers are other
processes or machines.  Functions defined in the ``__main__`` script work locally (the
workers re-import the script), not in an interactive session.

Examples
--------
>>> from infometer.parallel import MemorySink, run_jobs
>>> sink = MemorySink()
>>> out = run_jobs(abs, {"a": -1, "b": -2}, sink, workers=1)
>>> out.complete, out.ran, sink.results
(True, 2, {'a': 1, 'b': 2})
"""

from __future__ import annotations

import collections
import contextlib
import datetime as _dt
import multiprocessing
import os
import platform
import re
import signal
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "run_jobs",
    "Sink",
    "MemorySink",
    "Outcome",
    "Progress",
    "connect",
    "dir_lock",
    "IncompleteRun",
    "SchedulerUnreachable",
    "LockTimeout",
    "WorkerStartError",
]

#: Thread-count variables set to ``threads_per_worker`` in spawned workers' environment.
THREAD_VARS = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMBA_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
)

_POLL_S = 0.2  # how often waits wake up to notice Ctrl-C, dead workers, lock release
_GATHER_TIMEOUT_S = 120.0  # fetching one finished Dask result; longer = treat as lost
_NO_WORKERS_TIMEOUT_S = 300.0  # a Dask cluster with no workers this long: give up


# --------------------------------------------------------------------------- public types
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


@dataclass(frozen=True)
class Progress:
    """Passed to the ``progress`` callback after each job that finished in this call."""

    done: int  #: jobs finished in this call (results and errors)
    total: int  #: jobs this call set out to run (planned minus already held)
    key: Hashable  #: the job that just finished
    ok: bool  #: False when ``func`` raised for it
    retried: int  #: resubmissions so far after lost workers


@dataclass
class Outcome:
    """What :func:`run_jobs` did, and what the sink still lacks."""

    planned: int = 0  #: keys in ``jobs``
    already_done: int = 0  #: held by the sink before this call
    ran: int = 0  #: results handed to the sink by this call
    retried: int = 0  #: resubmissions after a worker died or a result was lost
    interrupted: bool = False  #: stopped by Ctrl-C
    #: keys for which ``func`` raised -> ``"TypeName: message"``
    errors: dict[Hashable, str] = field(default_factory=dict)
    #: planned keys the sink does not hold at the end -> why
    missing: dict[Hashable, str] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        """The sink holds every planned key."""
        return not self.missing

    def describe(self, limit: int = 5) -> str:
        """One paragraph: how many planned results are missing, why, and the first few."""
        if not self.missing:
            return f"all {self.planned} planned results are stored"
        why = collections.Counter(r.split(":")[0] for r in self.missing.values())
        reasons = ", ".join(f"{n} {w}" for w, n in why.most_common())
        first = "; ".join(f"{k!r}: {r}" for k, r in list(self.missing.items())[:limit])
        more = f" (and {len(self.missing) - limit} more)" if len(self.missing) > limit else ""
        return (
            f"{len(self.missing)} of {self.planned} planned results are missing "
            f"({reasons}); first: {first}{more}"
        )

    def raise_if_incomplete(self) -> None:
        """Raise :class:`IncompleteRun` when any planned result is missing."""
        if self.missing:
            raise IncompleteRun(self)


class IncompleteRun(RuntimeError):
    """Some planned results are missing; ``.outcome`` says which and why."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(outcome.describe())
        self.outcome = outcome


class SchedulerUnreachable(ConnectionError):
    """The Dask scheduler address could not be reached within the connect timeout."""


class LockTimeout(TimeoutError):
    """Another process held the lock longer than ``lock_timeout``."""


class WorkerStartError(RuntimeError):
    """Local worker processes die or fail while starting (before running any job)."""


# --------------------------------------------------------------------------- Ctrl-C
class _StopRequest:
    """First Ctrl-C: finish the runs in flight, stop.  Second: KeyboardInterrupt."""

    def __init__(self, enabled: bool) -> None:
        self.requested = False
        self._enabled = enabled and threading.current_thread() is threading.main_thread()
        self._prev: Any = None

    def _handler(self, signum: int, frame: object) -> None:
        self.requested = True
        signal.signal(signal.SIGINT, signal.default_int_handler)

    def __enter__(self) -> _StopRequest:
        if self._enabled:
            self._prev = signal.getsignal(signal.SIGINT)
            signal.signal(signal.SIGINT, self._handler)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._enabled:
            signal.signal(signal.SIGINT, self._prev)


class _Interrupted(Exception):
    pass


# --------------------------------------------------------------------------- the lock
def _lock_file(fd: int) -> bool:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False


@contextlib.contextmanager
def dir_lock(
    path: str | Path,
    *,
    timeout: float | None = None,
    log: Callable[[str], None] | None = None,
    _stop: _StopRequest | None = None,
) -> Iterator[Path]:
    """Hold an exclusive lock on ``path`` (created if missing) for the ``with`` block.

    Waits while another process holds it (``log`` is told who, once); raises
    :class:`LockTimeout` after ``timeout`` seconds.  The lock is an ``flock`` on an open
    file: the kernel releases it when the holder exits or is killed.  The file itself
    is left in place (removing lock files races with the next locker).  On systems
    without ``fcntl`` the block runs unlocked.
    """
    p = Path(path)
    fd = os.open(p, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        if not _lock_file(fd):
            os.lseek(fd, 0, os.SEEK_SET)
            holder = os.read(fd, 300).decode("utf-8", "replace").strip() or "another process"
            if log is not None:
                log(f"{p} is locked by {holder}; waiting for it to finish")
            t0 = time.monotonic()
            while not _lock_file(fd):
                if _stop is not None and _stop.requested:
                    raise _Interrupted
                if timeout is not None and time.monotonic() - t0 > timeout:
                    raise LockTimeout(f"{p} is still locked by {holder} after {timeout:g} s")
                time.sleep(_POLL_S)
        now = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, f"pid {os.getpid()} on {platform.node()} since {now}\n".encode())
        yield p
    finally:
        os.close(fd)


# --------------------------------------------------------------------------- run_jobs
def run_jobs(
    func: Callable[[Any], Any],
    jobs: Mapping[Hashable, Any],
    sink: Sink,
    *,
    workers: int | None = None,
    scheduler: Any = None,
    pool: str = "processes",
    retries: int = 2,
    progress: Callable[[Progress], None] | bool | None = None,
    log: Callable[[str], None] | None = None,
    lock: str | Path | None = None,
    lock_timeout: float | None = None,
    connect_timeout: float = 5.0,
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
    workers
        Local worker count (default: all cores).  ``1`` runs in the calling process.
        Ignored with ``scheduler``.
    scheduler
        A Dask scheduler address (``"tcp://host:8786"``) or a ``distributed.Client``
        (used as is and left open) to run on instead of local workers.
    pool
        ``"processes"`` (spawned interpreters, default) or ``"threads"`` (for functions
        that release the GIL; a thread cannot be lost, so nothing is retried).
    retries
        How many more times a job is re-run after its worker died or its result was lost.
    progress
        Called with a :class:`Progress` after each finished job, or ``True`` for a
        progress bar (:func:`infometer.progress.progress_bar`).
    log
        Called with one-line messages: lost workers, resubmissions, waiting for the lock.
    lock
        Path of a lock file shared by runs that write the same sink (see the module
        docstring).  ``None``: no lock.
    lock_timeout
        Give up waiting for the lock after this many seconds (:class:`LockTimeout`).
    connect_timeout
        Seconds to reach a scheduler address before :class:`SchedulerUnreachable`.
    threads_per_worker
        BLAS/OpenMP/numba threads per local worker process (set in its environment).
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
    """
    from .data import check_choice, check_float, check_int

    pool = check_choice(pool, "pool", ("processes", "threads"))
    retries = check_int(retries, "retries", min_value=0)
    threads_per_worker = check_int(threads_per_worker, "threads_per_worker", min_value=1)
    connect_timeout = check_float(
        connect_timeout, "connect_timeout", low=0.0, inclusive=(False, True)
    )
    if lock_timeout is not None:
        lock_timeout = check_float(lock_timeout, "lock_timeout", low=0.0)
    if workers is None:
        workers = os.cpu_count() or 1
    workers = check_int(workers, "workers", min_value=1)
    if not isinstance(jobs, Mapping):
        raise TypeError(f"jobs must be a mapping key -> payload, got {type(jobs).__name__}")
    if not callable(func):
        raise TypeError(f"func must be callable, got {type(func).__name__}")
    for name, obj in (("add", sink), ("done_keys", sink)):
        if not callable(getattr(obj, name, None)):
            raise TypeError(f"sink must have a {name}() method (see infometer.parallel.Sink)")

    client = owned = None
    if scheduler is not None:  # before taking the lock: an unreachable cluster fails at once
        client, owned = connect(scheduler, timeout=connect_timeout)
    stop = _StopRequest(interruptible)
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
                        run.on_threads(workers)
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
    except _Interrupted:  # Ctrl-C while waiting for the lock
        outcome.interrupted = True
        held = set(sink.done_keys())
        outcome.missing = {
            k: "not run: interrupted while waiting for the lock" for k in jobs if k not in held
        }
    finally:
        if owned:
            client.close()
    return outcome


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:2000]


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
            from .progress import progress_bar

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
                value, ok = self.func(self.jobs[key]), True
            except Exception as exc:
                value, ok = _describe(exc), False
            self.deliver(key, ok, value)

    def on_threads(self, workers: int) -> None:
        from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

        queue = collections.deque(self.todo)
        with ThreadPoolExecutor(max_workers=min(workers, len(queue))) as ex:
            running: dict = {}
            while queue or running:
                while queue and len(running) < 2 * workers and not self.stop.requested:
                    key = queue.popleft()
                    running[ex.submit(self.func, self.jobs[key])] = key
                if not running:
                    return
                done, _ = wait(running, timeout=_POLL_S, return_when=FIRST_COMPLETED)
                for f in done:
                    key = running.pop(f)
                    exc = f.exception()
                    self.deliver(key, exc is None, _describe(exc) if exc else f.result())
                if self.stop.requested:
                    queue.clear()

    def on_processes(self, workers, threads, initializer, initargs) -> None:
        _LocalPool(self, min(workers, len(self.todo)), threads, initializer, initargs).run()

    def on_dask(self, client) -> None:
        _run_dask(self, client)


# --------------------------------------------------------------------------- local workers
def _die_with_parent(parent_pid: int) -> None:
    """Make this worker die when its parent does, however the parent dies."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):  # pragma: no cover - exotic libc
            pass
    if os.getppid() != parent_pid:  # the parent died before the line above took effect
        os._exit(1)

    def watch() -> None:  # elsewhere (macOS, ...): notice re-parenting within a second
        while True:
            time.sleep(1.0)
            if os.getppid() != parent_pid:
                os._exit(1)

    threading.Thread(target=watch, name="infometer-parent-watch", daemon=True).start()


def _worker_main(conn, parent_pid, func, initializer, initargs) -> None:
    """Body of a local worker process: run jobs sent over ``conn`` one at a time."""
    _die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    try:
        if initializer is not None:
            initializer(*initargs)
    except BaseException as exc:
        conn.send(("init-error", _describe(exc) + "\n" + traceback.format_exc(limit=5)))
        return
    conn.send(("ready", os.getpid()))
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):  # the parent is gone
            return
        if msg is None:
            return
        token, payload = msg
        try:
            reply = (token, True, func(payload))
        except Exception as exc:
            reply = (token, False, _describe(exc))
        try:
            conn.send(reply)
        except (EOFError, OSError):
            return
        except Exception as exc:  # the result does not pickle: nothing was written yet
            conn.send((token, False, f"result could not be sent back: {_describe(exc)}"))


@dataclass
class _Worker:
    proc: Any
    conn: Any
    ready: bool = False
    key: Hashable | None = None
    token: int = 0


class _LocalPool:
    """Spawned worker processes, one job each at a time, replaced when they die."""

    def __init__(self, run: _Run, n: int, threads: int, initializer, initargs) -> None:
        self.run_, self.n, self.threads = run, n, threads
        self.init, self.initargs = initializer, initargs
        self.ctx = multiprocessing.get_context("spawn")
        self.workers: list[_Worker] = []
        self.gone: list[Any] = []  # dead workers' processes not yet reaped (joined in _close)
        self.start_failures = 0
        self.tokens = 0

    def _spawn(self) -> None:
        parent_conn, child_conn = self.ctx.Pipe(duplex=True)
        proc = self.ctx.Process(
            target=_worker_main,
            args=(child_conn, os.getpid(), self.run_.func, self.init, self.initargs),
            name="infometer-worker",
            daemon=True,
        )
        saved = {v: os.environ.get(v) for v in THREAD_VARS}
        os.environ.update({v: str(self.threads) for v in THREAD_VARS})
        try:
            proc.start()
        finally:
            for v, old in saved.items():
                if old is None:
                    os.environ.pop(v, None)
                else:
                    os.environ[v] = old
        child_conn.close()
        self.workers.append(_Worker(proc, parent_conn))

    def _dead(self, w: _Worker, queue: collections.deque) -> None:
        self.workers.remove(w)
        w.proc.join(timeout=1)
        if w.proc.exitcode is None:  # not reaped yet (a loaded machine): joined in _close
            self.gone.append(w.proc)
        code = w.proc.exitcode
        w.conn.close()
        if w.key is not None:
            why = f"worker process {w.proc.pid} died (exit code {code})"
            if self.run_.lost(w.key, why):
                queue.appendleft(w.key)
        elif not w.ready:
            self.start_failures += 1
            if self.start_failures > 2 * self.n + 2:
                raise WorkerStartError(
                    f"local worker processes keep dying before they start (last exit code "
                    f"{code}); is the module of {getattr(self.run_.func, '__name__', 'func')} "
                    "importable in a fresh interpreter?"
                )

    def _message(self, w: _Worker, msg: tuple, queue: collections.deque) -> None:
        if msg[0] == "ready":
            w.ready = True
        elif msg[0] == "init-error":
            raise WorkerStartError(f"worker initializer failed: {msg[1]}")
        else:
            token, ok, value = msg
            if token == w.token and w.key is not None:
                key, w.key = w.key, None
                self.run_.deliver(key, ok, value)

    def run(self) -> None:
        from multiprocessing.connection import wait

        run = self.run_
        queue = collections.deque(run.todo)
        try:
            for _ in range(self.n):
                self._spawn()
            while True:
                if run.stop.requested:
                    queue.clear()
                for w in self.workers:  # hand out jobs to idle workers
                    if w.ready and w.key is None and queue:
                        self.tokens += 1
                        w.key, w.token = queue.popleft(), self.tokens
                        w.conn.send((w.token, run.jobs[w.key]))
                if not queue and all(w.key is None for w in self.workers):
                    return
                need = min(self.n, len(queue) + sum(w.key is not None for w in self.workers))
                while len(self.workers) < need:  # replace dead workers while work remains
                    self._spawn()
                conns = {w.conn: w for w in self.workers}
                sentinels = {w.proc.sentinel: w for w in self.workers}
                ready = wait([*conns, *sentinels], timeout=_POLL_S)
                for obj in ready:
                    w = conns.get(obj)
                    if w is None:
                        continue
                    try:
                        msg = w.conn.recv()
                    except (EOFError, OSError):
                        continue  # died: handled through its sentinel
                    self._message(w, msg, queue)
                for obj in ready:
                    w = sentinels.get(obj)
                    if w is not None and w in self.workers:
                        while w.conn.poll():  # a reply sent just before dying still counts
                            try:
                                self._message(w, w.conn.recv(), queue)
                            except (EOFError, OSError):
                                break
                        self._dead(w, queue)
        except BaseException:
            self._kill()
            raise
        finally:
            self._close()

    def _kill(self) -> None:
        for w in self.workers:
            if w.proc.is_alive():
                w.proc.kill()

    def _close(self) -> None:
        for w in self.workers:
            with contextlib.suppress(OSError, ValueError):
                w.conn.send(None)
        deadline = time.monotonic() + 5
        for w in self.workers:
            w.proc.join(timeout=max(0.0, deadline - time.monotonic()))
            if w.proc.is_alive():
                w.proc.kill()
                w.proc.join(timeout=5)
            w.conn.close()
        self.workers.clear()
        for proc in self.gone:  # every process this pool started has exited on return
            proc.join(timeout=5)
            if proc.is_alive():
                proc.kill()
                proc.join(timeout=5)
        self.gone.clear()


# --------------------------------------------------------------------------- Dask
_ADDRESS = re.compile(
    r"^(?:(?P<scheme>[a-z]+)://)?(?P<host>\[[0-9a-fA-F:.]+\]|[^\s:/\[\]]+)(?::(?P<port>\d+))?$"
)


def connect(scheduler: Any, timeout: float = 5.0) -> tuple[Any, bool]:
    """A ``distributed.Client`` for ``scheduler`` and whether the caller owns (must close) it.

    ``scheduler`` is an address such as ``"tcp://host:8786"`` or an existing Client
    (returned as is, not owned).  Raises :class:`SchedulerUnreachable` with one clear
    line when the address does not answer within ``timeout`` seconds, ``ValueError`` for
    an address that is not one, and ``ImportError`` naming the extra when ``distributed``
    is not installed.
    """
    try:
        from distributed import Client
    except ImportError as exc:  # pragma: no cover - optional extra
        raise ImportError(
            "running on a Dask scheduler needs the dask extra: pip install 'infometer[dask]'"
        ) from exc
    if isinstance(scheduler, Client):
        return scheduler, False
    if not isinstance(scheduler, str):
        raise TypeError(
            f"scheduler must be an address string or a distributed.Client, got "
            f"{type(scheduler).__name__}"
        )
    m = _ADDRESS.match(scheduler.strip())
    if m is None:
        raise ValueError(f"scheduler {scheduler!r} is not an address like tcp://HOST:PORT")
    scheme = m["scheme"] or "tcp"
    address = scheduler.strip() if m["scheme"] else f"tcp://{scheduler.strip()}"
    if scheme in ("tcp", "tls"):  # a plain socket first: refusals are reported at once
        port = int(m["port"] or 8786)  # Dask's default scheduler port
        if not 0 < port < 65536:
            raise ValueError(f"scheduler port must be 1-65535, got {port}")
        if m["port"] is None:
            address += ":8786"
        host = m["host"].strip("[]")
        try:
            socket.create_connection((host, port), timeout=timeout).close()
        except OSError as exc:
            what = "no answer" if isinstance(exc, TimeoutError) else _describe(exc)
            raise SchedulerUnreachable(
                f"cannot reach the Dask scheduler at {address}: cannot connect to {host}:{port} "
                f"within {timeout:g} s ({what}); is the scheduler running?"
            ) from None
    import logging

    quiet = logging.getLogger("distributed")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)  # one clear error instead of logged tracebacks
    try:
        client = Client(address, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise SchedulerUnreachable(
            f"cannot reach the Dask scheduler at {address} within {timeout:g} s ({_describe(exc)})"
        ) from None
    finally:
        quiet.setLevel(level)
    return client, True


def _worker_death(exc: BaseException | None) -> bool:
    from distributed import KilledWorker

    try:
        from distributed.comm.core import CommClosedError
    except ImportError:  # pragma: no cover
        CommClosedError = OSError  # noqa: N806
    import asyncio
    import concurrent.futures

    dead = (
        KilledWorker,
        CommClosedError,
        asyncio.CancelledError,
        concurrent.futures.CancelledError,
    )
    return isinstance(exc, dead)


def _run_dask(run: _Run, client: Any) -> None:
    from distributed import as_completed

    key_of: dict[Any, Hashable] = {}
    ac = as_completed(loop=client.loop)
    broken: list[str] = []

    def submit(key: Hashable) -> None:
        if broken:
            run.gave_up[key] = f"lost: {broken[0]}"
            return
        try:
            fut = client.submit(run.func, run.jobs[key], pure=False)
        except Exception as exc:  # the client lost its scheduler
            broken.append(f"could not submit to the scheduler ({_describe(exc)})")
            run.gave_up[key] = f"lost: {broken[0]}"
            return
        key_of[fut] = key
        ac.add(fut)

    for key in run.todo:
        submit(key)
    no_workers_since: float | None = None
    last_check = time.monotonic()
    try:
        while not ac.is_empty():
            if run.stop.requested:
                return
            batch = ac.next_batch(block=False) if ac.has_ready() else []
            if not batch:
                time.sleep(0.02)
                now = time.monotonic()
                if now - last_check > 5:  # a cluster whose workers are all gone
                    last_check = now
                    if client.nthreads():
                        no_workers_since = None
                    elif no_workers_since is None:
                        no_workers_since = now
                    elif now - no_workers_since > _NO_WORKERS_TIMEOUT_S:
                        for key in key_of.values():
                            run.gave_up[key] = (
                                f"lost: the cluster had no workers for {_NO_WORKERS_TIMEOUT_S:g} s"
                            )
                        return
                continue
            for fut in batch:
                key = key_of.pop(fut)
                status = fut.status
                if status == "finished":
                    try:
                        value = fut.result(timeout=_GATHER_TIMEOUT_S)
                    except BaseException as exc:  # the worker holding it died meanwhile
                        if isinstance(exc, KeyboardInterrupt):
                            raise
                        if run.lost(key, f"result lost ({_describe(exc)})"):
                            submit(key)
                    else:
                        run.deliver(key, True, value)
                elif status == "error":
                    exc = fut.exception()
                    if _worker_death(exc):
                        if run.lost(key, f"worker lost ({_describe(exc)})"):
                            submit(key)
                    else:
                        run.deliver(key, False, _describe(exc))
                elif run.lost(key, f"future {status}"):  # lost, cancelled, pending again
                    submit(key)
                fut.release()
    finally:
        pending = list(key_of)
        if pending:
            with contextlib.suppress(Exception):
                client.cancel(pending)
