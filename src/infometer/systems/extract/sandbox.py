"""SCRIBES' script contract, ``main(html)``, run in a sandbox made by the operating system.

A script is Python source defining ``main(html) -> list[[subject, predicate, object]]``
(a reply's last fenced ``python`` block is taken, as in SCRIBES).  :func:`run_script` is
the one entry point (:class:`Sandbox` keeps its limits for repeated calls).

Every call starts a fresh sandbox with bubblewrap: new user, PID, network, IPC, UTS and
cgroup namespaces, no capabilities, an empty environment, a read-only root holding only
what Python and the allowed packages need (system libraries, the interpreter and its
standard library, ``lxml``/``bs4``), a private ``/tmp`` and no ``/proc``.  Inside, a
supervisor forks one process per page; before running the script that process sets
``RLIMIT_CPU`` (default 4 s), ``RLIMIT_AS`` (the supervisor's size plus 256 MB),
``RLIMIT_FSIZE`` (stdout/stderr are a log file of at most :data:`LOG_BYTES`),
``RLIMIT_NOFILE``/``RLIMIT_NPROC``, and installs a seccomp filter (:mod:`._seccomp`) that
kills it on any fork/exec, socket, signal to another process, ptrace or file change.
Results come back on a dedicated pipe, at most :data:`RESULT_BYTES` per page, and are
validated here; stdout/stderr are never parsed.  A page runs at most ``wall_seconds``;
the whole sandbox is killed (its PID namespace with it) when the call returns.  The
import allow-list and the removed builtins (``open``, ``exec``, ``eval``, ...) stay as a
second wall only.

Where the sandbox cannot be made (no bubblewrap, user namespaces disabled, an
architecture without a filter), scripts are refused with :class:`SandboxUnavailableError`
unless ``allow_unisolated=True`` (CLI ``--allow-unisolated``): then they run with the
limits, the seccomp filter where the architecture has one and the Python guards, but can
read every file the user can.  Any failure -- syntax error, exception, refused import,
forbidden system call, a limit, output that is not a list of 3-string lists or is larger
than :data:`MAX_OUTPUT` triples -- gives ``ok=False`` and scores 0; the run goes on.
"""

from __future__ import annotations

import functools
import json
import os
import re
import select
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from infometer.core.results import Result

from ._isolation import PACKAGES, Environment, bwrap_argv, environment, python_argv
from ._seccomp import machine_arch

__all__ = [
    "ALLOWED_IMPORTS",
    "LOG_BYTES",
    "MAX_OUTPUT",
    "RESULT_BYTES",
    "Isolation",
    "RunResult",
    "Sandbox",
    "SandboxUnavailableError",
    "extract_code",
    "isolation",
    "run_script",
]

#: SCRIBES' allow-list plus ``lxml`` (our compiled scripts use lxml's XPath for speed).
ALLOWED_IMPORTS: tuple[str, ...] = (
    "re",
    "json",
    "itertools",
    "collections",
    "bs4",
    "typing",
    "lxml",
    "math",
    "string",
)
#: Largest number of triples a script may return.
MAX_OUTPUT = 100_000
#: Largest stdout + stderr of one page's run (a larger write kills it); the first 4 KB
#: come back in :attr:`RunResult.log`.
LOG_BYTES = 1 << 20
#: Largest result (JSON) of one page's run.
RESULT_BYTES = 16 << 20
_SUPERVISOR_LOG = 64 << 10
_START_SECONDS = 30.0

_FENCE = re.compile(r"```(?:python|py)\s*\n(.*?)```", re.S)


def extract_code(reply: str) -> str:
    """The last fenced ``python`` block of a reply, or the reply itself if it has none.

    Examples
    --------
    >>> extract_code("text\\n```python\\ndef main(html):\\n    return []\\n```")
    'def main(html):\\n    return []\\n'
    """
    if not isinstance(reply, str):
        raise TypeError(f"script must be a string of Python source, got {type(reply).__name__}")
    blocks = _FENCE.findall(reply)
    return blocks[-1] if blocks else reply


