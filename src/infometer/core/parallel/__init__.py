"""Run a planned set of keyed jobs robustly, on local processes or a Dask cluster.

One execution layer for everything in infometer that fans work out (``infometer bench``,
the all-pairs matrices): the caller plans a mapping ``key -> payload``, gives a picklable
function and a *sink* that stores results, and gets back an :class:`Outcome` that says
what is missing and why.  Nothing is silently dropped: at the end the planned keys are
compared with what the sink holds.

Stable API (kept backwards compatible; new arguments are added as keywords only)
-------------------------------------------------------------------------------
``run_jobs(func, jobs, sink, *, execution=None, workers=None, scheduler=None,
pool="processes", retries=2, progress=None, log=None, lock=None, lock_timeout=None,
connect_timeout=5.0, threads_per_worker=1, initializer=None, initargs=(),
interruptible=True) -> Outcome``
    Run ``func(payload)`` for every ``(key, payload)`` in ``jobs`` whose key the sink
    does not hold yet and hand each result to ``sink.add(key, result)`` in the calling
    thread, as it arrives.
:class:`Execution`
    Where and how work runs (``n_jobs``, backend, scheduler, store, progress, retries),
    checked once; ``run_jobs(..., execution=...)``, ``infometer.pairwise`` and
    ``infometer.workflows.bench.run_sweep`` take it.
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

Layout (private modules by concern; import from ``infometer.core.parallel``)
----------------------------------------------------------------------
``_sinks`` (the Sink protocol, MemorySink), ``_outcome`` (Progress, Outcome,
IncompleteRun), ``_interrupt`` (Ctrl-C), ``_locks`` (dir_lock, LockTimeout), ``_local``
(spawned worker processes, WorkerStartError), ``_dask`` (connect, the Dask back end,
SchedulerUnreachable), ``_run`` (run_jobs and its loop), ``_execution`` (:class:`Execution`,
the one description of where and how work runs, shared by ``pairwise`` and ``bench``).

Examples
--------
>>> from infometer.core.parallel import MemorySink, run_jobs
>>> sink = MemorySink()
>>> out = run_jobs(abs, {"a": -1, "b": -2}, sink, workers=1)
>>> out.complete, out.ran, sink.results
(True, 2, {'a': 1, 'b': 2})
"""

from __future__ import annotations

from ._dask import SchedulerUnreachable, connect
from ._execution import Execution
from ._local import THREAD_VARS as THREAD_VARS
from ._local import WorkerStartError
from ._locks import LockTimeout, dir_lock
from ._outcome import IncompleteRun, Outcome, Progress
from ._run import _check_picklable as _check_picklable
from ._run import run_jobs
from ._sinks import MemorySink, Sink

__all__ = [
    "run_jobs",
    "Execution",
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

for _name in __all__:  # documented, printed and pickled under the public path
    globals()[_name].__module__ = __name__
del _name
