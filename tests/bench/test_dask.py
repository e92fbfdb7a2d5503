"""Sweeps on a real Dask LocalCluster (two worker processes on loopback), one cluster for
the module: the stored results equal the local run's even when a worker is SIGKILLed in
the middle of the sweep, and an unreachable scheduler fails fast with one line."""

import os
import signal
import socket
import time

import pytest

from infometer.core.parallel import Execution, MemorySink, run_jobs
from infometer.measures import truth
from infometer.workflows.bench import Store, plan, run_sweep

distributed = pytest.importorskip("distributed")


pytestmark = pytest.mark.slow  # the slow lane: deselected by make test-fast


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1", dashboard_address=None
    ) as c:
        yield c


def _keyed(rows):
    return {(r["task"], r["method"], r["n"], r["seed"]): r for r in rows}


def nap_then_echo(x):
    time.sleep(1.0)
    return x


def _worker_pids(cluster, want=2, timeout=90):
    """Worker address -> pid, once ``want`` workers are up (a killed one is restarted)."""
    t0 = time.monotonic()
    while len(cluster.scheduler.workers) < want:
        assert time.monotonic() - t0 < timeout, "the killed worker was not restarted"
        time.sleep(0.1)
    with distributed.Client(cluster) as client:
        return client.run(os.getpid)


def _kill_the_worker_holding_most_results(cluster, pids, at_least):
    """SIGKILL the worker with the most finished results in memory; wait until the
    scheduler (and so the client) knows it is gone.  Returns how many it held."""

    def held(address):
        return sum(
            ts.state == "memory" and any(ws.address == address for ws in ts.who_has)
            for ts in list(cluster.scheduler.tasks.values())
        )

    t0 = time.monotonic()
    while True:
        counts = {a: held(a) for a in pids}
        victim = max(counts, key=counts.get)
        if counts[victim] >= at_least or time.monotonic() - t0 > 10:
            break
        time.sleep(0.01)
    os.kill(pids[victim], signal.SIGKILL)
    while victim in cluster.scheduler.workers and time.monotonic() - t0 < 30:
        time.sleep(0.01)
    time.sleep(0.3)  # the client hears that the results are lost
    return counts[victim]


@pytest.mark.slow
def test_a_killed_dask_worker_loses_no_result(tmp_path, cluster):
    # 1. parallel.run_jobs: a worker dies holding results that had already finished but
    # were not fetched yet (the store was busy): this is how runs used to vanish.  The
    # jobs take 1 s, so the lost results cannot be recomputed before they are looked at
    # (0.3 s after the scheduler dropped the worker).
    pids = _worker_pids(cluster)
    sink, lost_with_worker = MemorySink(), []

    def slow_store_then_kill(p):
        if not lost_with_worker:
            lost_with_worker.append(_kill_the_worker_holding_most_results(cluster, pids, 2))

    out = run_jobs(
        nap_then_echo,
        {i: i for i in range(8)},
        sink,
        execution=Execution(scheduler=cluster.scheduler_address),
        progress=slow_store_then_kill,
    )
    assert lost_with_worker[0] >= 2
    assert out.complete and sink.results == {i: i for i in range(8)}, out.describe()
    assert out.retried >= 1  # finished-then-lost futures were resubmitted, not dropped

    # 2. a bench sweep of 120 short runs, a worker killed in the middle: the final store
    # is exactly the planned set, with the same numbers as a local run
    tasks = [
        truth.get_task(t)
        for t in ("symchannel-1pair-V2-0.5nat", "table-4x5-dirichlet", "ising2d-3x3-T2.5")
    ]
    jobs, _ = plan(tasks, ["plugin", "grassberger"], [300], range(20))
    with Store(tmp_path / "local") as st:
        run_sweep(jobs, st, n_jobs=1, progress=False)
        local = _keyed(st.rows())
    pids = _worker_pids(cluster)
    seen: list = []

    def kill_midway(row):
        seen.append(row)
        if len(seen) == 15:
            _kill_the_worker_holding_most_results(cluster, pids, 5)

    with Store(tmp_path / "dask") as st:
        res = run_sweep(
            jobs,
            st,
            execution=Execution(scheduler=cluster.scheduler_address, progress=False),
            on_row=kill_midway,
        )
        assert not res.missing and not res.interrupted
        remote = _keyed(st.rows())
        assert st.missing_keys() == []
        # resuming against the cluster finds nothing left to do
        again = run_sweep(
            jobs, st, execution=Execution(scheduler=cluster.scheduler_address, progress=False)
        )
        assert again.ran == 0 and again.already_done == len(jobs)
    assert set(remote) == set(local) == {j.key for j in jobs}
    for k, r in local.items():
        assert remote[k]["estimate"] == r["estimate"] and remote[k]["status"] == "ok"
    # the runs really went through the cluster's scheduler
    assert cluster.scheduler.task_prefixes["run_job"].state_counts["memory"] >= len(jobs)


def test_unreachable_scheduler_is_one_line_and_fast(tmp_path):
    import typer
    from typer.testing import CliRunner

    from infometer.cli import _bench as bench_cli

    app = typer.Typer()
    bench_cli.register(app)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nobody listens there
    args = ["bench", "--tasks", "zipf-100", "-e", "plugin", "--out", str(tmp_path / "o")]
    t0 = time.monotonic()
    r = CliRunner().invoke(
        app, [*args, "--scheduler", f"tcp://127.0.0.1:{port}", "--connect-timeout", "60"]
    )
    assert r.exit_code == 2, r.output
    assert f"error: --scheduler: cannot reach the Dask scheduler at tcp://127.0.0.1:{port}" in (
        r.output
    )
    assert f"cannot connect to 127.0.0.1:{port} within 60 s" in " ".join(r.output.split())
    assert "Traceback" not in r.output and len(r.output.strip().splitlines()) <= 2, r.output
    # refused at once (not after the 60 s timeout) and before any planning
    assert time.monotonic() - t0 < 30
    assert not (tmp_path / "o").exists()  # nothing was written
