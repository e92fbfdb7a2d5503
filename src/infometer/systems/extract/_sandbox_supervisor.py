"""The supervisor that runs inside the sandbox (its source is passed to ``python -c``).

Not imported by infometer: :mod:`.sandbox` reads this file's text and starts it as
``python -I -S -B -X utf8 -c <source>`` inside the namespaces of :mod:`._isolation` (or, with
``allow_unisolated=True``, directly).  It imports nothing from infometer (the sandbox cannot
see infometer's files).

Protocol.  The job arrives as one JSON object on stdin: ``code``, ``pages``, ``paths``
(folders put in front of ``sys.path``), ``allowed`` (importable top-level modules),
``result_fd``, ``tmp`` (the private folder for logs), limits (``cpu_s``, ``mem_bytes``,
``wall_s``, ``log_bytes``, ``result_bytes``, ``nofile``), ``seccomp`` (the filter as hex,
or ``""``) and ``max_output``.  For every page it forks a child that drops into the limits
and the filter, runs ``main(html)`` and writes its answer as JSON on a pipe of its own;
the supervisor writes one line ``{"page": i, "result": <the child's JSON text or null>,
"error": <why there is none, or null>, "log": <the start of the child's stdout/stderr>}``
per page on ``result_fd``.  Its own stdout/stderr are a log the caller never parses; the
caller validates every record it reads (the child is untrusted).

With ``{"probe": true}`` it imports what a run imports and reports its address-space size
and mapped files instead (run on the host, never in the sandbox, to size ``RLIMIT_AS`` and
to find the shared libraries to mount).
"""

import builtins
import ctypes
import json
import os
import re
import resource
import select
import signal
import sys
import time

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
PR_SET_DUMPABLE = 4
SECCOMP_MODE_FILTER = 2
# modules loaded before forking, when the script names them (loading them once keeps each
# page's fork cheap; a module the script reaches otherwise is loaded by the page's process)
PRELOAD = ("lxml.html", "lxml.etree", "bs4")
SCRIPT_NAME = "__script__"


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _import_all(allowed, code):
    for m in list(allowed) + list(PRELOAD):
        if code is not None and not re.search(rf"\b{m.split('.')[0]}\b", code):
            continue
        try:
            __import__(m)
        except Exception:
            pass


def _guarded_import(allowed, real_import):
    def guarded(name, globals=None, locals=None, fromlist=(), level=0):
        if globals is not None and globals.get("__name__") == SCRIPT_NAME:
            top = name.split(".")[0]
            if level != 0 or top not in allowed:
                raise ImportError(f"import of {name!r} is not allowed in an extraction script")
        return real_import(name, globals, locals, fromlist, level)

    return guarded


def _install_seccomp(libc, bpf):
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    buf = ctypes.create_string_buffer(bpf, len(bpf))
    prog = _SockFprog(len(bpf) // 8, ctypes.cast(buf, ctypes.c_void_p))
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP) failed")


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _child(job, html, wfd, logfd, libc, bpf):
    """The page's process: limits, filter, Python guards, then the script.  Never returns."""
    try:
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(logfd, 1)
        os.dup2(logfd, 2)
        os.closerange(3, wfd)
        os.closerange(wfd + 1, 1 << 16)
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)  # Python ignores it: a big write kills
        lim = resource.setrlimit
        lim(resource.RLIMIT_CORE, (0, 0))
        lim(resource.RLIMIT_CPU, (job["cpu_s"], job["cpu_s"] + 1))
        lim(resource.RLIMIT_AS, (job["mem_bytes"], job["mem_bytes"]))
        lim(resource.RLIMIT_FSIZE, (job["log_bytes"], job["log_bytes"]))
        lim(resource.RLIMIT_NOFILE, (job["nofile"], job["nofile"]))
        lim(resource.RLIMIT_NPROC, (1, 1))
        allowed = set(job["allowed"])
        guarded = _guarded_import(allowed, builtins.__import__)
        builtins.__import__ = guarded
        removed = ("open", "exec", "eval", "compile", "input", "breakpoint", "exit", "quit")
        safe = {k: getattr(builtins, k) for k in dir(builtins) if k not in removed}
        safe["__import__"] = guarded
        g = {"__name__": SCRIPT_NAME, "__builtins__": safe}
        if bpf:
            _install_seccomp(libc, bpf)
    except BaseException as e:  # the sandbox itself failed: say so, score 0
        msg = {"ok": False, "error": f"sandbox set-up failed: {type(e).__name__}: {e}"[:300]}
        _write_all(wfd, json.dumps(msg).encode())
        os._exit(0)
    try:
        exec(compile(job["code"], "<script>", "exec"), g)
        main = g.get("main")
        if not callable(main):
            raise TypeError("the script defines no main(html)")
        res = main(html)
        if not isinstance(res, (list, tuple)):
            raise TypeError(f"main returned {type(res).__name__}, not a list of triples")
        if len(res) > job["max_output"]:
            raise ValueError(f"main returned {len(res)} triples (limit {job['max_output']})")
        triples = []
        for t in res:
            if not isinstance(t, (list, tuple)) or len(t) != 3:
                raise TypeError(f"main returned {t!r:.80}, not a 3-element list")
            triples.append([str(x) for x in t])
        out = {"ok": True, "triples": triples}
    except MemoryError:
        out = {"ok": False, "error": "MemoryError: memory limit"}
    except BaseException as e:
        out = {"ok": False, "error": f"{type(e).__name__}: {e}"[:300]}
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        pass
    try:
        data = json.dumps(out).encode()
    except MemoryError:
        out = None
        data = b'{"ok": false, "error": "MemoryError: the result does not fit the memory limit"}'
    _write_all(wfd, data)
    os._exit(0)


