"""Plan and run a benchmark sweep: every (task, estimator, n, seed), in parallel.

Estimators are called through the public dispatcher (:func:`infometer.api.estimate`), so
every registered method (and ``auto``) can be benchmarked.  Work runs on local processes
(default) or on a Dask distributed cluster (``scheduler="tcp://host:port"``); only the
planning process writes to the :class:`~infometer.bench.store.Store`, one transaction per
finished run.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import multiprocessing
import os
import platform
import signal
import threading
import time
import tracemalloc
import warnings
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import __version__, registry, truth
from ..data import as_variables, check_int
from .store import Store

__all__ = ["Job", "SweepResult", "plan", "applicable", "run_job", "run_sweep"]

_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")
_FLAG_WORDS = ("saturat", "clip", "fail", "collapse", "diverg", "max_steps", "hit_max")


@dataclass(frozen=True)
class Job:
    """One run: estimate ``task`` with ``method`` on ``n`` samples drawn with ``seed``."""

    task: str
    method: str
    n: int
    seed: int

    @property
    def key(self) -> tuple[str, str, int, int]:
        return (self.task, self.method, self.n, self.seed)


@dataclass
class SweepResult:
    """What a sweep did."""

    planned: int = 0
    already_done: int = 0
    ran: int = 0
    failed: int = 0
    interrupted: bool = False
    skipped: list[tuple[str, str, str]] = field(default_factory=list)  # (task, method, why)


def _variables(task: truth.Task, data: dict[str, np.ndarray]) -> dict:
    return as_variables(data, discrete=task.discrete, paired=task.quantity not in registry.UNPAIRED)


def applicable(task: truth.Task, method: str) -> str | None:
    """``None`` if ``method`` can estimate ``task``'s quantity on its data, else the reason."""
    try:
        variables = _variables(task, task.sample(64, seed=0))
        name = method
        if method.lower() == "auto":
            name, _ = registry.choose_auto(registry.AutoContext(task.quantity, variables))
        spec = registry.get(task.quantity, name)
    except Exception as exc:  # any failure to choose/accept means "not applicable"
        return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    bad = [k for k, v in variables.items() if v.kind not in spec.kinds]
    if bad:
        kinds = "/".join(sorted(spec.kinds))
        return f"{spec.name} takes {kinds} data, not {variables[bad[0]].kind}"
    return None


def plan(
    tasks: Iterable[truth.Task],
    methods: Sequence[str],
    ns: Sequence[int],
    seeds: Sequence[int],
) -> tuple[list[Job], list[tuple[str, str, str]]]:
    """All applicable jobs, and the ``(task, method, reason)`` pairs that were skipped."""
    jobs, skipped = [], []
    for t in tasks:
        for m in methods:
            why = applicable(t, m)
            if why is not None:
                skipped.append((t.name, m, why))
                continue
            for n in ns:
                for s in seeds:
                    jobs.append(
                        Job(
                            t.name,
                            m,
                            check_int(n, "n", min_value=2),
                            check_int(s, "seed", min_value=0),
                        )
                    )
    return jobs, skipped


def _flags(diag: dict[str, Any]) -> list[str]:
    out = [str(w) for w in diag.get("warnings", [])]
    for k, v in diag.items():
        if isinstance(v, bool | np.bool_):
            if k.startswith("converged") and not v:
                out.append("not_converged")
            elif v and any(w in k for w in _FLAG_WORDS):
                out.append(k)
    return out


def _jsonable(obj: Any) -> Any:
    try:
        return json.loads(
            json.dumps(obj, default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o))
        )
    except (TypeError, ValueError):
        return str(obj)


def run_job(job: Job) -> dict[str, Any]:
    """Run one job and return its row for the store (errors become ``status="error"`` rows)."""
    from .. import api

    task = truth.get_task(job.task)
    row: dict[str, Any] = {
        "task": job.task,
        "method": job.method,
        "n": job.n,
        "seed": job.seed,
        "quantity": task.quantity,
        "family": task.family,
        "tags": sorted(task.tags),
        "dims": list(task.dims),
        "truth": task.truth,
        "truth_se": task.truth_se,
        "version": __version__,
        "host": platform.node(),
    }
    try:
        data = task.sample(job.n, seed=job.seed)
        paired = task.quantity not in registry.UNPAIRED
        tracemalloc.start()
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # they are in est.diagnostics -> flags
            est = api.estimate(
                task.quantity,
                data,
                method=job.method,
                seed=job.seed,
                discrete=task.discrete,
                paired=paired,
            )
        wall = time.perf_counter() - t0
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        value = float(est.value)
        diag = dict(est.diagnostics)
        row.update(
            estimate=value,
            error=value - task.truth if math.isfinite(value) else None,
            stderr=None if est.stderr is None else float(est.stderr),
            resolved_method=est.method,
            status="ok" if math.isfinite(value) else "nonfinite",
            flags=_flags(diag),
            diagnostics=_jsonable(diag),
            wall_s=wall,
            peak_mem_mb=peak / 2**20,
        )
    except Exception as exc:  # recorded, not raised: one bad run must not stop a sweep
        if tracemalloc.is_tracing():
            tracemalloc.stop()
        row.update(status="error", message=f"{type(exc).__name__}: {exc}"[:2000])
    row["finished_at"] = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
    return row


def _init_worker() -> None:
    # The parent handles Ctrl-C; workers use one thread each (parallelism is across runs).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)
    except ImportError:  # pragma: no cover - optional
        pass
    import sys

    if "numba" in sys.modules:  # parallel kernels: one thread per worker process
        sys.modules["numba"].set_num_threads(1)


def _progress(total: int, enabled: bool):
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("[bold]bench[/]"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[last]}"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        disable=not enabled,
        transient=False,
    )


