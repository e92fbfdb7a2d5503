"""The seccomp filter of a sandboxed script: a classic-BPF program, assembled here.

The filter kills the calling process (``SECCOMP_RET_KILL_PROCESS``, the script's run then
ends with ``SIGSYS``) on every system call of :data:`DENIED` and on ``open``/``openat``
with any of :data:`WRITE_FLAGS`; ``openat2`` (flags inside a struct the filter cannot
read) and, on x86-64, the x32 ABI are killed too.  Everything else is allowed: the
namespaces of :mod:`._isolation` are the boundary, this filter is the second wall (and the
one that stops processes, signals and sockets even where no namespace can be made).

Syscall numbers are those of ``asm/unistd_64.h`` (x86-64) and ``asm-generic/unistd.h``
(aarch64, 64-bit); on any other architecture :func:`build_filter` returns ``None`` and the
sandbox says it is unavailable.  The program is pure data (8-byte ``sock_filter``
records) so that tests can run it through a BPF interpreter.
"""

from __future__ import annotations

import platform
import struct

__all__ = ["DENIED", "WRITE_FLAGS", "ARCHES", "build_filter", "machine_arch"]

#: Categories of denied calls (documentation and error messages).
DENIED: dict[str, tuple[str, ...]] = {
    "processes": ("fork", "vfork", "clone", "clone3", "execve", "execveat"),
    "network": ("socket", "socketpair", "connect", "bind", "listen", "accept", "accept4"),
    "signals and other processes": (
        "kill",
        "tkill",
        "tgkill",
        "rt_sigqueueinfo",
        "rt_tgsigqueueinfo",
        "pidfd_open",
        "pidfd_send_signal",
        "pidfd_getfd",
        "ptrace",
        "process_vm_readv",
        "process_vm_writev",
        "kcmp",
        "process_madvise",
    ),
    "file changes": (
        "creat",
        "mkdir",
        "mkdirat",
        "rmdir",
        "unlink",
        "unlinkat",
        "rename",
        "renameat",
        "renameat2",
        "link",
        "linkat",
        "symlink",
        "symlinkat",
        "chmod",
        "fchmod",
        "fchmodat",
        "fchmodat2",
        "chown",
        "fchown",
        "lchown",
        "fchownat",
        "truncate",
        "ftruncate",
        "setxattr",
        "lsetxattr",
        "fsetxattr",
        "removexattr",
        "lremovexattr",
        "fremovexattr",
        "utime",
        "utimes",
        "utimensat",
        "futimesat",
        "mknod",
        "mknodat",
        "openat2",
        "open_by_handle_at",
        "name_to_handle_at",
    ),
    "namespaces, mounts and kernel interfaces": (
        "mount",
        "umount2",
        "pivot_root",
        "chroot",
        "unshare",
        "setns",
        "move_mount",
        "open_tree",
        "fsopen",
        "fsconfig",
        "fsmount",
        "fspick",
        "mount_setattr",
        "bpf",
        "perf_event_open",
        "userfaultfd",
        "io_uring_setup",
        "io_uring_enter",
        "io_uring_register",
        "keyctl",
        "add_key",
        "request_key",
        "kexec_load",
        "kexec_file_load",
        "init_module",
        "finit_module",
        "delete_module",
        "reboot",
        "swapon",
        "swapoff",
        "syslog",
        "acct",
        "quotactl",
        "personality",
        "modify_ldt",
        "iopl",
        "ioperm",
        "uselib",
    ),
}

#: ``open``/``openat`` flags that make an open a write: O_WRONLY O_RDWR O_CREAT O_TRUNC
#: O_APPEND (the same values on x86-64 and the generic table).
WRITE_FLAGS = 0o1 | 0o2 | 0o100 | 0o1000 | 0o2000

