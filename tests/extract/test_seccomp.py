"""The seccomp filter as data: a classic-BPF interpreter runs it on every denied call, on
allowed ones, on read-only and writing opens, on a foreign architecture and (x86-64) on
the x32 ABI; the syscall numbers are checked against the kernel headers where present."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest

from infometer.systems.extract._seccomp import ARCHES, DENIED, WRITE_FLAGS, build_filter

KILL, ALLOW = 0x80000000, 0x7FFF0000
O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND = 0, 1, 2, 0o100, 0o1000, 0o2000
O_CLOEXEC, O_DIRECTORY = 0o2000000, 0o200000


def run_bpf(prog: bytes, nr: int, arch: int, args: tuple[int, ...] = ()) -> int:
    """Classic BPF as the kernel runs a seccomp filter (the opcodes the filter uses)."""
    a6 = (list(args) + [0] * 6)[:6]
    data = struct.pack("<iIQ6Q", nr, arch, 0, *a6)
    ins = [struct.unpack("<HBBI", prog[i : i + 8]) for i in range(0, len(prog), 8)]
    acc, pc = 0, 0
    while True:
        code, jt, jf, k = ins[pc]
        if code == 0x20:  # BPF_LD | BPF_W | BPF_ABS
            acc = struct.unpack_from("<I", data, k)[0]
        elif code == 0x06:  # BPF_RET | BPF_K
            return k
        elif code in (0x15, 0x35, 0x45):  # JEQ, JGE, JSET with a constant
            hit = {0x15: acc == k, 0x35: acc >= k, 0x45: bool(acc & k)}[code]
            pc += jt if hit else jf
        else:
            raise AssertionError(f"unexpected opcode {code:#x}")
        pc += 1


@pytest.mark.parametrize("arch", sorted(ARCHES))
def test_filter_kills_exactly_the_denied_calls(arch):
    audit, table, x32 = ARCHES[arch]
    prog = build_filter(arch)
    denied = {table[n] for g in DENIED.values() for n in g if n in table}
    opens = {table[n] for n in ("open", "openat") if n in table}
    assert len(denied) > 60
    for nr in range(0, 460):
        if nr in opens:
            continue
        want = KILL if nr in denied else ALLOW
        assert run_bpf(prog, nr, audit) == want, (arch, nr)
    # every denied call of every category is in the table (but the legacy ones aarch64 lacks)
    legacy = {"fork", "vfork", "open", "creat", "mkdir", "rmdir", "unlink", "rename", "link"}
    legacy |= {"symlink", "chmod", "chown", "lchown", "utime", "utimes", "futimesat", "mknod"}
    legacy |= {"modify_ldt", "iopl", "ioperm", "uselib"}
    missing = [n for g in DENIED.values() for n in g if n not in table]
    assert set(missing) <= legacy, missing
    # a foreign architecture is killed whatever the call
    assert run_bpf(prog, 0, 0x40000003) == KILL
    if x32:
        assert run_bpf(prog, x32 | 0, audit) == KILL


@pytest.mark.parametrize("arch", sorted(ARCHES))
def test_opens_are_read_only(arch):
    audit, table, _ = ARCHES[arch]
    prog = build_filter(arch)
    for name, flag_arg in (("open", 1), ("openat", 2)):
        if name not in table:
            continue
        nr = table[name]

        def call(flags, nr=nr, flag_arg=flag_arg):
            args = [0, 0, 0, 0]
            args[flag_arg] = flags
            return run_bpf(prog, nr, audit, tuple(args))

        assert call(O_RDONLY) == ALLOW
        assert call(O_RDONLY | O_CLOEXEC | O_DIRECTORY) == ALLOW
        for bad in (O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND, O_RDONLY | O_CREAT):
            assert call(bad | O_CLOEXEC) == KILL, (name, oct(bad))
    assert WRITE_FLAGS == O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND


@pytest.mark.parametrize(
    ("arch", "header", "pattern"),
    [
        ("x86_64", "/usr/include/x86_64-linux-gnu/asm/unistd_64.h", r"__NR_{}\s+(\d+)"),
        ("aarch64", "/usr/include/asm-generic/unistd.h", r"__NR(?:3264)?_{}\s+(\d+)"),
    ],
)
def test_numbers_match_the_kernel_headers(arch, header, pattern):
    text = Path(header).read_text() if Path(header).is_file() else None
    if text is None:
        pytest.skip(f"{header} is not installed")
    _, table, _ = ARCHES[arch]
    checked = 0
    for name, nr in table.items():
        m = re.search(r"#define " + pattern.format(re.escape(name)) + r"\b", text)
        if m:  # a header older than the call (fchmodat2: 6.6) lacks it
            assert int(m.group(1)) == nr, (arch, name)
            checked += 1
    assert checked >= len(table) - 2


def test_unknown_architecture_has_no_filter():
    assert build_filter("mips") is None
