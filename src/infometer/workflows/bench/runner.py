"""Plan and run a benchmark sweep: every (task, estimator, n, seed), in parallel.

Estimators are called through the public dispatcher (:func:`infometer.core.api.estimate`), so
every registered method (and ``auto``) can be benchmarked.  Work runs through
:func:`infometer.core.parallel.run_jobs` on local processes (default) or on a Dask distributed
cluster (``scheduler="tcp://host:port"``); only the planning process writes to the
:class:`~infometer.workflows.bench.store.Store`, one transaction per finished run.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import platform
import time
import tracemalloc
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from infometer import __version__
from infometer.core import registry
from infometer.core.data import as_variables, check_int
from infometer.core.parallel import Execution, run_jobs
from infometer.core.progress import progress_bar
from infometer.core.results import Result
from infometer.measures import truth
from infometer.measures.truth.network import score_edges

from . import peers as _peers
from .store import Store

__all__ = ["Job", "SweepResult", "plan", "applicable", "run_job", "run_sweep", "NETWORK_METHODS"]

#: The contenders of ``network`` tasks (:func:`infometer.infer_network`'s methods).
NETWORK_METHODS = ("mte", "bivariate_te", "pcmci", "pcmciplus")

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


@dataclass(eq=False, repr=False)
class SweepResult(Result):
    """What a sweep did."""

    planned: int = 0
    already_done: int = 0
    ran: int = 0
    failed: int = 0
    interrupted: bool = False
    skipped: list[tuple[str, str, str]] = field(default_factory=list)  # (task, method, why)
    retried: int = 0  #: re-runs after a worker died or a Dask result was lost
    #: planned (task, method, n, seed) keys the store lacks at the end -> why
    missing: dict[tuple[str, str, int, int], str] = field(default_factory=dict)


def _variables(task: truth.Task, data: dict[str, np.ndarray]) -> dict:
    return as_variables(data, discrete=task.discrete, paired=task.quantity not in registry.UNPAIRED)


def _estimate(task: truth.Task, data: dict[str, np.ndarray], method: str, seed: int):
    from infometer.core import api

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # they are in est.diagnostics -> flags
        return api.estimate(
            task.quantity,
            data,
            method=method,
            seed=seed,
            discrete=task.discrete,
            paired=task.quantity not in registry.UNPAIRED,
            **task.params,
        )


def _network(task: truth.Task, data: dict[str, np.ndarray], method: str, seed: int):
    """Infer the task's network with ``method``; (F1, diagnostics with the scores)."""
    from infometer.measures.dynamics.network import infer_network

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = infer_network(
            data["x"], method=method, seed=seed, progress=False, n_jobs=1, **task.params
        )
    found = [tuple(int(v) for v in e) for e in zip(*np.nonzero(res.lag_adjacency), strict=True)]
    return _network_scores(task, found)


def _network_scores(task: truth.Task, found: list) -> tuple[float, dict[str, Any]]:
    s = score_edges(task.extra["edges"], found, task.extra["n_nodes"])
    return s["f1"], {**s, "edges": [list(e) for e in found]}


def applicable(task: truth.Task, method: str, n: int = 64) -> str | None:
    """``None`` if ``method`` can estimate ``task``'s quantity on its data, else the reason.

    Beyond the kinds of data the method declares, it is tried once on ``n`` rows: an
    estimator that rejects the data with a ``ValueError``/``TypeError`` (say a copula
    estimator on data without a continuous variable) is not applicable either.
    Trainable estimators (``resampling="seeds"``) are not tried: that would train a model.
    A peer (``peer:NAME``) applies when its adapter takes the task's quantity and data
    (:func:`infometer.workflows.bench.peers.supports`); it is not tried here.  A network
    task takes the methods of :data:`NETWORK_METHODS`.
    """
    if _peers.is_peer(method):
        try:
            return _peers.supports(method, task)
        except ValueError as exc:
            return str(exc)
    if task.quantity == "network":
        if method in NETWORK_METHODS:
            return None
        return f"a network task takes {', '.join(NETWORK_METHODS)} or a peer, not {method}"
    try:
        data = task.sample(n, seed=0)
        variables = _variables(task, data)
        name = method
        if method.lower() == "auto":
            name, _ = registry.choose_auto(registry.AutoContext(task.quantity, variables))
        spec = registry.get(task.quantity, name)
    except Exception as exc:  # any failure to choose/accept means "not applicable"
        return _first_line(exc)
    if task.methods and spec.name not in task.methods:
        return f"the truth of {task.name} is that of {', '.join(task.methods)}, not {spec.name}"
    bad = [k for k, v in variables.items() if v.kind not in spec.kinds]
    if bad:
        kinds = "/".join(sorted(spec.kinds))
        return f"{spec.name} takes {kinds} data, not {variables[bad[0]].kind}"
    if spec.resampling != "seeds":
        try:
            _estimate(task, data, method, 0)
        except (ValueError, TypeError) as exc:  # the estimator's own rules reject the data
            return _first_line(exc)
        except Exception:  # anything else is a real failure: run it and record it
            pass
    return None


