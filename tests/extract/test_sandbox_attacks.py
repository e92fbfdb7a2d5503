"""The script sandbox's attack suite (issue 36): every attack must fail closed.

Each attack is a script that, if the attack worked, would return its loot as triples.
Failing closed means: the run is scored as failed (``ok=False``); the loot (a secret file
and environment variable of this process) appears nowhere in what comes back; nothing in
this machine's folders changes (a canary folder and the target of every write are
checked, and a TCP listener on 127.0.0.1 counts connections); this process survives; and
the next run of an honest script returns exactly its triples.  The Python guards are
bypassed on purpose (``typing.sys.modules``, ``__subclasses__``, frames, ``__name__``) to
show that the operating system is the boundary.  Then the layers alone: the namespaces
without the seccomp filter (files, network, PIDs, survivors) and the filter without the
namespaces (the ``allow_unisolated`` mode), and that nothing outlives a run.

``make test`` sets ``INFOMETER_REQUIRE_SANDBOX=1`` (after ``.ci/ensure-bwrap``): then a
machine without the sandbox fails these tests (tests/extract/conftest.py) instead of
checking the refusal and skipping.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import pytest

from infometer.systems.extract import sandbox as sbmod
from infometer.systems.extract._isolation import bwrap_argv, environment
from infometer.systems.extract.sandbox import (
    ALLOWED_IMPORTS,
    LOG_BYTES,
    RESULT_BYTES,
    Isolation,
    RunResult,
    Sandbox,
    SandboxUnavailableError,
    isolation,
)

SECRET = "s3cr3t-" + uuid.uuid4().hex
HONEST = "def main(html):\n    return [['s', 'p', html]]\n"

# --------------------------------------------------------------------- attacks
# {secret}: a file holding SECRET; {out}: a path the attack tries to create; {canary}: a file
# it tries to change; {port}: a listener on 127.0.0.1; {tmpout}: a path directly in /tmp;
# {home}: regular files in this user's home.  "os" through typing.sys.modules skips the
# import allow-list (the Python guard is not the boundary).
_OS = "import typing\nos = typing.sys.modules['os']\n"
_CT = _OS + "ct = typing.sys.modules['ctypes']\nlibc = ct.CDLL(None, use_errno=True)\n"
_READ = "os.read(os.open({path!r}, os.O_RDONLY), 10000).decode(errors='replace')"
SIGSYS = "forbidden system call"
NO_FILE = "No such file|Error reading file|failed to load"

ATTACKS: dict[str, tuple[str, str]] = {
    # --- reading files (the routes around the guards, then OS paths)
    "read via typing.sys.modules['os']": (
        _OS + "def main(html):\n    return [['x', 'y', " + _READ.format(path="{secret}") + "]]",
        NO_FILE,
    ),
    "read via ().__class__.__base__.__subclasses__()": (
        "def main(html):\n"
        "    c = [k for k in ().__class__.__base__.__subclasses__()"
        " if k.__name__ == '_wrap_close'][0]\n"
        "    g = c.__init__.__globals__\n"
        "    return [['x', 'y', g['read'](g['open']({secret!r}, 0), 9999).decode()]]",
        NO_FILE,
    ),
    "read via gc.get_objects()": (
        "import typing\n"
        "def main(html):\n"
        "    gc = typing.sys.modules['builtins'].__import__('gc')\n"
        "    b = [o for o in gc.get_objects() if isinstance(o, dict) and 'open' in o"
        " and 'print' in o and callable(o['open'])][0]\n"
        "    return [['x', 'y', b['open']({secret!r}).read()]]",
        NO_FILE,
    ),
    "read via traceback frames": (
        "def main(html):\n"
        "    try:\n        1 / 0\n    except ZeroDivisionError as e:\n"
        "        f = e.__traceback__.tb_frame\n"
        "    while f.f_back is not None:\n        f = f.f_back\n"
        "    os = f.f_globals['os']\n"
        "    return [['x', 'y', os.read(os.open({secret!r}, 0), 9999).decode()]]",
        NO_FILE,
    ),
    "read after globals()['__name__'] reset and import os": (
        "globals()['__name__'] = 'free'\nimport os\n"
        "def main(html):\n    return [['x', 'y', " + _READ.format(path="{secret}") + "]]",
        NO_FILE,
    ),
    "read via allow-listed lxml.html.parse(path)": (
        "import lxml.html\n"
        "def main(html):\n"
        "    return [['x', 'y', lxml.html.parse({secret!r}).getroot().text_content()]]",
        NO_FILE,
    ),
    "read /etc/passwd": (
        _OS + "def main(html):\n    return [['x', 'y', " + _READ.format(path="/etc/passwd") + "]]",
        NO_FILE,
    ),
    "read /proc/1/environ": (
        _OS
        + "def main(html):\n    return [['x', 'y', "
        + _READ.format(path="/proc/1/environ")
        + "]]",
        NO_FILE,
    ),
    "read /proc/<parent>/mem": (
        _OS + "def main(html):\n    fd = os.open(f'/proc/{{os.getppid()}}/mem', os.O_RDONLY)\n"
        "    return [['x', 'y', str(os.pread(fd, 64, 4194304))]]",
        NO_FILE,
    ),
    "read files in the user's home": (
        _OS + "def main(html):\n    loot = []\n    for p in {home!r}:\n"
        "        try:\n            loot.append(['x', p, os.read(os.open(p, 0), 999).decode()])\n"
        "        except OSError:\n            pass\n"
        "    if not loot:\n        raise LookupError('nothing readable in the home folder')\n"
        "    return loot",
        "nothing readable",
    ),
    "read the caller's environment": (
        _OS + "def main(html):\n    v = os.environ.get('INFOMETER_ATTACK_SECRET')\n"
        "    if v is None:\n        raise LookupError(sorted(os.environ))\n"
        "    return [['x', 'y', v]]",
        "LookupError",
    ),
    # --- writing files
    "write via lxml.etree.ElementTree.write": (
        "import lxml.etree\n"
        "def main(html):\n"
        "    lxml.etree.ElementTree(lxml.etree.fromstring('<a>pwned</a>')).write({out!r})\n"
        "    return [['x', 'y', 'written']]",
        SIGSYS,
    ),
    "overwrite a file of the caller": (
        _OS + "def main(html):\n    fd = os.open({canary!r}, os.O_WRONLY | os.O_TRUNC)\n"
        "    os.write(fd, b'pwned')\n    return [['x', 'y', 'written']]",
        SIGSYS,
    ),
    "write to /tmp outside the private folder": (
        _OS + "def main(html):\n    fd = os.open({tmpout!r}, os.O_WRONLY | os.O_CREAT)\n"
        "    os.write(fd, b'pwned')\n    return [['x', 'y', 'written']]",
        SIGSYS,
    ),
    "delete a file of the caller": (
        _OS + "def main(html):\n    os.unlink({canary!r})\n    return [['x', 'y', 'deleted']]",
        SIGSYS,
    ),
    "symlink into the private folder": (
        _OS + "def main(html):\n    os.symlink({secret!r}, '/tmp/link')\n"
        "    return [['x', 'y', open('/tmp/link').read()]]",
        SIGSYS,
    ),
    # --- network
    "open a socket to 127.0.0.1": (
        "globals()['__name__'] = 'free'\nimport socket\n"
        "def main(html):\n    socket.create_connection(('127.0.0.1', {port}), timeout=2)\n"
        "    return [['x', 'y', 'connected']]",
        SIGSYS,
    ),
    "socket via ctypes syscall": (
        _CT + "def main(html):\n    fd = libc.syscall(41, 2, 1, 0)\n"
        "    if fd < 0:\n        raise OSError(ct.get_errno(), 'socket')\n"
        "    return [['x', 'y', 'socket']]",
        SIGSYS,
    ),
    # --- processes
    "os.system": (
        _OS
        + "def main(html):\n    os.system('echo pwned > {out}')\n    return [['x', 'y', 'ran']]",
        SIGSYS,
    ),
    "ctypes libc.system": (
        _CT + "def main(html):\n    libc.system(b'echo pwned > {out}')\n"
        "    return [['x', 'y', 'ran']]",
        SIGSYS,
    ),
    "exec a shell": (
        _OS + "def main(html):\n    os.execv('/bin/sh', ['sh', '-c', 'echo pwned > {out}'])",
        SIGSYS,
    ),
    "a child that outlives the run": (
        _OS + "def main(html):\n    if os.fork() == 0:\n        os.setsid()\n"
        "        while True:\n            pass\n    return [['x', 'y', 'forked']]",
        SIGSYS,
    ),
    "50 forks": (
        _OS + "def main(html):\n    for _ in range(50):\n        if os.fork() == 0:\n"
        "            while True:\n                pass\n    return [['x', 'y', 'forked']]",
        SIGSYS,
    ),
    "fork bomb": (
        _OS + "def main(html):\n    while True:\n        os.fork()",
        SIGSYS,
    ),
    "a thread": (
        "import typing\ndef main(html):\n"
        "    th = typing.sys.modules['builtins'].__import__('threading')\n"
        "    th.Thread(target=print).start()\n    return [['x', 'y', 'thread']]",
        SIGSYS,
    ),
    # --- signals and other processes
    "SIGTERM to the parent (os.getppid)": (
        _OS + "def main(html):\n    os.kill(os.getppid(), 15)\n    return [['x', 'y', 'sent']]",
        SIGSYS,
    ),
    "SIGKILL to the parent (os.getppid)": (
        _OS + "def main(html):\n    os.kill(os.getppid(), 9)\n    return [['x', 'y', 'sent']]",
        SIGSYS,
    ),
    "SIGKILL to every process (kill -1)": (
        _OS + "def main(html):\n    os.kill(-1, 9)\n    return [['x', 'y', 'sent']]",
        SIGSYS,
    ),
    "SIGKILL to its process group": (
        _OS + "def main(html):\n    os.killpg(0, 9)\n    return [['x', 'y', 'sent']]",
        SIGSYS,
    ),
    "ptrace the parent": (
        _CT + "def main(html):\n    if libc.ptrace(16, os.getppid(), 0, 0) != 0:\n"
        "        raise OSError(ct.get_errno(), 'ptrace')\n    return [['x', 'y', 'attached']]",
        SIGSYS,
    ),
    "process_vm_readv of the parent": (
        _CT + "def main(html):\n    libc.syscall(310, os.getppid(), 0, 0, 0, 0, 0)\n"
        "    return [['x', 'y', 'read']]",
        SIGSYS,
    ),
    "unshare / mount to leave the namespaces": (
        _CT + "def main(html):\n    libc.unshare(0x10000000)\n"
        "    libc.mount(b'none', b'/tmp', b'tmpfs', 0, None)\n    return [['x', 'y', 'mounted']]",
        SIGSYS,
    ),
    # --- forging results and breaking the caller's loop
    "forge its own result on stdout": (
        "import json, typing\ndef main(html):\n"
        "    print(json.dumps([{{'ok': True, 'triples': [['f', 'o', 'rged']]}}]))\n"
        "    print(json.dumps({{'page': 0, 'result': json.dumps({{'ok': True,"
        " 'triples': [['f', 'o', 'rged']]}}), 'error': None, 'log': ''}}))\n"
        "    typing.sys.modules['os']._exit(0)",
        "without a result",
    ),
    "forge the next run's results on stdout": (
        "import json\ndef main(html):\n"
        "    line = json.dumps([{{'ok': True, 'triples': [['f', 'o', 'rged']]}}])\n"
        "    for i in range(1000):\n        print(line)\n"
        "    raise SystemExit(0)",
        "SystemExit",
    ),
    "a non-JSON line on stdout": (
        "import typing\ndef main(html):\n    print('not json {{')\n"
        "    typing.sys.modules['os']._exit(0)",
        "without a result",
    ),
    "garbage on every file descriptor": (
        _OS + "def main(html):\n    for fd in range(64):\n        try:\n"
        "            os.write(fd, b'garbage {{\\n')\n        except OSError:\n            pass\n"
        "    return [['x', 'y', 'z']]",
        "not JSON",
    ),
    "a 300 MB print": (
        "def main(html):\n    for _ in range(300):\n        print('x' * 2**20)\n    return []",
        "wrote more than",
    ),
    # --- resources
    "memory bomb": ("def main(html):\n    x = bytearray(10**10)\n    return []", "Memory"),
    "memory bomb, growing": (
        "def main(html):\n    x = []\n    while True:\n        x.append('x' * 10**6)",
        "Memory|memory",
    ),
    "infinite loop": ("def main(html):\n    while True:\n        pass", "CPU|timeout"),
    "sleep forever (wall clock)": (
        "import typing\ndef main(html):\n    typing.sys.modules['time'].sleep(10**6)",
        "timeout",
    ),
    "huge result on the result pipe": (
        # 20000 x 1.2 KB: 24 MB of JSON, inside the memory limit, past the 16 MB result cap
        "def main(html):\n    return [['a' * 400, 'b' * 400, 'c' * 400]] * 20000",
        "larger than",
    ),
    "a result larger than the memory limit": (
        # 90000 x 1.5 KB: 135 MB of JSON, past the 128 MB the test allows
        "def main(html):\n    return [['a' * 500, 'b' * 500, 'c' * 500]] * 90000",
        "Memory",
    ),
    "flood the result pipe": (
        _OS + "def main(html):\n    for fd in range(3, 64):\n        try:\n"
        "            os.fstat(fd)\n        except OSError:\n            continue\n"
        "        for _ in range(40):\n            os.write(fd, b'[' * 2**20)\n    return []",
        "larger than",
    ),
    "crash the interpreter": (
        _CT + "def main(html):\n    ct.string_at(0)\n    return []",
        "crashed|signal",
    ),
    "stop itself (SIGSTOP)": (
        _OS + "def main(html):\n    os.kill(os.getpid(), 19)\n    return [['x', 'y', 'z']]",
        SIGSYS,
    ),
}


class _Listener:
    """A TCP listener on 127.0.0.1 that counts the connections it accepts."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._serve, daemon=True)
        self._t.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                c, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            c.close()

    def close(self) -> None:
        self._stop.set()
        self._t.join(2)
        self.sock.close()