@dataclass(frozen=True, eq=False, repr=False)
class RunResult(Result):
    """The outcome of one script on one page: triples, or the error that scored it 0.

    ``log`` is the start (4 KB) of what the run wrote to stdout/stderr: a log only.
    """

    ok: bool
    triples: tuple[tuple[str, str, str], ...] = ()
    error: str = ""
    log: str = ""


@dataclass(frozen=True)
class Isolation:
    """Whether scripts run isolated by the operating system here, how, or why not."""

    available: bool
    mechanism: str
    reason: str = ""


class SandboxUnavailableError(RuntimeError):
    """The operating-system sandbox cannot be made here and unisolated runs were not allowed."""


@functools.lru_cache(maxsize=1)
def isolation() -> Isolation:
    """Check (once per process) that a test script runs in the full sandbox here.

    Examples
    --------
    >>> isolation().mechanism  # doctest: +SKIP
    'bubblewrap namespaces + seccomp (x86_64)'
    """
    env = environment(ALLOWED_IMPORTS)
    mech = f"bubblewrap namespaces + seccomp ({machine_arch()})"
    if env.seccomp is None:
        return Isolation(False, mech, f"no seccomp filter for this architecture ({machine_arch()})")
    if env.bwrap is None:
        return Isolation(False, mech, "bubblewrap (bwrap) is not installed")
    try:
        res = _execute(
            env,
            "def main(html):\n    return [['a', 'b', html]]\n",
            ["ok"],
            isolated=True,
            cpu_seconds=10,
            mem_bytes=env.base_vm + (256 << 20),
            wall_seconds=60.0,
        )[0]
    except OSError as e:
        return Isolation(False, mech, f"bwrap could not start: {e}")
    if res.ok and res.triples == (("a", "b", "ok"),):
        return Isolation(True, mech)
    return Isolation(False, mech, f"a test script failed under bwrap: {res.error}")


def _refusal(reason: str) -> str:
    return (
        f"refusing to run an untrusted script: the operating-system sandbox is unavailable "
        f"here ({reason}). Install bubblewrap (`apt-get install bubblewrap`, or run "
        f"`.ci/ensure-bwrap`) on a kernel that allows unprivileged user namespaces, or pass "
        f"allow_unisolated=True to run it with resource limits, the seccomp filter and "
        f"Python-level guards only (it can then read every file you can)"
    )


def run_script(
    script: str,
    pages: Sequence[str],
    *,
    cpu_seconds: int = 4,
    memory_mb: int = 256,
    wall_seconds: float | None = None,
    allow_unisolated: bool = False,
) -> list[RunResult]:
    """Run ``script`` (source, or a reply with a fenced block) on each page in a fresh sandbox.

    Parameters
    ----------
    script
        Python source defining ``main(html)``, or a model's reply (its last fenced
        ``python`` block is run).
    pages
        HTML strings; each page runs in its own process with the full limits (as SCRIBES
        runs each page separately), so a page that fails scores 0 and the others go on.
    cpu_seconds
        CPU-time limit of one page (SCRIBES: 4 s).
    memory_mb
        Address space a page's run may add to the supervisor's.
    wall_seconds
        Wall-clock limit of one page; ``None`` gives ``5 * cpu_seconds + 5`` (room for a
        loaded machine: the CPU limit is the one that normally ends a loop).
    allow_unisolated
        Run even where the operating-system sandbox cannot be made (see the module's
        text); otherwise that raises :class:`SandboxUnavailableError`.

    Returns
    -------
    list of RunResult
        One per page, in order.

    Examples
    --------
    >>> run_script("import os\\ndef main(html):\\n    return []", ["<p>x</p>"])[0].ok
    False
    >>> run_script("def main(html):\\n    return [['a', 'b', html]]", ["x"])[0].triples
    (('a', 'b', 'x'),)
    """
    return Sandbox(
        cpu_seconds=cpu_seconds,
        memory_mb=memory_mb,
        wall_seconds=wall_seconds,
        allow_unisolated=allow_unisolated,
    ).run(script, pages)


