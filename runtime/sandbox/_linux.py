"""The Linux calls a sandbox is made of, through ctypes: namespaces, mounts, capabilities, seccomp.

Each raises ``OSError`` with the call's name and errno, so the caller can say which part failed.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import fcntl
import os
import platform
import socket
import struct
from pathlib import Path
from typing import Final

_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)

CLONE_NEWNS: Final = 0x00020000
CLONE_NEWCGROUP: Final = 0x02000000
CLONE_NEWUTS: Final = 0x04000000
CLONE_NEWIPC: Final = 0x08000000
CLONE_NEWUSER: Final = 0x10000000
CLONE_NEWPID: Final = 0x20000000
CLONE_NEWNET: Final = 0x40000000
#: Every namespace flag ``clone`` takes: a sandboxed process may create none.
NAMESPACE_FLAGS: Final = (
    CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID
    | CLONE_NEWNET
)  # fmt: skip

MS_RDONLY: Final = 0x1
MS_NOSUID: Final = 0x2
MS_NODEV: Final = 0x4
MS_NOEXEC: Final = 0x8
MS_REMOUNT: Final = 0x20
MS_NOATIME: Final = 0x400
MS_NODIRATIME: Final = 0x800
MS_BIND: Final = 0x1000
MS_REC: Final = 0x4000
MS_PRIVATE: Final = 0x40000
MS_RELATIME: Final = 0x200000
MNT_DETACH: Final = 0x2
#: ``statvfs`` flags a read-only remount must keep (a user namespace may not clear them).
_KEPT_FLAGS: Final = {
    os.ST_NOSUID: MS_NOSUID,
    os.ST_NODEV: MS_NODEV,
    os.ST_NOEXEC: MS_NOEXEC,
    os.ST_NOATIME: MS_NOATIME,
    os.ST_NODIRATIME: MS_NODIRATIME,
    os.ST_RELATIME: MS_RELATIME,
}

PR_SET_PDEATHSIG: Final = 1
PR_SET_DUMPABLE: Final = 4
PR_CAPBSET_DROP: Final = 24
PR_SET_NO_NEW_PRIVS: Final = 38
PR_CAP_AMBIENT: Final = 47
PR_CAP_AMBIENT_CLEAR_ALL: Final = 4
PR_SET_SECCOMP: Final = 22
SECCOMP_MODE_FILTER: Final = 2
_CAPABILITY_VERSION_3: Final = 0x20080522


def _check(result: int, call: str) -> int:
    if result == -1:
        code = ctypes.get_errno()
        raise OSError(code, f"{call}: {os.strerror(code)}")
    return result


def unshare(flags: int) -> None:
    _check(_libc.unshare(flags), "unshare")


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    def arg(text: str | None) -> bytes | None:
        return None if text is None else os.fsencode(text)

    result = _libc.mount(arg(source), arg(target), arg(fstype), ctypes.c_ulong(flags), arg(data))
    _check(result, f"mount {target}")


def bind(source: str, target: str, *, writable: bool = False) -> None:
    """Bind ``source`` on ``target``; read-only unless ``writable``, keeping the flags the
    source's mount has (nosuid, nodev...), which a remount may not clear."""
    try:
        mount(source, target, None, MS_BIND | MS_REC)
    except OSError as exc:  # named by what was given, not the mount point inside
        raise OSError(exc.errno, f"bind {source}: {os.strerror(exc.errno or 0)}") from None
    if not writable:
        remount_read_only(target)


def remount_read_only(target: str) -> None:
    kept = os.statvfs(target).f_flag
    flags = MS_REMOUNT | MS_BIND | MS_RDONLY
    flags |= sum(ms for st, ms in _KEPT_FLAGS.items() if kept & st)
    mount(None, target, None, flags)


def umount(target: str) -> None:
    _check(_libc.umount2(os.fsencode(target), MNT_DETACH), f"umount {target}")


def pivot_root(new_root: str, put_old: str) -> None:
    number = _SYSCALLS["pivot_root"]
    _check(_libc.syscall(number, os.fsencode(new_root), os.fsencode(put_old)), "pivot_root")


def sethostname(name: str) -> None:
    encoded = name.encode()
    _check(_libc.sethostname(encoded, len(encoded)), "sethostname")


def prctl(option: int, arg: int = 0) -> None:
    _check(_libc.prctl(option, ctypes.c_ulong(arg), 0, 0, 0), f"prctl {option}")