def _home_files() -> list[str]:
    home = Path.home()
    try:
        return sorted(str(p) for p in home.iterdir() if p.is_file())[:10]
    except OSError:
        return []


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def box(unisolated):
    if unisolated:  # no OS sandbox here (and make test did not require one): refused
        with pytest.raises(SandboxUnavailableError, match="allow_unisolated=True"):
            Sandbox()
        pytest.skip(f"no OS sandbox here ({isolation().reason}); scripts are refused (checked)")
    return Sandbox(cpu_seconds=1, memory_mb=128, wall_seconds=8)


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    d = tmp_path_factory.mktemp("host")
    (d / "secret.txt").write_text(SECRET)
    (d / "canary.txt").write_text("canary")
    lis = _Listener()
    yield {
        "dir": d,
        "secret": str(d / "secret.txt"),
        "canary": str(d / "canary.txt"),
        "out": str(d / "pwned.txt"),
        "tmpout": f"/tmp/infometer-attack-{uuid.uuid4().hex}",
        "port": lis.port,
        "home": _home_files(),
        "listener": lis,
    }
    lis.close()


@pytest.mark.parametrize("name", list(ATTACKS))
def test_attack_fails_closed(name, box, host, monkeypatch):
    monkeypatch.setenv("INFOMETER_ATTACK_SECRET", SECRET)
    src, expect = ATTACKS[name]
    code = src.format(**{k: v for k, v in host.items() if k not in ("dir", "listener")})
    before = _snapshot(host["dir"])
    conns = host["listener"].connections
    (res,) = box.run(code, ["<p>page</p>"])
    assert not res.ok, f"{name}: the attack ran and returned {res.triples!r:.300}"
    assert res.triples == ()
    assert re.search(expect, res.error), f"{name}: unexpected error {res.error!r}"
    assert SECRET not in repr(res)
    assert _snapshot(host["dir"]) == before  # nothing written, changed or deleted
    assert not os.path.exists(host["out"]) and not os.path.exists(host["tmpout"])
    assert host["listener"].connections == conns
    # the caller lives on and its next run is exactly right
    assert box.run(HONEST, ["<b>next</b>"]) == [RunResult(True, (("s", "p", "<b>next</b>"),))]