class Sandbox:
    """The limits of :func:`run_script`, kept for repeated runs (each run is a fresh sandbox).

    Parameters are those of :func:`run_script`.  Constructing one checks that the sandbox
    can be made here (or that ``allow_unisolated`` is set).

    Examples
    --------
    >>> with Sandbox() as sb:
    ...     sb.run("def main(html):\\n    return [['a', 'b', html]]", ["x"])[0].triples
    (('a', 'b', 'x'),)
    """

    def __init__(
        self,
        *,
        cpu_seconds: int = 4,
        memory_mb: int = 256,
        wall_seconds: float | None = None,
        allow_unisolated: bool = False,
    ) -> None:
        if not isinstance(cpu_seconds, int) or isinstance(cpu_seconds, bool) or cpu_seconds < 1:
            raise ValueError(f"cpu_seconds must be a positive integer, got {cpu_seconds!r}")
        if not isinstance(memory_mb, int) or isinstance(memory_mb, bool) or memory_mb < 16:
            raise ValueError(f"memory_mb must be an integer >= 16, got {memory_mb!r}")
        if wall_seconds is not None and not (
            isinstance(wall_seconds, (int, float)) and 0 < wall_seconds < float("inf")
        ):
            raise ValueError(f"wall_seconds must be a positive number, got {wall_seconds!r}")
        if not isinstance(allow_unisolated, bool):
            raise TypeError(f"allow_unisolated must be True or False, got {allow_unisolated!r}")
        self.cpu_seconds = cpu_seconds
        self.memory_mb = memory_mb
        self.wall_seconds = float(wall_seconds or 5 * cpu_seconds + 5)
        self.allow_unisolated = allow_unisolated
        iso = isolation()
        if not iso.available and not allow_unisolated:
            raise SandboxUnavailableError(_refusal(iso.reason))
        self.isolated = iso.available

    def run(self, script: str, pages: Sequence[str]) -> list[RunResult]:
        """Run ``script`` on each page (see :func:`run_script`)."""
        code = extract_code(script)
        if isinstance(pages, str):
            raise TypeError("pages must be a sequence of HTML strings, not one string")
        pages = list(pages)
        if any(not isinstance(p, str) for p in pages):
            raise TypeError("pages must be HTML strings")
        if not pages:
            return []
        if not self.isolated:
            warnings.warn(
                "running an untrusted script WITHOUT operating-system isolation "
                f"({isolation().reason}): it can read every file you can",
                _warning_class(),
                stacklevel=2,
            )
        env = environment(ALLOWED_IMPORTS)
        return _execute(
            env,
            code,
            pages,
            isolated=self.isolated,
            cpu_seconds=self.cpu_seconds,
            mem_bytes=env.base_vm + self.memory_mb * (1 << 20),
            wall_seconds=self.wall_seconds,
        )

    def close(self) -> None:
        """Nothing to release (each run's sandbox is gone when the run returns)."""

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _warning_class() -> type[Warning]:
    from infometer.core.data import InfometerWarning

    return InfometerWarning


