"""kill -9 at any moment loses no finished run and corrupts nothing; Ctrl-C stops cleanly."""

import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from infometer.measures import truth
from infometer.workflows.bench import Store, plan

TASKS = "symchannel-1pair-V2-0.5nat,table-4x5-dirichlet,zipf-100,ising1d-K0.5-mi"
METHODS = "plugin,miller_madow,grassberger"
N_SEEDS = 30  # 4 tasks x 3 methods x 30 seeds = 360 runs


pytestmark = pytest.mark.slow  # the slow lane: deselected by make test-fast


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
        "--jobs",
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


# ---------------------------------------------------------------- lost workers, lost parent
def _procs():
    """pid -> (ppid, pgid, state, cmdline) of every process (Linux /proc)."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                stat = f.read()
            with open(f"/proc/{d}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        out[int(d)] = (int(fields[1]), int(fields[2]), fields[0], cmd)
    return out


def _workers_of(pid):
    return [
        p
        for p, (ppid, _, state, cmd) in _procs().items()
        if ppid == pid and state != "Z" and "spawn_main" in cmd
    ]


needs_proc = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc (Linux)")


@pytest.mark.slow
def test_local_worker_killed_mid_run_store_equals_plan(tmp_path):
    import multiprocessing

    from infometer.workflows.bench import run_sweep

    jobs, _ = plan([truth.get_task(t) for t in TASKS.split(",")], ["plugin"], [300], range(10))
    stored, killed = [], []

    def kill_a_worker(row):
        stored.append(row)
        if len(stored) == 8:
            victim = multiprocessing.active_children()[0].pid
            os.kill(victim, signal.SIGKILL)
            killed.append(victim)

    with Store(tmp_path) as st:
        res = run_sweep(jobs, st, workers=2, progress=False, on_row=kill_a_worker)
        keys = st.done_keys()
        assert st.integrity_ok() and st.missing_keys() == []
    assert killed and not res.missing and res.ran == len(jobs)
    assert keys == {j.key for j in jobs}
    assert not multiprocessing.active_children()


@needs_proc
@pytest.mark.slow
def test_parent_kill_9_leaves_no_process_behind(tmp_path, bench_env, bench_cmd):
    db = tmp_path / "results.sqlite"
    proc = _start(tmp_path, bench_env, 2, bench_cmd)
    _wait_for(db, 10, proc)
    assert len(_workers_of(proc.pid)) == 2
    pgid = proc.pid  # start_new_session: the bench, its workers and the resource tracker
    os.kill(proc.pid, signal.SIGKILL)  # the parent only, as an OOM killer would
    proc.wait(timeout=30)
    t0 = time.time()
    while True:
        alive = {p: v[3] for p, v in _procs().items() if v[1] == pgid and v[2] != "Z"}
        if not alive:
            break
        assert time.time() - t0 < 20, f"left behind after kill -9 of the parent: {alive}"
        time.sleep(0.2)
    with Store(tmp_path) as st:
        assert st.integrity_ok() and st.count() >= 10


@pytest.mark.slow
def test_two_benches_on_one_dir_run_each_job_once(tmp_path, bench_env, bench_cmd):
    out = tmp_path / "out"  # the store folder; the error logs go beside it
    args = bench_cmd(
        out,
        "--tasks",
        TASKS,
        "-e",
        "plugin,grassberger",
        "--n",
        "300",
        "--seeds",
        "15",
        "--jobs",
        "1",
    )
    from infometer.core.parallel import dir_lock

    # Both start while the lock is held (here, as a third run would), so both must wait;
    # then it is released and they race for it: one runs all 120 runs, and the other,
    # still waiting meanwhile, then finds them stored and runs none.
    errs = [tmp_path / f"err{i}.txt" for i in range(2)]
    with dir_lock(out / ".lock"):  # the store folder's lock
        procs = [
            subprocess.Popen(args, env=bench_env, stdout=subprocess.PIPE, stderr=e.open("w"))
            for e in errs
        ]
        t0 = time.time()
        while not all(f"locked by pid {os.getpid()}" in e.read_text() for e in errs):
            assert all(p.poll() is None for p in procs), [e.read_text() for e in errs]
            assert time.time() - t0 < 240, [e.read_text() for e in errs]
            time.sleep(0.1)
    outs = [p.communicate(timeout=300)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [e.read_text() for e in errs]
    ran = [int(re.search(rb"(\d+) run\(s\) done now", o).group(1)) for o in outs]
    planned = 4 * 2 * 15
    assert sorted(ran) == [0, planned]  # one ran every job, the other none of them
    with Store(out) as st:
        assert st.count() == planned and st.missing_keys() == []


@pytest.mark.slow
def test_runs_lost_for_good_make_bench_exit_1_and_say_which(tmp_path, bench_env):
    # crash_in_worker kills its worker on every attempt: 1 retry, then it is lost
    script = Path(__file__).with_name("crashing_bench.py")
    args = [sys.executable, str(script), "bench", "--out", str(tmp_path), "-q"]
    args += ["--tasks", "table-4x5-dirichlet", "-e", "plugin,crash_in_worker", "--n", "200"]
    args += ["--seeds", "2", "--jobs", "2", "--retries", "1"]
    r = subprocess.run(args, env=bench_env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stdout + r.stderr
    err = " ".join(r.stderr.split())  # rich wraps long lines
    assert "error: 2 of 4 planned results are missing (2 lost)" in err, err
    assert "('table-4x5-dirichlet', 'crash_in_worker', 200, 0): lost: worker process" in err
    assert "died (exit code 9); gave up after 2 attempts" in err
    assert "run the same command again" in err and "Traceback" not in err
    with Store(tmp_path) as st:  # the others are stored; the store agrees on what is missing
        assert st.missing_keys() == [
            ("table-4x5-dirichlet", "crash_in_worker", 200, 0),
            ("table-4x5-dirichlet", "crash_in_worker", 200, 1),
        ]
        assert {r["method"] for r in st.rows()} == {"plugin"} and st.count() == 2
