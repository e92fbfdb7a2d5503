"""kill -9 at any moment loses no finished run and corrupts nothing; Ctrl-C stops cleanly."""

import os
import signal
import sqlite3
import subprocess
import time

import pytest

from infometer import truth
from infometer.bench import Store, plan

TASKS = "symchannel-1pair-V2-0.5nat,table-4x5-dirichlet,zipf-100,ising1d-K0.5-mi"
METHODS = "plugin,miller_madow,grassberger"
N_SEEDS = 30  # 4 tasks x 3 methods x 30 seeds = 360 runs


def _expected():
    tasks = [truth.get_task(t) for t in TASKS.split(",")]
    jobs, _ = plan(tasks, METHODS.split(","), [300], range(N_SEEDS))
    return {j.key for j in jobs}


def _count(db):
    if not os.path.exists(db):
        return 0
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return con.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        finally:
            con.close()
    except sqlite3.OperationalError:
        return 0


def _start(out, env, workers, bench_cmd):
    args = bench_cmd(
        out,
        "--suite",
        "discrete",
        "--tasks",
        TASKS,
        "-e",
        METHODS,
        "--n",
        "300",
        "--seeds",
        str(N_SEEDS),
        "--workers",
        str(workers),
    )
    return subprocess.Popen(
        args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )


def _wait_for(db, at_least, proc, timeout=120):
    t0 = time.time()
    while _count(db) < at_least:
        assert proc.poll() is None, "bench exited before it could be killed"
        assert time.time() - t0 < timeout, "bench made no progress"
        time.sleep(0.05)


@pytest.mark.slow
@pytest.mark.parametrize("workers,kills", [(1, ((5, 0.0), (40, 0.137))), (2, ((20, 0.05),))])
def test_kill_minus_9_loses_nothing(tmp_path, bench_env, bench_cmd, workers, kills):
    db = tmp_path / "results.sqlite"
    snapshots = []
    # kill the whole process group (workers too) with SIGKILL at varied moments
    for at_least, extra_delay in kills:
        proc = _start(tmp_path, bench_env, workers, bench_cmd)
        _wait_for(db, at_least, proc)
        time.sleep(extra_delay)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        with Store(tmp_path) as st:
            assert st.integrity_ok()
            rows = st.rows()
        assert len(rows) >= at_least
        assert all(r["status"] == "ok" and r["estimate"] is not None for r in rows)
        snapshots.append({(r["task"], r["method"], r["n"], r["seed"]): r["estimate"] for r in rows})
        # nothing stored earlier was lost or changed
        for older in snapshots[:-1]:
            assert all(snapshots[-1][k] == v for k, v in older.items())
    # resume to completion
    proc = _start(tmp_path, bench_env, workers, bench_cmd)
    assert proc.wait(timeout=300) == 0, proc.stderr.read().decode()
    with Store(tmp_path) as st:
        rows = st.rows()
        assert st.integrity_ok()
    final = {(r["task"], r["method"], r["n"], r["seed"]): r["estimate"] for r in rows}
    assert set(final) == _expected() and len(rows) == len(final)
    assert all(final[k] == v for k, v in snapshots[-1].items())


@pytest.mark.slow
def test_ctrl_c_stops_cleanly(tmp_path, bench_env, bench_cmd):
    db = tmp_path / "results.sqlite"
    proc = _start(tmp_path, bench_env, 2, bench_cmd)
    _wait_for(db, 10, proc)
    os.kill(proc.pid, signal.SIGINT)  # what Ctrl-C sends to the foreground process
    rc = proc.wait(timeout=60)
    err = proc.stderr.read().decode()
    assert rc == 130, err
    assert "resume" in err
    with Store(tmp_path) as st:
        assert st.integrity_ok()
        n = st.count()
    assert 10 <= n < len(_expected())
    # no worker left behind (multiprocessing helpers exit when their parent's pipe closes)
    t0 = time.time()
    while time.time() - t0 < 20:
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.2)
    else:
        pytest.fail("processes of the interrupted bench are still alive")
