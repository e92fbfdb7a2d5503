"""SCRIBES' script contract: ``main(html)`` run in an isolated process under CPU/memory limits.

A script is Python source defining ``main(html) -> list[[subject, predicate, object]]``
(a reply's last fenced ``python`` block is taken, as in SCRIBES).  It runs in a worker
process started with ``python -I`` that pre-imports the allowed modules; every run forks
a child which sets ``RLIMIT_CPU`` (default 4 s, SCRIBES' limit) and ``RLIMIT_AS`` (the
worker's size plus 256 MB, SCRIBES' limit), installs an import hook that refuses modules
outside :data:`ALLOWED_IMPORTS` and removes ``open``/``exec``/``eval``/``compile``/
``input`` from the script's builtins.  A child that overruns its wall-clock limit is
killed.  Any failure -- syntax error, exception, refused import, CPU or memory limit,
timeout, output that is not a list of 3-string lists or is larger than
:data:`MAX_OUTPUT` -- gives ``ok=False`` and scores 0; the run goes on.

This is the isolation SCRIBES' ``code_execution.py`` provides (a subprocess with
resource limits), not a security boundary against hostile code: run untrusted scripts
inside a container as well.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ALLOWED_IMPORTS",
    "MAX_OUTPUT",
    "RunResult",
    "Sandbox",
    "extract_code",
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


_WORKER = r"""
import builtins, json, os, resource, select, signal, sys, traceback
ALLOWED = set(json.loads(sys.argv[1]))
MAX_OUT = int(sys.argv[2])
for m in ALLOWED:
    try:
        __import__(m)
    except Exception:
        pass
try:
    import lxml.html, lxml.etree  # noqa
except Exception:
    pass
try:
    import bs4  # noqa
except Exception:
    pass
_real_import = builtins.__import__

def _guarded(name, globals=None, locals=None, fromlist=(), level=0):
    if globals is not None and globals.get("__name__") == "__script__":
        top = name.split(".")[0]
        if level != 0 or top not in ALLOWED:
            raise ImportError(f"import of {name!r} is not allowed in an extraction script")
    return _real_import(name, globals, locals, fromlist, level)

def _vm_bytes():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0

def child(code, pages, cpu_s, mem_mb, wfd):
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
    lim = _vm_bytes() + mem_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
    builtins.__import__ = _guarded
    safe = {k: getattr(builtins, k) for k in dir(builtins)
            if k not in ("open", "exec", "eval", "compile", "input", "breakpoint", "exit", "quit")}
    safe["__import__"] = _guarded
    g = {"__name__": "__script__", "__builtins__": safe}
    out = []
    try:
        exec(compile(code, "<script>", "exec"), g)
        main = g.get("main")
        if not callable(main):
            raise TypeError("the script defines no main(html)")
    except BaseException as e:
        msg = f"{type(e).__name__}: {e}"
        out = [{"ok": False, "error": msg} for _ in pages]
        os.write(wfd, json.dumps(out).encode()); os._exit(0)
    for html in pages:
        try:
            res = main(html)
            if not isinstance(res, (list, tuple)):
                raise TypeError(f"main returned {type(res).__name__}, not a list of triples")
            if len(res) > MAX_OUT:
                raise ValueError(f"main returned {len(res)} triples (limit {MAX_OUT})")
            tr = []
            for t in res:
                if not isinstance(t, (list, tuple)) or len(t) != 3:
                    raise TypeError(f"main returned {t!r}, not a 3-element list")
                tr.append([str(x) for x in t])
            out.append({"ok": True, "triples": tr})
        except MemoryError:
            out.append({"ok": False, "error": "MemoryError: memory limit"})
        except BaseException as e:
            out.append({"ok": False, "error": f"{type(e).__name__}: {e}"[:300]})
    data = json.dumps(out).encode()
    os.write(wfd, data)
    os._exit(0)

def run_one(job, html):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            child(job["code"], [html], job["cpu_s"], job["mem_mb"], w)
        finally:
            os._exit(1)
    os.close(w)
    chunks, deadline_hit = [], False
    timeout = job["wall_s"]
    t0 = time.monotonic()
    while True:
        left = timeout - (time.monotonic() - t0)
        if left <= 0:
            deadline_hit = True
            break
        rr, _, _ = select.select([r], [], [], left)
        if not rr:
            continue
        b = os.read(r, 1 << 20)
        if not b:
            break
        chunks.append(b)
    if deadline_hit:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    _, status = os.waitpid(pid, 0)
    os.close(r)
    try:
        return json.loads(b"".join(chunks).decode())[0]
    except Exception:
        if deadline_hit:
            why = f"timeout: killed after {timeout:g} s wall clock"
        elif os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            why = {signal.SIGXCPU: "CPU time limit", signal.SIGKILL: "killed (CPU or memory limit)",
                   signal.SIGSEGV: "crashed (memory limit)"}.get(sig, f"killed by signal {sig}")
        else:
            why = f"the script process exited with status {os.WEXITSTATUS(status)}"
        return {"ok": False, "error": why}