def _first_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"


def plan(
    tasks: Iterable[truth.Task],
    methods: Sequence[str],
    ns: Sequence[int],
    seeds: Sequence[int],
) -> tuple[list[Job], list[tuple[str, str, str]]]:
    """All applicable jobs, and the ``(task, method, reason)`` pairs that were skipped."""
    jobs, skipped = [], []
    n_try = max(16, min(256, *ns)) if ns else 64
    for t in tasks:
        for m in methods:
            why = applicable(t, m, n_try)
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
        if _peers.is_peer(job.method):
            row.update(_peer_row(task, data, job))
        else:
            tracemalloc.start()
            t0, c0 = time.perf_counter(), time.process_time()
            if task.quantity == "network":
                value, diag = _network(task, data, job.method, job.seed)
                stderr, resolved = None, job.method
            else:
                est = _estimate(task, data, job.method, job.seed)
                value, diag = float(est.value), dict(est.diagnostics)
                stderr = None if est.stderr is None else float(est.stderr)
                resolved = est.method
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            diag["cpu_s"] = cpu
            row.update(
                estimate=value,
                error=value - task.truth if math.isfinite(value) else None,
                stderr=stderr,
                resolved_method=resolved,
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


def _peer_row(task: truth.Task, data: dict[str, np.ndarray], job: Job) -> dict[str, Any]:
    """The stored fields of one peer run (its failures are statuses, never raised)."""
    r = _peers.run_peer(job.method, task, data, job.seed)
    diag: dict[str, Any] = {
        "cpu_s": r.cpu_s,
        "startup_s": r.startup_s,
        "process_s": r.total_s,
        "peer_version": r.version,
    }
    out: dict[str, Any] = {"status": r.status, "message": r.message, "wall_s": r.wall_s}
    if r.status != "ok":
        return {**out, "diagnostics": _jsonable(diag)}
    value = r.value
    if task.quantity == "network":
        value, scores = _network_scores(task, [tuple(e) for e in r.edges or []])
        diag.update(scores)
    ok = value is not None and math.isfinite(value)
    return {
        **out,
        "estimate": value,
        "error": value - task.truth if ok else None,
        "resolved_method": f"{_peers.peer_name(job.method)} {r.version}",
        "status": "ok" if ok else "nonfinite",
        "flags": [],
        "diagnostics": _jsonable(diag),
    }


def run_sweep(
    jobs: Sequence[Job],
    store: Store,
    *,
    execution: Any = None,
    workers: int | None = None,
    scheduler: Any = None,
    progress: bool | None = None,
    on_row: Callable[[dict[str, Any]], None] | None = None,
    retries: int = 2,
    connect_timeout: float = 5.0,
    log: Callable[[str], None] | None = None,
) -> SweepResult:
    """Run the jobs not yet in ``store``; write each finished run as it completes.

    Execution is :func:`infometer.core.parallel.run_jobs`: lost workers' runs are re-run, and
    at the end the planned keys are checked against the store.

    Parameters
    ----------
    jobs
        From :func:`plan`.  Their keys are also recorded as the store's plan, so a report
        of a partial store can say what is missing.
    store
        Results store (its finished keys are skipped).
    execution
        Where the runs go: an :class:`infometer.Execution` (``n_jobs``, ``backend``
        ``"processes"`` (default) / ``"threads"`` / ``"dask"``, ``scheduler``,
        ``progress``, ``retries``, ``connect_timeout``; its ``store`` stays None: the
        store is the argument above).  ``workers``, ``scheduler``, ``progress``,
        ``retries`` and ``connect_timeout`` are its shorthands, kept as they were; giving
        one beside ``execution`` is a ``TypeError``.
    workers
        Local processes (default: all cores); ``1`` runs in this process.
    scheduler
        Address of a Dask distributed scheduler (``tcp://host:port``) or a
        ``distributed.Client`` to run on instead.
    progress
        Show a progress bar with ETA (:func:`infometer.core.progress.progress_bar`; ``None``:
        on a terminal).
    on_row
        Called with each stored row (e.g. for logging).
    retries
        Re-runs of a run whose worker died (or whose Dask result was lost).
    connect_timeout
        Seconds to reach ``scheduler`` before
        :class:`~infometer.core.parallel.SchedulerUnreachable`.
    log
        Called with one-line messages (lost workers).  The store holds its directory's
        lock while it is open: a second sweep on the same directory waits for the first
        (when it opens its :class:`~infometer.workflows.bench.Store`), then runs only what
        is still missing.

    Returns
    -------
    SweepResult
        ``missing`` maps each planned key the store lacks at the end to the reason;
        ``interrupted`` is True when Ctrl-C stopped the sweep (finished runs are kept).

    Examples
    --------
    >>> import tempfile
    >>> from infometer import Execution
    >>> from infometer.workflows.bench import Store, plan, suite_tasks
    >>> jobs, _ = plan(suite_tasks("quick")[:1], ["auto"], [100], [0])
    >>> with tempfile.TemporaryDirectory() as d, Store(d) as store:
    ...     res = run_sweep(jobs, store, execution=Execution(n_jobs=1, progress=False))
    >>> res.ran, res.missing
    (1, {})
    """
    ex = _execution(execution, workers, scheduler, progress, retries, connect_timeout)
    store.add_planned(j.key for j in jobs)
    done = store.done_keys()
    todo = [j for j in jobs if j.key not in done]
    if ex.resolve_backend("processes") == "processes" and ex.workers > 1 and todo:
        _warm_up(todo)  # numba kernels compile once, here; workers read the disk cache
    res = SweepResult(planned=len(jobs))

    class _Sink:
        def done_keys(self) -> set:
            return store.done_keys()

        def add(self, key: tuple, row: dict[str, Any]) -> None:
            store.add(row)
            res.failed += row["status"] != "ok"
            if on_row is not None:
                on_row(row)
            last[0] = f"{row['task'][:28]} {row['method']}"

    last = [""]
    bar_ = progress_bar(total=len(todo), desc="bench", unit="run", progress=ex.progress, leave=True)

    def step(p: Any) -> None:
        bar_.update(p.done - bar_.n)
        bar_.set_postfix(last=last[0], refresh=False)

    with bar_:
        out = run_jobs(
            run_job,
            {j.key: j for j in jobs},
            _Sink(),
            execution=ex,
            progress=step,
            log=log,
        )
    res.already_done, res.ran, res.retried = out.already_done, out.ran, out.retried
    res.interrupted, res.missing = out.interrupted, out.missing
    return res


def _execution(execution, workers, scheduler, progress, retries, connect_timeout) -> Execution:
    """The :class:`Execution` of a sweep: ``execution``, or one from the shorthands."""
    if workers is not None:
        check_int(workers, "workers", min_value=1)  # the error names the caller's keyword
    ex = Execution.from_keywords(
        execution,
        "run_sweep",
        workers=("n_jobs", workers, None),
        scheduler=("scheduler", scheduler, None),
        progress=("progress", progress, None),
        retries=("retries", retries, 2),
        connect_timeout=("connect_timeout", connect_timeout, 5.0),
    )
    if ex.store is not None:
        raise ValueError(
            f"run_sweep takes its Store as an argument; leave Execution.store None "
            f"(got {ex.store!r})"
        )
    return ex


def _warm_up(todo: Sequence[Job]) -> None:
    """Run each (method, kind of task) once on tiny data in this process first.

    JIT-compiled kernels (numba, ``cache=True``) then compile once, here, and the workers
    load them from the on-disk cache instead of each compiling its own copy.
    """
    seen = set()
    for j in todo:
        if _peers.is_peer(j.method):
            continue  # nothing of a peer is compiled here
        t = truth.get_task(j.task)
        sig = (j.method, t.quantity, t.discrete, all(d == 1 for d in t.dims))
        if sig in seen:
            continue
        seen.add(sig)
        run_job(Job(j.task, j.method, min(j.n, 200), j.seed))
