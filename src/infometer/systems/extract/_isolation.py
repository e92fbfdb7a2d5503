"""What the script sandbox mounts and how it starts: bubblewrap's command line, found once.

:func:`environment` finds, once per process, the interpreter (the base interpreter of
this virtual environment, resolved), the folders of the allowed third-party packages and
their requirements, the shared libraries a supervisor maps (from a probe run on the host
that imports what a run imports) and its address-space size, and checks that a trivial
script runs under the full sandbox.  :func:`bwrap_argv` is the command line: new user,
PID, network, IPC, UTS and cgroup namespaces (``--unshare-all``), a new session, death
with the caller, no capabilities, an empty environment, and a root made of read-only
binds -- ``/usr/lib`` (+ ``/usr/lib64``, the ``/lib*`` links), ``/etc/ld.so.cache``, the
interpreter, its standard library (its ``site-packages`` hidden under an empty tmpfs), the
libraries it maps that lie outside ``/usr/lib`` and the allowed packages under
``/sandbox/packages`` -- plus a minimal ``/dev`` and a private tmpfs ``/tmp``.  No
``/proc``, ``/sys``, ``/etc`` (but the loader cache), ``/home``, ``/root``, ``/var``,
``/run``, ``/usr/bin``, ``/usr/local``, no working tree.
"""

from __future__ import annotations

import functools
import importlib.metadata as md
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from ._seccomp import build_filter

__all__ = ["Environment", "environment", "bwrap_argv", "python_argv", "SUPERVISOR", "PACKAGES"]

#: The supervisor's source (:mod:`._sandbox_supervisor`), passed to ``python -c``.
SUPERVISOR = (Path(__file__).with_name("_sandbox_supervisor.py")).read_text()
#: Where the allowed packages appear inside the sandbox.
PACKAGES = "/sandbox/packages"
_LIB_DIRS = ("/usr/lib", "/usr/lib64", "/usr/lib32")


@dataclass(frozen=True)
class Environment:
    """What the sandbox needs on this machine, and whether it works here."""

    interpreter: str
    stdlib: tuple[str, ...]
    site_packages: tuple[str, ...]
    packages: dict[str, str]  # name inside PACKAGES -> host path
    libraries: tuple[str, ...]
    base_vm: int
    seccomp: bytes | None
    bwrap: str | None


def _interpreter() -> str:
    exe = getattr(sys, "_base_executable", None) or sys.executable
    return os.path.realpath(exe)


def _stdlib() -> tuple[tuple[str, ...], tuple[str, ...]]:
    paths = sysconfig.get_paths(vars={"base": sys.base_prefix, "platbase": sys.base_prefix})
    std = {os.path.realpath(paths[k]) for k in ("stdlib", "platstdlib") if paths.get(k)}
    site = {os.path.realpath(paths[k]) for k in ("purelib", "platlib") if paths.get(k)}
    return tuple(sorted(p for p in std if os.path.isdir(p))), tuple(
        sorted(p for p in site if os.path.isdir(p) and any(p.startswith(s + "/") for s in std))
    )


def _is_stdlib(name: str, stdlib: tuple[str, ...]) -> bool:
    if name in sys.builtin_module_names:
        return True
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin in (None, "built-in", "frozen"):
        return spec is not None
    origin = os.path.realpath(spec.origin)
    return any(origin.startswith(s + "/") for s in stdlib) and "-packages/" not in origin


def _requirements(dist: md.Distribution) -> list[str]:
    out = []
    for req in dist.requires or []:
        if re.search(r"\bextra\s*==", req):
            continue
        m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", req)
        if m:
            out.append(m.group(1))
    return out


def package_dirs(modules: tuple[str, ...]) -> dict[str, str]:
    """Top-level files/folders of the distributions that provide ``modules`` (and their
    non-optional requirements, recursively): name -> host path."""
    stdlib, _ = _stdlib()
    owners = md.packages_distributions()
    todo = []
    for m in modules:
        if _is_stdlib(m, stdlib):
            continue
        todo += owners.get(m, [])
    seen: set[str] = set()
    out: dict[str, str] = {}
    while todo:
        name = todo.pop()
        key = re.sub(r"[-_.]+", "-", name).lower()
        if key in seen:
            continue
        seen.add(key)
        try:
            dist = md.distribution(name)
        except md.PackageNotFoundError:
            continue
        todo += _requirements(dist)
        for f in dist.files or []:
            parts = Path(f).parts
            if not parts or parts[0] in ("..", "__pycache__") or parts[0].endswith(".pth"):
                continue
            host = os.path.realpath(str(dist.locate_file(parts[0])))
            if os.path.exists(host):
                out.setdefault(parts[0], host)
    return out