def test_the_limits_say_what_they_are():
    assert LOG_BYTES == 1 << 20 and RESULT_BYTES == 16 << 20
    assert set(ALLOWED_IMPORTS) >= {"re", "json", "lxml", "bs4"}


def test_a_bad_page_does_not_spoil_the_others(box):
    code = "def main(html):\n    if html == 'bad':\n        while True:\n            pass\n"
    code += "    return [['s', 'p', html]]\n"
    res = box.run(code, ["a", "bad", "b"])
    assert [r.ok for r in res] == [True, False, True]
    assert res[2].triples == (("s", "p", "b"),)


def test_pages_share_nothing(box):
    # a page cannot leave state for the next: module globals and files start fresh
    code = (
        "import typing\nseen = []\ndef main(html):\n    seen.append(html)\n"
        "    return [['n', str(len(seen)), html]]\n"
    )
    res = box.run(code, ["a", "b", "c"])
    assert [r.triples[0][1] for r in res] == ["1", "1", "1"]


def test_logs_are_logs(box):
    code = "def main(html):\n    print('hello', html)\n    return [['s', 'p', html]]\n"
    (r,) = box.run(code, ["x"])
    assert r.ok and r.log == "hello x\n" and r.triples == (("s", "p", "x"),)


# ------------------------------------------------------ the namespaces alone
_NS_PROBE = r"""
import json, os, socket, sys, time
secret, port, host_pid, marker, home, repo = sys.argv[1:]
port, host_pid = int(port), int(host_pid)
out = {"root": sorted(os.listdir("/")), "ppid": os.getppid()}
try:
    out["secret"] = open(secret).read()
except OSError as e:
    out["secret"] = type(e).__name__
try:
    open("/usr/lib/infometer-attack", "w")
    out["usr"] = "written"
except OSError as e:
    out["usr"] = type(e).__name__
open("/tmp/private", "w").write("ok")
out["tmp"] = open("/tmp/private").read()
try:
    socket.create_connection(("127.0.0.1", port), timeout=2)
    out["net"] = "connected"
except OSError as e:
    out["net"] = type(e).__name__
try:
    os.kill(host_pid, 0)
    out["kill"] = "sent"
except OSError as e:
    out["kill"] = type(e).__name__
out["home"] = sorted(os.listdir(home)) if os.path.isdir(home) else None
out["repo"] = os.path.exists(repo)
if os.fork() == 0:  # a survivor, if the PID namespace let it live
    os.setsid()
    time.sleep(120)
    os._exit(0)
print(json.dumps(out))
"""


