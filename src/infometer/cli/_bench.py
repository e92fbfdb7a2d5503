"""``infometer bench`` and ``infometer report``.

``bench`` runs every (task, estimator, n, seed) of a suite and stores each finished run in
``OUT/results.sqlite`` (re-running resumes); ``report`` turns a results directory into one
self-contained HTML file.
"""

from __future__ import annotations

import os
import sys

import typer

from . import _options as opt
from ._console import (
    cell,
    error_line,
    mark_resumable,
    note,
    print_json,
    say,
    table,
    warn_line,
    warn_summary,
)
from ._console import out as _out

__all__ = ["register", "bench_cmd", "report_cmd"]


def _fail(message: str) -> None:
    error_line(message)
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
        help="quick, beyond-normal, high-mi, discrete, consistency, signals, cmi, te, "
        "dynamics, multivariate, pid, network, complexity, beyond-mi or all.",
    ),
    estimators: str = typer.Option(
        None,
        "--estimators",
        "-e",
        help="Comma-separated method names or 'auto' (default: the suite's; quick compares "
        "the main estimators side by side, the other suites run 'auto').",
    ),
    peers: str = typer.Option(
        None,
        "--peers",
        help="Other libraries as contenders, each in its own interpreter: comma-separated "
        "NAME or NAME=PYTHON ('all': every peer with an interpreter under --peer-dir).",
    ),
    peer_dir: str = typer.Option(
        None,
        "--peer-dir",
        help="Folder of the peers' environments: DIR/NAME/bin/python (default: "
        "$INFOMETER_PEER_DIR).",
    ),
    peer_timeout: float = typer.Option(
        300.0, "--peer-timeout", help="Seconds one peer run may take before it is stopped."
    ),
    n: str = typer.Option(None, "--n", help="Comma-separated sample sizes (default: suite's)."),
    seeds: int = typer.Option(None, "--seeds", help="Number of seeds 0..S-1 (default: suite's)."),
    out: str = opt.out_dir("bench-out", "Folder for results.sqlite (a re-run resumes)."),
    tasks: str = typer.Option(None, "--tasks", help="Only these task names (comma-separated)."),
    jobs: int = opt.jobs(None, "Local processes (default: the physical cores)."),
    scheduler: str = typer.Option(
        None, "--scheduler", help="Dask scheduler address, e.g. tcp://HOST:8786."
    ),
    connect_timeout: float = typer.Option(
        5.0, "--connect-timeout", help="Seconds to reach --scheduler before giving up."
    ),
    retries: int = typer.Option(
        2, "--retries", help="Re-runs of a run whose worker died or whose result was lost."
    ),
    list_only: bool = typer.Option(False, "--list", help="List the suite's tasks and exit."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="List skipped pairs and why."),
    quiet: bool = opt.QUIET,
    json_out: bool = opt.JSON,
) -> None:
    """Benchmark estimators on tasks with exact answers; results go to OUT/results.sqlite."""
    from infometer.workflows.bench import SUITES, suite_tasks

    if suite not in SUITES:
        _fail(f"--suite must be one of {', '.join(SUITES)}, got {suite!r}")
    s = SUITES[suite]
    ts = suite_tasks(suite)
    if tasks:
        want = [t.strip() for t in tasks.split(",") if t.strip()]
        from infometer.measures import truth

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
    if jobs is not None and jobs < 1:
        _fail(f"--jobs must be >= 1, got {jobs}")
    if any(v < 2 for v in ns):
        _fail("--n values must be >= 2")
    if retries < 0:
        _fail(f"--retries must be >= 0, got {retries}")
    if peer_dir is not None and not os.path.isdir(peer_dir):  # with or without --peers
        _fail(f"--peer-dir {peer_dir!r} is not a directory")
    for flag, secs in (("--connect-timeout", connect_timeout), ("--peer-timeout", peer_timeout)):
        if not (0 < secs < float("inf")):  # NaN and inf too: a wait that never ends
            _fail(f"{flag} must be a finite number of seconds > 0, got {secs}")
    _check_out_dir(out)
    if estimators is None:
        estimators = ",".join(s.methods)
    methods = [m.strip() for m in estimators.split(",") if m.strip()]
    if not methods:
        _fail("--estimators is empty")
    from infometer.core import registry
    from infometer.workflows.bench import _peers

    known = {"auto"} | {s.name for s in registry.specs()}
    known |= {m for su in SUITES.values() for m in su.methods}  # the suites' own (mte, ...)
    unknown = [m for m in methods if m not in known and not _peers.is_peer(m)]
    if unknown:  # a misspelt name was a skip line for every task, then "nothing applies"
        _fail(f"--estimators: no estimator named {unknown[0]!r} (infometer methods lists them)")
    if peers:
        methods += [m for m in _peer_methods(peers, peer_dir, peer_timeout) if m not in methods]
    from infometer.core.parallel import SchedulerUnreachable, connect

    client = None
    if scheduler is not None:  # before planning: an unreachable cluster fails at once
        try:
            client, _ = connect(scheduler, timeout=connect_timeout)
        except (SchedulerUnreachable, ValueError, ImportError) as exc:
            _fail(str(exc))
    try:
        _bench(
            suite,
            ts,
            methods,
            ns,
            n_seeds,
            out,
            jobs,
            client,
            False if quiet else None,
            retries,
            verbose,
            json_out,
        )
    finally:
        if client is not None:
            client.close()