def _why(status, killed_for, job):
    if killed_for:
        return killed_for
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        return {
            signal.SIGXCPU: f"CPU time limit ({job['cpu_s']} s)",
            signal.SIGSYS: "killed: a forbidden system call (no processes, network, signals, "
            "ptrace or file writes in the sandbox)",
            signal.SIGXFSZ: f"killed: wrote more than {job['log_bytes']} bytes to stdout/stderr",
            signal.SIGKILL: "killed (CPU or memory limit)",
            signal.SIGSEGV: "crashed (SIGSEGV: the memory limit or a bad memory access)",
        }.get(sig, f"killed by signal {sig}")
    return f"the script process exited with status {os.WEXITSTATUS(status)} without a result"


def _run_page(job, html, libc, bpf, i):
    log_path = os.path.join(job["tmp"], f"page-{i}.log")
    logfd = os.open(log_path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            _child(job, html, w, logfd, libc, bpf)
        finally:
            os._exit(70)
    os.close(w)
    cap, buf, eof, status, killed_for = job["result_bytes"], bytearray(), False, None, ""
    t_end = time.monotonic() + job["wall_s"]
    while True:
        left = t_end - time.monotonic()
        if left <= 0:
            killed_for = f"timeout: killed after {job['wall_s']:g} s wall clock"
            break
        if not eof:
            ready, _, _ = select.select([r], [], [], min(left, 0.05))
            if ready:
                b = os.read(r, 1 << 20)
                if not b:
                    eof = True
                buf += b
                if len(buf) > cap:
                    killed_for = f"the result was larger than {cap} bytes"
                    break
        else:
            time.sleep(min(left, 0.002))
        p, st = os.waitpid(pid, os.WNOHANG)
        if p:
            status = st
            break
    if status is None:
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    elif not killed_for:  # exited: read what is left in the pipe (bounded by the cap)
        while len(buf) <= cap:
            b = os.read(r, 1 << 20)
            if not b:
                break
            buf += b
        if len(buf) > cap:
            killed_for = f"the result was larger than {cap} bytes"
    os.close(r)
    os.lseek(logfd, 0, os.SEEK_SET)
    log = os.read(logfd, 4096).decode("utf-8", "replace")
    os.close(logfd)
    os.unlink(log_path)
    clean = status is not None and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    if clean and not killed_for and buf:
        return {"result": buf.decode("utf-8", "replace"), "error": None, "log": log}
    return {"result": None, "error": _why(status, killed_for, job), "log": log}


def _probe(job):
    with open("/proc/self/status") as f:
        vm = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
    maps = set()
    with open("/proc/self/maps") as f:
        for line in f:
            parts = line.split(maxsplit=5)
            if len(parts) == 6 and parts[5].startswith("/"):
                maps.add(parts[5].strip())
    return {"vm": vm, "maps": sorted(maps)}


def main():
    job = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    sys.path[:0] = job["paths"]
    _import_all(job["allowed"], None if job.get("probe") else job["code"])
    out = job["result_fd"]
    if job.get("probe"):
        _write_all(out, json.dumps(_probe(job)).encode())
        return
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    bpf = bytes.fromhex(job["seccomp"])
    for i, html in enumerate(job["pages"]):
        rec = _run_page(job, html, libc, bpf, i)
        rec["page"] = i
        _write_all(out, (json.dumps(rec) + "\n").encode())


if __name__ == "__main__":
    main()
