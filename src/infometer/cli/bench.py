"""``infometer bench`` and ``infometer report``.

``bench`` runs every (task, estimator, n, seed) of a suite and stores each finished run in
``OUT/results.sqlite`` (re-running resumes); ``report`` turns a results directory into one
self-contained HTML file.
"""

from __future__ import annotations

import os
import sys

import typer
from rich.console import Console
from rich.table import Table

__all__ = ["register", "bench_cmd", "report_cmd"]

_out = Console()
_err = Console(stderr=True)


def _fail(message: str) -> None:
    _err.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(code=2)


def _ints(text: str, name: str) -> list[int]:
    try:
        vals = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        _fail(f"{name} must be comma-separated integers, got {text!r}")
    if not vals:
        _fail(f"{name} is empty")
    return vals


def bench_cmd(
    suite: str = typer.Option(
        "quick",
        "--suite",
        "-s",
        help="quick, beyond-normal, high-mi, discrete, consistency or all.",
    ),
    estimators: str = typer.Option(
        "auto", "--estimators", "-e", help="Comma-separated method names (or 'auto')."
    ),
    n: str = typer.Option(None, "--n", help="Comma-separated sample sizes (default: suite's)."),
    seeds: int = typer.Option(None, "--seeds", help="Number of seeds 0..S-1 (default: suite's)."),
    out: str = typer.Option("bench-out", "--out", "-o", help="Results directory (resumable)."),
    tasks: str = typer.Option(None, "--tasks", help="Only these task names (comma-separated)."),
    workers: int = typer.Option(None, "--workers", "-j", help="Local processes (default: cores)."),
    scheduler: str = typer.Option(
        None, "--scheduler", help="Dask scheduler address, e.g. tcp://HOST:8786."
    ),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show a progress bar."),
    list_only: bool = typer.Option(False, "--list", help="List the suite's tasks and exit."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="List skipped pairs and why."),
) -> None:
    """Benchmark estimators on tasks with exact answers; results go to OUT/results.sqlite."""
    from .. import __version__
    from ..bench import SUITES, Store, plan, run_sweep, suite_tasks

    if suite not in SUITES:
        _fail(f"--suite must be one of {', '.join(SUITES)}, got {suite!r}")
    s = SUITES[suite]
    ts = suite_tasks(suite)
    if tasks:
        want = [t.strip() for t in tasks.split(",") if t.strip()]
        from .. import truth

        try:
            ts = [truth.get_task(t) for t in want]
        except ValueError as exc:
            _fail(f"--tasks: {exc}")
    if list_only:  # plain tab-separated lines: easy to read and to grep
        typer.echo("task\tquantity\ttruth_nats\tdims\tfamily")
        for task in ts:
            dims = "x".join(map(str, task.dims))
            typer.echo(f"{task.name}\t{task.quantity}\t{task.truth:.6f}\t{dims}\t{task.family}")
        return
    ns = _ints(n, "--n") if n else list(s.ns)
    n_seeds = s.seeds if seeds is None else seeds
    if n_seeds < 1:
        _fail(f"--seeds must be >= 1, got {n_seeds}")
    if workers is not None and workers < 1:
        _fail(f"--workers must be >= 1, got {workers}")
    if any(v < 2 for v in ns):
        _fail("--n values must be >= 2")
    methods = [m.strip() for m in estimators.split(",") if m.strip()]
    if not methods:
        _fail("--estimators is empty")
    jobs, skipped = plan(ts, methods, ns, range(n_seeds))
    if skipped:
        by: dict[str, int] = {}
        for _, m, _ in skipped:
            by[m] = by.get(m, 0) + 1
        counts = ", ".join(f"{m} on {k} task(s)" for m, k in by.items())
        _err.print(
            f"[dim]not applicable (skipped): {counts}; --verbose lists why[/]",
            highlight=False,
            soft_wrap=True,
        )
        if verbose:
            for task, m, why in skipped:
                _err.print(f"[dim]  {task} × {m}: {why}[/]", highlight=False, soft_wrap=True)
    if not jobs:
        _fail("no (task, estimator) pair applies; see the skip lines above")
    _check_out_dir(out)
    if scheduler:
        _check_scheduler(scheduler)
    with Store(out) as store:
        store.set_meta(
            {
                "suite": suite,
                "methods": methods,
                "ns": ns,
                "seeds": n_seeds,
                "version": __version__,
                "argv": sys.argv[1:],
                "cpus": os.cpu_count(),
            }
        )
        res = run_sweep(jobs, store, workers=workers, scheduler=scheduler, progress=progress)
        rows = store.rows()
    _summary(rows, {j.key for j in jobs})
    _out.print(
        f"{res.ran} run(s) done now, {res.already_done} already stored, "
        f"{res.failed} failed; results in {os.path.join(out, 'results.sqlite')}",
        highlight=False,
    )
    if res.interrupted:
        _err.print(
            "[yellow]stopped by Ctrl-C[/]: finished runs are saved; run the same "
            "command again to resume."
        )
        raise typer.Exit(code=130)