def _bench(
    suite, ts, methods, ns, n_seeds, out, workers, client, progress, retries, verbose, json_out
):
    """``progress``: False (``--quiet``) or None (a bar when stderr is a terminal)."""
    from infometer import __version__
    from infometer.core.parallel import Execution, LockTimeout, WorkerStartError
    from infometer.workflows.bench import Store, plan, run_sweep

    mark_resumable()  # finished runs are in --out: Ctrl-C says how to resume
    jobs, skipped = plan(ts, methods, ns, range(n_seeds))
    if skipped:
        by: dict[str, int] = {}
        for _, m, _ in skipped:
            by[m] = by.get(m, 0) + 1
        counts = ", ".join(f"{m} on {k} task(s)" for m, k in by.items())
        note(f"not applicable (skipped): {counts}; --verbose lists why")
        if verbose:
            for task, m, why in skipped:
                note(f"  {task} × {m}: {why}")
    if not jobs:
        _fail("no (task, estimator) pair applies; see the skip lines above")
    try:
        store = Store(out, log=note)  # waits while another sweep holds the directory
    except LockTimeout as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"--out {out}: {exc.strerror or exc}")
    except ValueError as exc:  # no, a damaged or another analysis's identity; a damaged file
        _fail(f"--out {out}: {exc}")
    with store:
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
        try:
            execution = Execution(
                n_jobs=workers, scheduler=client, progress=progress, retries=retries
            )
            res = run_sweep(jobs, store, execution=execution, log=note)
        except (LockTimeout, WorkerStartError, ValueError) as exc:
            _fail(str(exc))
        rows = store.rows()
    keys = {j.key for j in jobs}
    mine = [r for r in rows if (r["task"], r["method"], r["n"], r["seed"]) in keys]
    flags = [f for r in mine for f in (r.get("flags") or []) if " " in str(f)]
    if flags:  # one summary for the run, not a line per run
        warn_summary(flags, limit=4)
        note(f"{len(flags)} warnings in {len(mine)} runs: each run's are in its flags")
    if json_out:
        print_json(
            {
                "suite": suite,
                "methods": _summary_rows(mine),
                "ran": res.ran,
                "already_done": res.already_done,
                "failed": res.failed,
                "retried": res.retried,
                "results": os.path.join(out, "results.sqlite"),
            }
        )
    else:
        _summary(mine)
        rerun = f", {res.retried} re-run after a lost worker" if res.retried else ""
        say(
            f"{res.ran} run(s) done now, {res.already_done} already stored, {res.failed} failed"
            f"{rerun}; results in {os.path.join(out, 'results.sqlite')}"
        )
    if res.interrupted:
        warn_line(
            "stopped by Ctrl-C: finished runs are saved; run the same command again to resume."
        )
        raise typer.Exit(code=130)
    if res.missing:
        from infometer.core.parallel import Outcome

        text = Outcome(planned=res.planned, missing=res.missing).describe(limit=5)
        error_line(f"{text}; run the same command again to retry them")
        raise typer.Exit(code=1)


def _peer_methods(spec: str, peer_dir: str | None, timeout: float) -> list[str]:
    """Configure the named peers (their interpreters) and return their contenders."""
    from infometer.workflows.bench import _peers

    if not timeout > 0:
        _fail(f"--peer-timeout must be > 0, got {timeout}")
    if peer_dir is not None and not os.path.isdir(peer_dir):
        _fail(f"--peer-dir {peer_dir!r} is not a directory")
    os.environ["INFOMETER_PEER_TIMEOUT"] = str(timeout)
    specs = [p.strip() for p in spec.split(",") if p.strip()]
    try:
        methods = _peers.configure(specs, peer_dir)
    except ValueError as exc:
        _fail(f"--peers: {exc}")
    found = [m for m in methods if os.path.exists(_peers.peer_python(_peers.peer_name(m)) or "")]
    missing = [_peers.peer_name(m) for m in methods if m not in found]
    if "all" in specs:
        if missing:
            note(f"peers without an interpreter (not run): {', '.join(missing)}")
        return found
    if missing:
        warn_line(
            f"no interpreter for peer(s) {', '.join(missing)}: their runs are stored as "
            "peer-missing (give NAME=PYTHON, --peer-dir or INFOMETER_PEER_DIR)"
        )
    return methods


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