# fmt: off
_X86_64 = {
    "open": 2, "openat": 257,
    "fork": 57, "vfork": 58, "clone": 56, "clone3": 435, "execve": 59, "execveat": 322,
    "socket": 41, "socketpair": 53, "connect": 42, "bind": 49, "listen": 50, "accept": 43,
    "accept4": 288, "kill": 62, "tkill": 200, "tgkill": 234, "rt_sigqueueinfo": 129,
    "rt_tgsigqueueinfo": 297, "pidfd_open": 434, "pidfd_send_signal": 424, "pidfd_getfd": 438,
    "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312,
    "process_madvise": 440, "creat": 85, "mkdir": 83, "mkdirat": 258, "rmdir": 84,
    "unlink": 87, "unlinkat": 263, "rename": 82, "renameat": 264, "renameat2": 316, "link": 86,
    "linkat": 265, "symlink": 88, "symlinkat": 266, "chmod": 90, "fchmod": 91, "fchmodat": 268,
    "fchmodat2": 452, "chown": 92, "fchown": 93, "lchown": 94, "fchownat": 260, "truncate": 76,
    "ftruncate": 77, "setxattr": 188, "lsetxattr": 189, "fsetxattr": 190, "removexattr": 197,
    "lremovexattr": 198, "fremovexattr": 199, "utime": 132, "utimes": 235, "utimensat": 280,
    "futimesat": 261, "mknod": 133, "mknodat": 259, "openat2": 437, "open_by_handle_at": 304,
    "name_to_handle_at": 303, "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161,
    "unshare": 272, "setns": 308, "move_mount": 429, "open_tree": 428, "fsopen": 430,
    "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442, "bpf": 321,
    "perf_event_open": 298, "userfaultfd": 323, "io_uring_setup": 425, "io_uring_enter": 426,
    "io_uring_register": 427, "keyctl": 250, "add_key": 248, "request_key": 249,
    "kexec_load": 246, "kexec_file_load": 320, "init_module": 175, "finit_module": 313,
    "delete_module": 176, "reboot": 169, "swapon": 167, "swapoff": 168, "syslog": 103,
    "acct": 163, "quotactl": 179, "personality": 135, "modify_ldt": 154, "iopl": 172,
    "ioperm": 173, "uselib": 134,
}
# asm-generic/unistd.h (64-bit): no open/fork/vfork/creat/mkdir/... (only the *at forms)
_GENERIC = {
    "openat": 56,
    "clone": 220, "clone3": 435, "execve": 221, "execveat": 281,
    "socket": 198, "socketpair": 199, "connect": 203, "bind": 200, "listen": 201, "accept": 202,
    "accept4": 242, "kill": 129, "tkill": 130, "tgkill": 131, "rt_sigqueueinfo": 138,
    "rt_tgsigqueueinfo": 240, "pidfd_open": 434, "pidfd_send_signal": 424, "pidfd_getfd": 438,
    "ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271, "kcmp": 272,
    "process_madvise": 440, "mkdirat": 34, "unlinkat": 35, "renameat": 38, "renameat2": 276,
    "linkat": 37, "symlinkat": 36, "fchmod": 52, "fchmodat": 53, "fchmodat2": 452, "fchown": 55,
    "fchownat": 54, "truncate": 45, "ftruncate": 46, "setxattr": 5, "lsetxattr": 6,
    "fsetxattr": 7, "removexattr": 14, "lremovexattr": 15, "fremovexattr": 16, "utimensat": 88,
    "mknodat": 33, "openat2": 437, "open_by_handle_at": 265, "name_to_handle_at": 264,
    "mount": 40, "umount2": 39, "pivot_root": 41, "chroot": 51, "unshare": 97, "setns": 268,
    "move_mount": 429, "open_tree": 428, "fsopen": 430, "fsconfig": 431, "fsmount": 432,
    "fspick": 433, "mount_setattr": 442, "bpf": 280, "perf_event_open": 241, "userfaultfd": 282,
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "keyctl": 219,
    "add_key": 217, "request_key": 218, "kexec_load": 104, "kexec_file_load": 294,
    "init_module": 105, "finit_module": 273, "delete_module": 106, "reboot": 142, "swapon": 224,
    "swapoff": 225, "syslog": 116, "acct": 89, "quotactl": 60, "personality": 92,
}
# fmt: on

#: machine -> (AUDIT_ARCH_* value, syscall table, number of the x32 bit or 0).
ARCHES: dict[str, tuple[int, dict[str, int], int]] = {
    "x86_64": (0xC000003E, _X86_64, 0x40000000),
    "aarch64": (0xC00000B7, _GENERIC, 0),
}

# classic BPF opcodes (linux/filter.h, linux/bpf_common.h) and seccomp return values
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_RET_K = 0x06
_KILL_PROCESS = 0x80000000
_ALLOW = 0x7FFF0000
_OFF_NR, _OFF_ARCH = 0, 4


def _arg_lo(i: int) -> int:
    """Offset of the low 32 bits of argument ``i`` in ``struct seccomp_data`` (little-endian)."""
    return 16 + 8 * i


def machine_arch() -> str:
    """``platform.machine()`` normalised (``amd64`` -> ``x86_64``, ``arm64`` -> ``aarch64``)."""
    m = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(m, m)


def _ins(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k)


def build_filter(arch: str | None = None) -> bytes | None:
    """The filter program for ``arch`` (default: this machine) as ``sock_filter`` bytes.

    ``None`` when the architecture has no syscall table here.

    Examples
    --------
    >>> prog = build_filter("x86_64")
    >>> len(prog) % 8 == 0 and len(prog) // 8 < 4096
    True
    >>> build_filter("sparc") is None
    True
    """
    arch = arch or machine_arch()
    if arch not in ARCHES:
        return None
    audit, table, x32 = ARCHES[arch]
    prog = [
        _ins(_LD_W_ABS, _OFF_ARCH),
        _ins(_JEQ_K, audit, 1, 0),
        _ins(_RET_K, _KILL_PROCESS),
        _ins(_LD_W_ABS, _OFF_NR),
    ]
    if x32:
        prog += [_ins(_JGE_K, x32, 0, 1), _ins(_RET_K, _KILL_PROCESS)]
    names = [n for group in DENIED.values() for n in group]
    for nr in sorted({table[n] for n in names if n in table}):
        prog += [_ins(_JEQ_K, nr, 0, 1), _ins(_RET_K, _KILL_PROCESS)]
    # open(path, flags, mode) / openat(dirfd, path, flags, mode): refuse write flags
    for name, arg in (("open", 1), ("openat", 2)):
        if name in table:
            prog += [
                _ins(_JEQ_K, table[name], 0, 4),
                _ins(_LD_W_ABS, _arg_lo(arg)),
                _ins(_JSET_K, WRITE_FLAGS, 0, 1),
                _ins(_RET_K, _KILL_PROCESS),
                _ins(_RET_K, _ALLOW),
            ]
    prog.append(_ins(_RET_K, _ALLOW))
    return b"".join(prog)