def _check_out_dir(out: str) -> None:
    """--out must be a directory we can create or write, checked before the runner starts."""
    if os.path.exists(out) and not os.path.isdir(out):
        _fail(f"--out {out!r} is a file; give a directory (results go to OUT/results.sqlite)")
    parent = os.path.dirname(os.path.abspath(out))
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    probe = out if os.path.isdir(out) else parent
    if not os.path.isdir(probe) or not os.access(probe, os.W_OK):
        _fail(f"--out {out!r}: {probe!r} is not a writable directory")


#: Seconds to wait for a Dask scheduler to accept a connection before giving up.
SCHEDULER_TIMEOUT = 5.0


def _check_scheduler(address: str, timeout: float = SCHEDULER_TIMEOUT) -> None:
    """Fail fast, with one line, when --scheduler is unreachable (the Dask client waited
    30 s and then raised a traceback)."""
    import importlib.util
    import socket
    from urllib.parse import urlsplit

    if importlib.util.find_spec("distributed") is None:
        _fail("--scheduler needs the dask extra: pip install 'infometer[dask]'")
    url = urlsplit(address if "://" in address else f"tcp://{address}")
    if url.scheme not in ("tcp", "tls"):
        return  # inproc:// and other transports: let Dask judge
    try:
        host, port = url.hostname, url.port or 8786
    except ValueError:
        host, port = None, None
    if not host:
        _fail(f"--scheduler {address!r} is not an address like tcp://HOST:8786")
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as exc:
        _fail(
            f"--scheduler {address!r}: cannot connect to {host}:{port} within "
            f"{timeout:g} s ({exc.strerror or exc}); is the scheduler running?"
        )


def _summary(rows: list[dict], keys: set) -> None:
    import numpy as np

    by: dict[str, list[dict]] = {}
    for r in rows:
        if (r["task"], r["method"], r["n"], r["seed"]) in keys:
            by.setdefault(r["method"], []).append(r)
    t = Table("estimator", "runs", "failed", "median |err|", "within 0.1 nats", "median time (s)")
    for m, rs in sorted(by.items()):
        ok = [r for r in rs if r["status"] == "ok"]
        err = np.abs([r["error"] for r in ok]) if ok else np.array([])
        t.add_row(
            m,
            str(len(rs)),
            str(len(rs) - len(ok)),
            f"{np.median(err):.3f}" if err.size else "-",
            f"{(err <= 0.1).mean():.0%}" if err.size else "-",
            f"{np.median([r['wall_s'] for r in ok]):.3f}" if ok else "-",
        )
    _out.print(t)


def report_cmd(
    directory: str = typer.Argument(..., help="Directory written by `infometer bench`."),
    output: str = typer.Option("report.html", "--output", "-o", help="HTML file to write."),
    tolerance: float = typer.Option(
        0.1, "--tolerance", help="A task fails when |mean error| exceeds this (nats)."
    ),
) -> None:
    """Write a self-contained HTML report of a benchmark directory."""
    from ..bench.report import write_report
    from ..bench.store import DB_NAME

    if not os.path.exists(os.path.join(directory, DB_NAME)):
        _fail(f"{directory} has no {DB_NAME}; run `infometer bench --out {directory}` first")
    if not tolerance > 0:
        _fail(f"--tolerance must be > 0, got {tolerance}")
    path = write_report(directory, output, tolerance=tolerance)
    _out.print(f"report written to {path}", highlight=False)


def register(app: typer.Typer) -> None:
    """Add ``bench`` and ``report`` to the ``infometer`` app."""
    from .app import user_errors  # bad input -> one error line, exit 2

    app.command("bench")(user_errors(bench_cmd))
    app.command("report")(user_errors(report_cmd))


def _standalone() -> typer.Typer:
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    register(app)
    return app


if __name__ == "__main__":  # python -m infometer.cli.bench bench ...
    _standalone()()