def run_sweep(
    jobs: Sequence[Job],
    store: Store,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: bool = True,
    on_row: Callable[[dict[str, Any]], None] | None = None,
) -> SweepResult:
    """Run the jobs not yet in ``store``; write each finished run as it completes.

    Parameters
    ----------
    jobs
        From :func:`plan`.
    store
        Results store (its finished keys are skipped).
    workers
        Local processes (default: all cores); ``1`` runs in this process.
    scheduler
        Address of a Dask distributed scheduler (``tcp://host:port``) to run on instead.
    progress
        Show a rich progress bar with ETA.
    on_row
        Called with each stored row (e.g. for logging).

    Returns
    -------
    SweepResult
        ``interrupted`` is True when Ctrl-C stopped the sweep (finished runs are kept).
    """
    done = store.done_keys()
    todo = [j for j in jobs if j.key not in done]
    res = SweepResult(planned=len(jobs), already_done=len(jobs) - len(todo))
    if not todo:
        return res
    if workers is None:
        workers = os.cpu_count() or 1
    workers = check_int(workers, "workers", min_value=1)

    def record(row: dict[str, Any], bar, tid) -> None:
        store.add(row)
        res.ran += 1
        res.failed += row["status"] != "ok"
        if on_row is not None:
            on_row(row)
        bar.update(tid, advance=1, last=f"{row['task'][:28]} {row['method']}")

    ex = None
    saved_env = {v: os.environ.get(v) for v in _THREAD_VARS}
    if scheduler is None and workers > 1:
        _warm_up(todo)
        # "spawn": fresh interpreters.  Forking a parent that already ran OpenMP code (numba,
        # scikit-learn) is unsafe; JIT kernels compiled by the warm-up are read from numba's
        # on-disk cache.  Methods registered by the __main__ script are re-registered when
        # the workers import it.
        for var in _THREAD_VARS:  # inherited by the spawned workers: one thread each
            os.environ[var] = "1"
        ex = ProcessPoolExecutor(
            max_workers=min(workers, len(todo)),
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_init_worker,
        )
        ex.submit(int).result()
    stop = _StopRequest()
    with _progress(len(todo), progress) as bar, stop:
        tid = bar.add_task("bench", total=len(todo), last="")
        try:
            if scheduler is not None:
                _run_dask(todo, scheduler, lambda r: record(r, bar, tid), stop)
            elif ex is None:
                for j in todo:
                    if stop.requested:
                        break
                    record(run_job(j), bar, tid)
            else:
                _run_pool(todo, ex, workers, lambda r: record(r, bar, tid), stop)
        except KeyboardInterrupt:  # a second Ctrl-C: abort without waiting
            res.interrupted = True
        finally:
            if ex is not None:
                ex.shutdown(wait=not res.interrupted, cancel_futures=True)
            for var, old in saved_env.items():
                if old is None:
                    os.environ.pop(var, None)
                else:
                    os.environ[var] = old
    res.interrupted = res.interrupted or stop.requested
    return res


class _StopRequest:
    """First Ctrl-C: finish the runs in flight, store them, stop.  Second: abort at once."""

    def __init__(self) -> None:
        self.requested = False
        self._prev = None

    def _handler(self, signum: int, frame: object) -> None:
        self.requested = True
        signal.signal(signal.SIGINT, signal.default_int_handler)

    def __enter__(self) -> _StopRequest:
        if threading.current_thread() is threading.main_thread():
            self._prev = signal.getsignal(signal.SIGINT)
            signal.signal(signal.SIGINT, self._handler)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._prev is not None:
            signal.signal(signal.SIGINT, self._prev)


def _warm_up(todo: Sequence[Job]) -> None:
    """Run each (method, kind of task) once on tiny data in this process first.

    JIT-compiled kernels (numba, ``cache=True``) then compile once, here, and the workers
    load them from the on-disk cache instead of each compiling its own copy.
    """
    seen = set()
    for j in todo:
        t = truth.get_task(j.task)
        sig = (j.method, t.quantity, t.discrete, all(d == 1 for d in t.dims))
        if sig in seen:
            continue
        seen.add(sig)
        run_job(Job(j.task, j.method, min(j.n, 200), j.seed))


def _run_pool(
    todo: Sequence[Job],
    ex: ProcessPoolExecutor,
    workers: int,
    record: Callable[[dict], None],
    stop: _StopRequest,
) -> None:
    pending: set[Future] = set()
    it = iter(todo)
    # a bounded queue: after Ctrl-C only the runs in flight are waited for
    for j in it:
        pending.add(ex.submit(run_job, j))
        if len(pending) >= 2 * workers:
            break
    while pending:
        finished, pending = wait(pending, return_when=FIRST_COMPLETED)
        for f in finished:
            if not f.cancelled():
                record(f.result())
            nxt = None if stop.requested else next(it, None)
            if nxt is not None:
                pending.add(ex.submit(run_job, nxt))
        if stop.requested:
            for f in pending:
                f.cancel()  # not started yet: dropped; running ones finish and are stored


def _run_dask(
    todo: Sequence[Job], scheduler: str, record: Callable[[dict], None], stop: _StopRequest
) -> None:
    try:
        from distributed import Client, as_completed
    except ImportError as exc:  # pragma: no cover - optional extra
        raise ImportError("--scheduler needs the dask extra: pip install infometer[dask]") from exc
    with Client(scheduler, timeout=30) as client:
        futures = client.map(run_job, list(todo), pure=False)
        try:
            for fut in as_completed(futures):
                if fut.status == "finished":
                    record(fut.result())
                if stop.requested:
                    client.cancel([f for f in futures if not f.done()])
                    break
        finally:
            client.cancel([f for f in futures if not f.done()])