def test_namespaces_alone_are_a_boundary(box, host):
    """Without the seccomp filter and the Python guards: the mounts, the network and PID
    namespaces still hold, and a forked process dies with the sandbox."""
    env = environment(ALLOWED_IMPORTS)
    marker = "infometer-ns-probe-" + uuid.uuid4().hex
    argv = bwrap_argv(env, [env.interpreter, "-I", "-S", "-c", _NS_PROBE])
    repo = str(Path(sbmod.__file__).resolve())
    argv += [host["secret"], str(host["port"]), str(os.getpid()), marker, str(Path.home()), repo]
    conns = host["listener"].connections
    p = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["secret"] == "FileNotFoundError"
    assert out["usr"] in ("OSError", "PermissionError")  # read-only root (EROFS / EACCES)
    assert out["tmp"] == "ok" and not os.path.exists("/tmp/private")  # private /tmp
    assert out["net"] in ("OSError", "ConnectionRefusedError") and out["net"] != "connected"
    assert host["listener"].connections == conns
    assert out["kill"] == "ProcessLookupError"  # this process is not in its PID namespace
    # the root holds the system libraries, the interpreter's folders and the sandbox's own
    mounted = {Path(p).parts[1] for p in (env.interpreter, *env.stdlib, *env.libraries)}
    assert (
        set(out["root"])
        <= {"bin", "dev", "etc", "lib", "lib32", "lib64", "sandbox", "tmp"} | {"usr"} | mounted
    )
    assert "proc" not in out["root"] and "sys" not in out["root"]
    assert not out["repo"]  # infometer's own files are not there
    # the home folder holds at most the path down to the interpreter
    chain = {
        Path(p).relative_to(Path.home()).parts[0]
        for p in (env.interpreter, *env.stdlib)
        if Path(p).is_relative_to(Path.home())
    }
    assert out["home"] is None or set(out["home"]) <= chain
    survivors = []
    for pid in os.listdir("/proc"):
        try:
            if marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                survivors.append(pid)
        except OSError:
            pass
    assert survivors == []