def _summary_rows(mine: list[dict]) -> list[dict]:
    """Per estimator: runs, failures, median |error| (nats), share within 0.1 nats, time."""
    import numpy as np

    by: dict[str, list[dict]] = {}
    for r in mine:
        by.setdefault(r["method"], []).append(r)
    out = []
    for m, rs in sorted(by.items()):
        ok = [r for r in rs if r["status"] == "ok"]
        err = np.abs([r["error"] for r in ok]) if ok else np.array([])
        out.append(
            {
                "estimator": m,
                "runs": len(rs),
                "failed": len(rs) - len(ok),
                "median_abs_error": float(np.median(err)) if err.size else None,
                "within_0.1_nats": float((err <= 0.1).mean()) if err.size else None,
                "median_time_s": float(np.median([r["wall_s"] for r in ok])) if ok else None,
            }
        )
    return out


def _summary(mine: list[dict]) -> None:
    import pandas as pd

    from infometer.workflows.bench._report import winners

    t = table(
        "estimator",
        "runs",
        "failed",
        "median |err| (nats)",
        "within 0.1 nats",
        "median time (s)",
    )
    for r in _summary_rows(mine):
        med, share, wall = r["median_abs_error"], r["within_0.1_nats"], r["median_time_s"]
        t.add_row(
            cell(r["estimator"]),
            str(r["runs"]),
            str(r["failed"]),
            "-" if med is None else f"{med:.3f}",
            "-" if share is None else f"{share:.0%}",
            "-" if wall is None else f"{wall:.3f}",
        )
    _out.print(t)
    if not mine:
        return
    df = pd.DataFrame(mine)
    df["abs_error"] = pd.to_numeric(df["error"], errors="coerce").abs()
    win = winners(df)
    w = table(
        "task family",
        "winner (lowest median |err|)",
        "median |err|",
        "runner-up",
        "auto chose",
        title="Winner per task family",
    )
    for _, r in win.iterrows():
        ru = r["runner-up"]
        if ru != "–":
            ru = f"{ru} ({r['runner-up |err|']:.3f})"
        w.add_row(
            cell(r["family"]),
            cell(r["winner"]),
            f"{r['median |err|']:.3f}",
            cell(ru),
            cell(r["auto chose"]),
        )
    _out.print(w)


def report_cmd(
    directory: str = typer.Argument(..., help="Directory written by `infometer bench`."),
    output: str = typer.Option("report.html", "--output", "-o", help="HTML file to write."),
    tolerance: float = typer.Option(
        0.1, "--tolerance", help="A task fails when |mean error| exceeds this (nats)."
    ),
) -> None:
    """Write a self-contained HTML report of a benchmark directory."""
    from infometer.workflows.bench._report import write_report
    from infometer.workflows.bench._store import DB_NAME

    if not os.path.exists(os.path.join(directory, DB_NAME)):
        _fail(f"{directory} has no {DB_NAME}; run `infometer bench --out {directory}` first")
    if not (0 < tolerance < float("inf")):  # inf would pass every task
        _fail(f"--tolerance must be a finite number > 0, got {tolerance}")
    from infometer.workflows.bench._report import completeness, incomplete_message

    from ._paths import check_out_file

    check_out_file(output, "--output")  # before the store is read

    path = write_report(directory, output, tolerance=tolerance)
    say(f"report written to {path}")
    info = completeness(directory)
    for msg in (incomplete_message(info), info["note"]):
        if msg:
            warn_line(msg)


def register(app: typer.Typer) -> None:
    """Add ``bench`` and ``report`` to the ``infometer`` app."""
    from .app import user_errors  # bad input -> one error line, exit 2

    app.command("bench")(user_errors(bench_cmd))
    app.command("report")(user_errors(report_cmd))


def _standalone() -> typer.Typer:
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    register(app)
    return app


if __name__ == "__main__":  # python -m infometer.cli._bench bench ...
    _standalone()()
