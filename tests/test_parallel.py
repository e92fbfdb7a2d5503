"""infometer.core.parallel: real processes and threads, no mocks.

Worker deaths are real SIGKILLs of real spawned workers; the lock is a real flock.
(The Dask back end is exercised against a real LocalCluster in tests/bench/test_dask.py,
which shares one cluster across its tests.)
"""

import multiprocessing
import os
import signal
import socket
import threading
import time

import pytest

from infometer.core.parallel import (
    Execution,
    IncompleteRun,
    LockTimeout,
    MemorySink,
    Outcome,
    SchedulerUnreachable,
    connect,
    dir_lock,
    run_jobs,
)


def square_or_fail(x):
    """Module-level, so spawned workers import it by reference."""
    if x == 5:
        raise ValueError("five is not allowed")
    time.sleep(0.05)
    return x * x


def announce_then_nap(job):
    """Write this worker's pid to ``folder/i`` when job i starts, then take 0.4 s."""
    i, folder = job
    with open(os.path.join(folder, f"{i}.tmp"), "w") as f:
        f.write(str(os.getpid()))
    os.replace(os.path.join(folder, f"{i}.tmp"), os.path.join(folder, str(i)))
    time.sleep(0.4)
    return os.getpid()


def die_on_three(x):
    if x == 3:
        os._exit(7)  # the worker process dies, every time, while running job 3
    return x


@pytest.mark.parametrize(
    "kw", [{"n_jobs": 1}, {"execution": Execution(n_jobs=2, backend="threads")}]
)
def test_results_errors_and_resume_in_process_and_threads(kw):
    sink = MemorySink()
    jobs = {f"k{i}": i for i in range(8)}
    seen = []
    out = run_jobs(square_or_fail, jobs, sink, progress=seen.append, **kw)
    assert sink.results == {f"k{i}": i * i for i in range(8) if i != 5}
    assert (out.planned, out.ran, out.already_done, out.retried) == (8, 7, 0, 0)
    assert out.errors == {"k5": "ValueError: five is not allowed"}
    assert out.missing == {"k5": "error: ValueError: five is not allowed"}
    assert not out.complete and "1 of 8 planned results are missing" in out.describe()
    with pytest.raises(IncompleteRun, match="1 of 8") as info:
        out.raise_if_incomplete()
    assert info.value.outcome is out
    # progress: one call per finished job, counting up to the total
    assert [p.done for p in seen] == list(range(1, 9)) and {p.total for p in seen} == {8}
    assert sum(not p.ok for p in seen) == 1
    # resume: held keys are skipped, only the failing one runs again
    again = run_jobs(square_or_fail, jobs, sink, **kw)
    assert (again.already_done, again.ran, len(again.errors)) == (7, 0, 1)


@pytest.mark.slow
def test_local_pool_reruns_the_job_of_a_killed_worker(tmp_path):
    sink, logs, killed = MemorySink(), [], []
    jobs = {i: (i, str(tmp_path)) for i in range(6)}

    def kill_the_worker_running_job_3():
        started = tmp_path / "3"
        t0 = time.monotonic()
        while not started.exists():
            if time.monotonic() - t0 > 120:
                return
            time.sleep(0.005)
        pid = int(started.read_text())  # job 3 has 0.4 s of its nap left: surely running
        os.kill(pid, signal.SIGKILL)
        killed.append(pid)

    killer = threading.Thread(target=kill_the_worker_running_job_3)
    killer.start()
    out = run_jobs(announce_then_nap, jobs, sink, n_jobs=2, log=logs.append)
    killer.join()
    assert killed and out.complete and set(sink.results) == set(jobs)
    assert out.retried == 1 and sink.results[3] != killed[0]  # job 3 ran again, elsewhere
    assert any(f"{killed[0]} died (exit code -{int(signal.SIGKILL)}) running 3" in m for m in logs)
    assert not multiprocessing.active_children()  # workers are gone after the run