# ------------------------------------------------------------------- one sandbox run
def _execute(
    env: Environment,
    code: str,
    pages: list[str],
    *,
    isolated: bool,
    cpu_seconds: int,
    mem_bytes: int,
    wall_seconds: float,
) -> list[RunResult]:
    """Start a supervisor (in bwrap when ``isolated``), feed it the job, read its results."""
    tmp = tempfile.mkdtemp(prefix="infometer-script-")
    rr, rw = os.pipe()
    lr, lw = os.pipe()
    if isolated:
        argv = bwrap_argv(env, python_argv(env.interpreter))
        paths, job_tmp = [PACKAGES], "/tmp"
    else:
        argv = python_argv(env.interpreter)
        paths, job_tmp = sorted({os.path.dirname(p) for p in env.packages.values()}), tmp
    job = {
        "code": code,
        "pages": pages,
        "paths": paths,
        "allowed": list(ALLOWED_IMPORTS),
        "result_fd": rw,
        "tmp": job_tmp,
        "cpu_s": cpu_seconds,
        "mem_bytes": mem_bytes,
        "wall_s": wall_seconds,
        "log_bytes": LOG_BYTES,
        "result_bytes": RESULT_BYTES,
        "nofile": 64,
        "seccomp": (env.seccomp or b"").hex(),
        "max_output": MAX_OUTPUT,
    }
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=lw,
            stderr=lw,
            pass_fds=(rw,),
            start_new_session=True,
            env={},
            cwd=tmp,
        )
    except BaseException:
        for fd in (rr, rw, lr, lw):
            os.close(fd)
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    os.close(rw)
    os.close(lw)
    data = json.dumps(job).encode()

    def feed() -> None:
        assert proc.stdin is not None
        try:
            proc.stdin.write(data)
            proc.stdin.close()
        except OSError:  # the supervisor died early: its exit status says why
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    deadline = time.monotonic() + _START_SECONDS + len(pages) * (wall_seconds + 1.0)
    cap = len(pages) * (RESULT_BYTES + (16 << 10)) + (64 << 10)
    results, log, stopped = bytearray(), bytearray(), ""
    open_fds = {rr, lr}
    try:
        while open_fds:
            left = deadline - time.monotonic()
            if left <= 0:
                stopped = "the run passed its overall time limit"
                break
            ready, _, _ = select.select(list(open_fds), [], [], left)
            for fd in ready:
                b = os.read(fd, 1 << 20)
                if not b:
                    open_fds.discard(fd)
                elif fd == rr:
                    results += b
                    if len(results) > cap:
                        stopped = f"the results passed {cap} bytes"
                elif len(log) < _SUPERVISOR_LOG:
                    log += b[: _SUPERVISOR_LOG - len(log)]
            if stopped:
                break
    finally:
        try:  # the whole session (bwrap, or the unisolated supervisor and anything left)
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait()
        writer.join(timeout=5)
        os.close(rr)
        os.close(lr)
        shutil.rmtree(tmp, ignore_errors=True)
    if not stopped and proc.returncode not in (0, -signal.SIGKILL):
        stopped = f"the sandbox exited with status {proc.returncode}"
    return _parse(bytes(results), len(pages), stopped, log.decode("utf-8", "replace"))


def _parse(data: bytes, n: int, stopped: str, log: str) -> list[RunResult]:
    """One :class:`RunResult` per page from the supervisor's records (validated: the
    records carry what an untrusted script produced)."""
    out: list[RunResult] = []
    for line in data.split(b"\n")[:n]:
        if len(out) == n:
            break
        try:
            rec = json.loads(line)
            if not isinstance(rec, dict) or rec.get("page") != len(out):
                raise ValueError("a record out of order")
        except ValueError:
            break
        out.append(_page_result(rec))
    why = stopped or "the sandbox stopped before this page"
    if log.strip():  # the supervisor's or bwrap's own complaint (never the script's output)
        why = f"{why}: {log.strip().splitlines()[-1][:200]}"
    return out + [RunResult(False, (), f"no result: {why}") for _ in range(n - len(out))]


def _page_result(rec: dict[str, Any]) -> RunResult:
    log = rec.get("log") if isinstance(rec.get("log"), str) else ""
    if rec.get("result") is None:
        err = rec.get("error")
        return RunResult(False, (), str(err)[:300] if err else "no result", log)
    try:
        res = json.loads(rec["result"])
    except (TypeError, ValueError):
        return RunResult(False, (), "the script's result is not JSON", log)
    if not isinstance(res, dict) or not isinstance(res.get("ok"), bool):
        return RunResult(False, (), "the script's result is malformed", log)
    if not res["ok"]:
        return RunResult(False, (), str(res.get("error", "failed"))[:300], log)
    triples = res.get("triples")
    if not isinstance(triples, list) or len(triples) > MAX_OUTPUT:
        return RunResult(False, (), "the script's result is malformed", log)
    for t in triples:
        if not (isinstance(t, list) and len(t) == 3 and all(isinstance(x, str) for x in t)):
            return RunResult(False, (), "the script's result is malformed", log)
    return RunResult(True, tuple((a, b, c) for a, b, c in triples), "", log)
