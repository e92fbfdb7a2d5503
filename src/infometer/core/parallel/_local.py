"""Local worker processes: spawned interpreters that run one job at a time, die with
their parent, and are replaced when they die."""

from __future__ import annotations

import collections
import contextlib
import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from ._interrupt import POLL_S
from ._outcome import describe_error

#: Thread-count variables set to ``threads_per_worker`` in spawned workers' environment.
THREAD_VARS = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMBA_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
)


class WorkerStartError(RuntimeError):
    """Local worker processes die or fail while starting (before running any job)."""


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
        conn.send(("init-error", describe_error(exc) + "\n" + traceback.format_exc(limit=5)))
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
            reply = (token, False, describe_error(exc))
        try:
            conn.send(reply)
        except (EOFError, OSError):
            return
        except Exception as exc:  # the result does not pickle: nothing was written yet
            conn.send((token, False, f"result could not be sent back: {describe_error(exc)}"))


@dataclass
class _Worker:
    proc: Any
    conn: Any
    ready: bool = False
    key: Hashable | None = None
    token: int = 0


class LocalPool:
    """Spawned worker processes, one job each at a time, replaced when they die."""

    def __init__(self, run: Any, n: int, threads: int, initializer, initargs) -> None:
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

    def _dispatch(self, w: _Worker, queue: collections.deque) -> None:
        """Send the next job to the idle worker ``w``.  A worker killed since its last
        reply (its pipe is broken) never received the job: the job goes back to the front
        of the queue, not charged as an attempt, and the worker is handled as dead now
        rather than when its sentinel is seen (which used to be a ``BrokenPipeError``)."""
        key = queue.popleft()
        self.tokens += 1
        try:
            w.conn.send((self.tokens, self.run_.jobs[key]))
        except (BrokenPipeError, ConnectionResetError, EOFError, OSError):
            queue.appendleft(key)
            self._dead(w, queue)
            return
        w.key, w.token = key, self.tokens

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
                for w in list(self.workers):  # hand out jobs to idle workers
                    if w.ready and w.key is None and queue:
                        self._dispatch(w, queue)
                if not queue and all(w.key is None for w in self.workers):
                    return
                need = min(self.n, len(queue) + sum(w.key is not None for w in self.workers))
                while len(self.workers) < need:  # replace dead workers while work remains
                    self._spawn()
                conns = {w.conn: w for w in self.workers}
                sentinels = {w.proc.sentinel: w for w in self.workers}
                ready = wait([*conns, *sentinels], timeout=POLL_S)
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