def empty_bounding_set() -> None:
    """Empty the bounding and ambient sets: no capability can be gained again, not by exec."""
    last = int(Path("/proc/sys/kernel/cap_last_cap").read_text())
    for capability in range(last + 1):
        prctl(PR_CAPBSET_DROP, capability)
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)


def clear_capabilities() -> None:
    """Empty the effective, permitted and inheritable sets."""
    header = struct.pack("Ii", _CAPABILITY_VERSION_3, 0)
    data = bytes(24)  # two empty {effective, permitted, inheritable} sets
    _check(_libc.capset(header, data), "capset")


def set_loopback_up() -> None:
    """Bring up ``lo`` in a new network namespace (it starts down): an agent may talk to itself."""
    siocgifflags, siocsifflags, iff_up = 0x8913, 0x8914, 0x1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(sock, siocgifflags, request))[1]
        fcntl.ioctl(sock, siocsifflags, struct.pack("16sH14x", b"lo", flags | iff_up))


# --- seccomp: no new namespaces, no setns ------------------------------------------------------

#: System call numbers by machine, with the audit architecture seccomp reports.
_ARCHES: Final = {
    "x86_64": (0xC000003E, {"unshare": 272, "setns": 308, "clone": 56, "clone3": 435,
                            "pivot_root": 155, "add_key": 248, "request_key": 249,
                            "keyctl": 250, "memfd_create": 319}),
    "aarch64": (0xC00000B7, {"unshare": 97, "setns": 268, "clone": 220, "clone3": 435,
                             "pivot_root": 41, "add_key": 217, "request_key": 218,
                             "keyctl": 219, "memfd_create": 279}),
}  # fmt: skip
#: Refused with EPERM: new namespaces, and the kernel's keyrings (a caller's session keyring is
#: inherited, and a user's keyring outlives the sandbox: a channel between two of them).
_REFUSED_CALLS: Final = ("unshare", "setns", "add_key", "request_key", "keyctl")
#: Answered "not implemented" (callers fall back): ``clone3`` (its flags live in memory a filter
#: cannot read), ``memfd_create`` (memory no limit of a process counts).
_MISSING_CALLS: Final = ("clone3", "memfd_create")
_ARCH, _SYSCALLS = _ARCHES.get(platform.machine(), (0, {}))
#: x32 system calls on x86_64 carry this bit: refused outright.
_X32_BIT: Final = 0x40000000


def supported_machine() -> bool:
    return bool(_SYSCALLS)


def _op(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("HBBI", code, jt, jf, k)


def forbid_namespaces() -> None:
    """Install a seccomp filter: ``_REFUSED_CALLS`` fail with EPERM, ``clone`` with any
    namespace flag too, ``_MISSING_CALLS`` with ENOSYS (the C library then falls back to
    ``clone``). Needs ``no_new_privs`` first."""
    ld_w_abs, jeq, jset, jge, ret = 0x20, 0x15, 0x45, 0x35, 0x06
    allow, kill = 0x7FFF0000, 0x80000000
    eperm, enosys = 0x00050000 | errno.EPERM, 0x00050000 | errno.ENOSYS
    program = [
        _op(ld_w_abs, 0, 0, 4),  # arch
        _op(jeq, 1, 0, _ARCH),
        _op(ret, 0, 0, kill),
        _op(ld_w_abs, 0, 0, 0),  # nr
        _op(jge, 0, 1, _X32_BIT) if platform.machine() == "x86_64" else _op(jeq, 0, 1, 0xFFFFFFFF),
        _op(ret, 0, 0, eperm),
        *(
            op
            for name in _REFUSED_CALLS
            for op in (_op(jeq, 0, 1, _SYSCALLS[name]), _op(ret, 0, 0, eperm))
        ),
        *(
            op
            for name in _MISSING_CALLS
            for op in (_op(jeq, 0, 1, _SYSCALLS[name]), _op(ret, 0, 0, enosys))
        ),
        _op(jeq, 0, 3, _SYSCALLS["clone"]),
        _op(ld_w_abs, 0, 0, 16),  # the low word of clone's flags
        _op(jset, 0, 1, NAMESPACE_FLAGS),
        _op(ret, 0, 0, eperm),
        _op(ret, 0, 0, allow),
    ]
    code = b"".join(program)
    buffer = ctypes.create_string_buffer(code)
    fprog = struct.pack("HxxxxxxQ", len(program), ctypes.addressof(buffer))
    fprog_buffer = ctypes.create_string_buffer(fprog)
    result = _libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, fprog_buffer, 0, 0)
    _check(result, "seccomp")