import time
for line in sys.stdin:
    job = json.loads(line)
    res = [run_one(job, html) for html in job["pages"]]
    sys.stdout.write(json.dumps(res) + "\n")
    sys.stdout.flush()
"""


@dataclass(frozen=True)
class RunResult:
    """The outcome of one script on one page: triples, or the error that scored it 0."""

    ok: bool
    triples: tuple[tuple[str, str, str], ...] = ()
    error: str = ""


class Sandbox:
    """A worker process that runs extraction scripts under SCRIBES' limits.

    Parameters
    ----------
    cpu_seconds
        CPU-time limit of one script run on one page (SCRIBES: 4 s).
    memory_mb
        Address space a run may add on top of the worker's.
    wall_seconds
        Wall-clock limit of one run; ``None`` gives ``5 * cpu_seconds + 5`` (room for a
        loaded machine: the CPU limit is the one that normally ends a loop).

    Examples
    --------
    >>> with Sandbox() as sb:
    ...     sb.run("def main(html):\\n    return [['a', 'b', html]]", ["x"])[0].triples
    (('a', 'b', 'x'),)
    """

    def __init__(
        self, *, cpu_seconds: int = 4, memory_mb: int = 256, wall_seconds: float | None = None
    ) -> None:
        if not isinstance(cpu_seconds, int) or cpu_seconds < 1:
            raise ValueError(f"cpu_seconds must be a positive integer, got {cpu_seconds!r}")
        if not isinstance(memory_mb, int) or memory_mb < 16:
            raise ValueError(f"memory_mb must be an integer >= 16, got {memory_mb!r}")
        self.cpu_seconds = cpu_seconds
        self.memory_mb = memory_mb
        self.wall_seconds = float(wall_seconds or 5 * cpu_seconds + 5)
        self._proc: subprocess.Popen[str] | None = None

    def _start(self) -> subprocess.Popen[str]:
        if self._proc is None or self._proc.poll() is not None:
            env = {"PATH": os.environ.get("PATH", ""), "OMP_NUM_THREADS": "1"}
            self._proc = subprocess.Popen(
                [sys.executable, "-I", "-c", _WORKER, json.dumps(ALLOWED_IMPORTS), str(MAX_OUTPUT)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                env=env,
            )
        return self._proc

    def run(self, script: str, pages: Sequence[str]) -> list[RunResult]:
        """Run ``script`` (source, or a reply with a fenced block) on each page.

        Each page runs in its own forked child with the full limits (as SCRIBES runs each
        page separately); a page that fails scores 0 and the others go on.
        """
        code = extract_code(script)
        pages = list(pages)
        if any(not isinstance(p, str) for p in pages):
            raise TypeError("pages must be HTML strings")
        proc = self._start()
        job = {
            "code": code,
            "pages": pages,
            "cpu_s": self.cpu_seconds,
            "mem_mb": self.memory_mb,
            "wall_s": self.wall_seconds,
        }
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(job) + "\n")
        proc.stdin.flush()
        line = proc.stdout.readline()
        if not line:
            self.close()
            return [RunResult(False, (), "the sandbox worker died") for _ in pages]
        out = []
        for r in json.loads(line):
            if r["ok"]:
                out.append(RunResult(True, tuple(tuple(t) for t in r["triples"]), ""))
            else:
                out.append(RunResult(False, (), r["error"]))
        return out

    def close(self) -> None:
        """Stop the worker process."""
        if self._proc is not None:
            try:
                if self._proc.stdin:
                    self._proc.stdin.close()
                self._proc.wait(timeout=5)
            except Exception:  # pragma: no cover
                self._proc.kill()
            self._proc = None

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:  # pragma: no cover - best effort
        try:
            self.close()
        except Exception:
            pass


def run_script(script: str, pages: Sequence[str], **limits: Any) -> list[RunResult]:
    """Run one script on ``pages`` in a fresh :class:`Sandbox` (see its limits).

    Examples
    --------
    >>> run_script("import os\\ndef main(html):\\n    return []", ["<p>x</p>"])[0].ok
    False
    """
    with Sandbox(**limits) as sb:
        return sb.run(script, pages)