def python_argv(interpreter: str) -> list[str]:
    """The supervisor's command: isolated mode, no site, no bytecode files, UTF-8."""
    return [interpreter, "-I", "-S", "-B", "-X", "utf8", "-c", SUPERVISOR]


def _probe(interpreter: str, paths: list[str], allowed: tuple[str, ...]) -> dict:
    r, w = os.pipe()
    job = {"probe": True, "paths": paths, "allowed": list(allowed), "result_fd": w}
    try:
        p = subprocess.run(
            python_argv(interpreter),
            input=json.dumps(job).encode(),
            pass_fds=(w,),
            capture_output=True,
            timeout=120,
            env={},
            check=False,
        )
        os.close(w)
        w = -1
        data = b""
        while chunk := os.read(r, 1 << 20):
            data += chunk
    finally:
        os.close(r)
        if w >= 0:
            os.close(w)
    if p.returncode != 0 or not data:
        raise RuntimeError(f"the sandbox probe failed: {p.stderr.decode(errors='replace')[-300:]}")
    return json.loads(data)


def bwrap_argv(env: Environment, command: list[str]) -> list[str]:
    """bubblewrap's command line that runs ``command`` in the sandbox of ``env``."""
    assert env.bwrap is not None
    a = [env.bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--clearenv"]
    if os.geteuid() == 0:
        a += ["--cap-drop", "ALL"]
    a += ["--uid", "65534", "--gid", "65534", "--hostname", "sandbox"]
    for d in _LIB_DIRS:
        if os.path.isdir(d) and not os.path.islink(d):
            a += ["--ro-bind", d, d]
    for link in ("/lib", "/lib64", "/lib32", "/bin"):
        if os.path.islink(link):
            a += ["--symlink", os.readlink(link), link]
        elif os.path.isdir(link) and link != "/bin":
            a += ["--ro-bind", link, link]
    if os.path.isfile("/etc/ld.so.cache"):
        a += ["--ro-bind", "/etc/ld.so.cache", "/etc/ld.so.cache"]
    a += ["--ro-bind", env.interpreter, env.interpreter]
    for s in env.stdlib:
        a += ["--ro-bind", s, s]
    for s in env.site_packages:
        a += ["--tmpfs", s]
    for lib in env.libraries:
        a += ["--ro-bind", lib, lib]
    for name, host in sorted(env.packages.items()):
        a += ["--ro-bind", host, f"{PACKAGES}/{name}"]
    a += ["--dev", "/dev", "--tmpfs", "/tmp", "--chdir", "/tmp", "--"]
    return a + command


def _under(path: str, roots: tuple[str, ...]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


@functools.lru_cache(maxsize=4)
def environment(allowed: tuple[str, ...]) -> Environment:
    """Find the sandbox's parts on this machine (once per process; runs a probe on the host).

    ``bwrap`` is ``None`` when bubblewrap is not installed and ``seccomp`` ``None`` when this
    architecture has no filter; whether the parts work together is checked by
    :func:`infometer.systems.extract.sandbox.isolation`.
    """
    interp = _interpreter()
    stdlib, site = _stdlib()
    pkgs = package_dirs(allowed)
    host_paths = sorted({os.path.dirname(p) for p in pkgs.values()})
    probe = _probe(interp, host_paths, allowed)
    mounted = (*_LIB_DIRS, "/lib", "/lib64", "/lib32", *stdlib, *pkgs.values(), interp)
    libs = tuple(sorted(p for p in probe["maps"] if not _under(p, mounted) and os.path.isfile(p)))
    return Environment(
        interpreter=interp,
        stdlib=stdlib,
        site_packages=site,
        packages=pkgs,
        libraries=libs,
        base_vm=int(probe["vm"]),
        seccomp=build_filter(),
        bwrap=shutil.which("bwrap"),
    )