# --------------------------------------------------------- nothing outlives a run
_REAPER = r"""
import ctypes, json, os, sys, time
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER: orphans come to us
from infometer.systems.extract.sandbox import Sandbox
sb = Sandbox(cpu_seconds=1, wall_seconds=2, allow_unisolated=True)
res = sb.run(sys.argv[1], ["a", "b"])
def kids():
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                break
        except ChildProcessError:
            break
    pids = set()
    for t in os.listdir("/proc/self/task"):
        pids |= set(open(f"/proc/self/task/{t}/children").read().split())
    return sorted(pids)
t_end = time.monotonic() + 5
while kids() and time.monotonic() < t_end:
    time.sleep(0.05)
print(json.dumps({"ok": [r.ok for r in res], "left": kids()}))
"""


@pytest.mark.parametrize(
    "code",
    [
        _OS + "def main(html):\n    os.fork()\n    while True:\n        pass",
        "import typing\ndef main(html):\n    typing.sys.modules['time'].sleep(10**6)",
    ],
    ids=["fork then spin", "sleep past the wall clock"],
)
def test_nothing_outlives_a_run(code):
    p = subprocess.run(
        [sys.executable, "-c", _REAPER, code],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert p.returncode == 0, p.stderr[-2000:]
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert out == {"ok": [False, False], "left": []}


# ----------------------------------- refusal, and the filter without the namespaces
@pytest.fixture
def no_isolation(monkeypatch):
    fake = Isolation(False, "bubblewrap namespaces + seccomp (test)", "bwrap hidden by a test")
    monkeypatch.setattr(sbmod, "isolation", lambda: fake)
    return fake


def test_refuses_without_isolation_unless_allowed(no_isolation):
    with pytest.raises(SandboxUnavailableError, match=r"bwrap hidden by a test.*allow_unisolated"):
        Sandbox()
    with pytest.raises(SandboxUnavailableError, match="refusing"):
        sbmod.run_script(HONEST, ["x"])
    from infometer.core.data import InfometerWarning

    sb = Sandbox(allow_unisolated=True)
    with pytest.warns(InfometerWarning, match="WITHOUT operating-system isolation"):
        assert sb.run(HONEST, ["x"])[0].triples == (("s", "p", "x"),)


@pytest.mark.filterwarnings("ignore::infometer.core.data.InfometerWarning")
@pytest.mark.parametrize(
    "name",
    [
        "write via lxml.etree.ElementTree.write",
        "write to /tmp outside the private folder",
        "open a socket to 127.0.0.1",
        "os.system",
        "50 forks",
        "SIGTERM to the parent (os.getppid)",
        "ptrace the parent",
        "a 300 MB print",
        "forge its own result on stdout",
    ],
)
def test_unisolated_mode_keeps_the_filter_and_limits(name, no_isolation, host):
    """Without namespaces the seccomp filter and the limits still stop these attacks
    (reading files is what the unisolated mode cannot stop: docs/extract.md)."""
    if environment(ALLOWED_IMPORTS).seccomp is None:
        pytest.skip("no seccomp filter for this architecture")
    sb = Sandbox(cpu_seconds=1, memory_mb=128, wall_seconds=4, allow_unisolated=True)
    src, expect = ATTACKS[name]
    code = src.format(**{k: v for k, v in host.items() if k not in ("dir", "listener")})
    before = _snapshot(host["dir"])
    conns = host["listener"].connections
    (res,) = sb.run(code, ["<p>page</p>"])
    assert not res.ok and expect.split("|")[0] in res.error
    assert _snapshot(host["dir"]) == before and not os.path.exists(host["tmpout"])
    assert host["listener"].connections == conns
    assert sb.run(HONEST, ["y"])[0].triples == (("s", "p", "y"),)


@pytest.mark.filterwarnings("ignore::infometer.core.data.InfometerWarning")
def test_cli_refuses_and_names_the_flag(no_isolation, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from infometer.cli.app import app

    f = tmp_path / "s.py"
    f.write_text(HONEST)
    r = CliRunner().invoke(app, ["extract", "score", "--script", str(f), "--pages", "1"])
    assert r.exit_code == 2 and "--allow-unisolated" in r.output and "refusing" in r.output
    r = CliRunner().invoke(
        app, ["extract", "score", "--script", str(f), "--pages", "1", "--allow-unisolated"]
    )
    assert r.exit_code == 0, r.output