class _KillingSink(MemorySink):
    """Kills (and reaps) every worker when the first result arrives: the worker that sent
    it is idle and is handed its next job right after, into a broken pipe."""

    def __init__(self) -> None:
        super().__init__()
        self.killed: list[int] = []

    def add(self, key, result) -> None:
        super().add(key, result)
        if not self.killed:
            for proc in multiprocessing.active_children():
                if proc.name == "infometer-worker":
                    proc.kill()
                    proc.join()
                    self.killed.append(proc.pid)


@pytest.mark.slow
def test_worker_killed_between_dispatches_is_replaced_and_nothing_is_lost():
    """issue 40: a worker killed after its reply and before its next job used to end the
    run in BrokenPipeError; the job is handed to a new worker (never charged: it did not
    run) and every planned result is stored."""
    sink = _KillingSink()
    jobs = {i: i for i in range(8)}
    out = run_jobs(square_or_fail, {k: v for k, v in jobs.items() if v != 5}, sink, n_jobs=2)
    assert sink.killed and out.complete and not out.errors
    assert sink.results == {i: i * i for i in jobs if i != 5}
    assert not multiprocessing.active_children()


@pytest.mark.slow
def test_a_job_that_always_kills_its_worker_is_reported_missing():
    sink = MemorySink()
    out = run_jobs(
        die_on_three, {i: i for i in range(6)}, sink, execution=Execution(n_jobs=2, retries=1)
    )
    assert set(sink.results) == {0, 1, 2, 4, 5}  # the others were not charged for it
    assert out.retried == 1
    assert list(out.missing) == [3] and out.missing[3].startswith("lost: worker process")
    assert "exit code 7" in out.missing[3] and "gave up after 2 attempts" in out.missing[3]


def test_lock_makes_a_second_run_wait_then_skip_what_is_done(tmp_path):
    lock = tmp_path / "run.lock"
    sink = MemorySink()
    jobs = {i: i for i in range(4)}
    results: list[Outcome] = []
    logs: list[str] = []
    with dir_lock(lock):  # "another run" holds the lock ...
        t = threading.Thread(
            target=lambda: results.append(
                run_jobs(square_or_fail, jobs, sink, n_jobs=1, lock=lock, log=logs.append)
            )
        )
        t.start()
        time.sleep(0.5)
        assert t.is_alive() and not results  # ... so this one waits
        assert logs and f"pid {os.getpid()}" in logs[0] and "waiting" in logs[0]
        for k in (0, 1, 2):  # and meanwhile stores these
            sink.add(k, k * k)
    t.join(timeout=30)
    (out,) = results
    assert out.already_done == 3 and out.ran == 1 and sink.results[3] == 9
    with dir_lock(lock):
        with pytest.raises(LockTimeout, match="still locked"):
            run_jobs(square_or_fail, jobs, sink, n_jobs=1, lock=lock, lock_timeout=0.3)


def test_unreachable_scheduler_fails_fast_and_clearly():
    pytest.importorskip("distributed")
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.monotonic()
    with pytest.raises(
        SchedulerUnreachable, match=f"cannot connect to 127.0.0.1:{port} within 3 s"
    ):
        run_jobs(
            abs,
            {1: -1},
            MemorySink(),
            execution=Execution(scheduler=f"tcp://127.0.0.1:{port}", connect_timeout=3),
        )
    assert time.monotonic() - t0 < 3  # refused at once, not after the timeout
    for bad in ("tcp://:x", "tcp://host:port", "http//x:1", "tcp://h:99999"):
        with pytest.raises(ValueError, match="scheduler"):
            connect(bad, timeout=1)


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="n_jobs"):
        run_jobs(abs, {1: 1}, MemorySink(), n_jobs=0)
    for kw, msg in [
        ({"retries": -1}, "retries"),
        ({"backend": "fibers"}, "backend"),
        ({"connect_timeout": 0}, "connect_timeout"),
    ]:
        with pytest.raises(ValueError, match=msg):
            run_jobs(abs, {1: 1}, MemorySink(), execution=Execution(**kw))
    with pytest.raises(TypeError, match="mapping"):
        run_jobs(abs, [1, 2], MemorySink())
    with pytest.raises(TypeError, match="sink"):
        run_jobs(abs, {1: 1}, object())
