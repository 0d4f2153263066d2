"""The file system a sandboxed process sees: a new root holding only what it was given.

The root is an empty tmpfs. Into it go the system's programs and libraries and a few files of
``/etc`` (read-only), a ``/dev`` of harmless devices, a ``/proc`` of the process's own PID
namespace (its kernel settings read-only, the files that describe the host hidden), empty
private ``/tmp`` and ``HOME``, then the spec's binds. Nothing else of the host is there: no
home folder, no repository, no database, no other process.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Final

from runtime.sandbox import HOME, _linux

if TYPE_CHECKING:
    from runtime.sandbox import Bind, Spec

#: Top-level folders of the system's programs and libraries (symbolic links where /usr is merged).
SYSTEM: Final = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32")
#: What of ``/etc`` programs need: users, name resolution, certificates, time zone, the loader.
ETC: Final = (
    "passwd", "group", "hosts", "host.conf", "nsswitch.conf", "resolv.conf", "gai.conf",
    "protocols", "services", "ssl", "ca-certificates", "ca-certificates.conf", "pki",
    "localtime", "timezone", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives",
    "mime.types", "os-release", "debian_version", "crypto-policies",
)  # fmt: skip
DEVICES: Final = ("null", "zero", "full", "random", "urandom")
#: Files of ``/proc`` that write to the kernel or describe the host: read-only, or hidden.
PROC_READ_ONLY: Final = ("sys", "sysrq-trigger", "irq", "bus", "fs")
PROC_HIDDEN: Final = ("kcore", "keys", "timer_list", "sched_debug", "latency_stats", "kmsg")
PROC_HIDDEN_DIRS: Final = ("acpi", "scsi", "asound")
#: System V shared memory and message queues, set to none: memory outside every process's limit.
NO_SYSTEM_V_MEMORY: Final = ("shmmni", "msgmni")
#: Where the host's root stays reachable while the view is built (removed before anything runs).
_OLD_ROOT: Final = ".host"
#: The size of the tmpfs mounts that only hold mount points (the root, hidden folders).
MOUNT_POINTS_BYTES: Final = 1 << 20


def build(spec: Spec, root: str, uid: int, gid: int) -> None:
    """Make ``root`` (an empty folder) the process's ``/``, holding only what ``spec`` gives.

    Called in the sandbox's first process, in its new mount and PID namespaces, before it
    gives up its capabilities."""
    _linux.mount(None, "/", None, _linux.MS_REC | _linux.MS_PRIVATE)
    _tmpfs(root, "mode=0755", MOUNT_POINTS_BYTES)
    for name in SYSTEM:
        _mirror(Path("/", name), root)
    for name in ETC:
        _mirror(Path("/etc", name), root)
    _devices(root)
    private = f"mode=0700,uid={uid},gid={gid}"
    for path, options in (("/tmp", "mode=1777"), (HOME, private), ("/dev/shm", "mode=1777")):
        _tmpfs(_mountpoint(root, path, directory=True), options, spec.writable_bytes)
    hidden = []
    for path, item in sorted(_mounts(spec), key=lambda pair: Path(pair[0]).parts):
        if item is None:  # a folder of a bind hidden behind an empty one (parents come first)
            target = _mountpoint(root, path, directory=True)
            _tmpfs(target, "mode=0755", MOUNT_POINTS_BYTES)
            hidden.append(target)
        elif item.copy:  # a throwaway copy, in the sandbox's own bounded memory
            target = _mountpoint(root, path, directory=True)
            _tmpfs(target, f"mode=0755,uid={uid},gid={gid}", spec.writable_bytes)
            _copy(Path(item.source), Path(target), uid, gid)
        else:
            source = Path(item.source)
            target = _mountpoint(root, path, directory=source.is_dir())
            _linux.bind(str(source), target, writable=item.writable)
    for target in hidden:  # read-only once the mount points inside them exist
        _linux.remount_read_only(target)
    _proc(root)
    old = os.path.join(root, _OLD_ROOT)
    os.mkdir(old)
    _linux.pivot_root(root, old)
    os.chdir("/")
    _linux.umount("/" + _OLD_ROOT)
    os.rmdir("/" + _OLD_ROOT)
    _linux.remount_read_only("/")


def _mounts(spec: Spec) -> list[tuple[str, Bind | None]]:
    """The spec's binds and hidden folders by target, to be made parents first."""
    binds: list[tuple[str, Bind | None]] = [(item.target, item) for item in spec.binds]
    return binds + [(path, None) for path in spec.hidden if Path(path).is_dir()]


def _tmpfs(target: str, options: str, size: int) -> None:
    """An empty tmpfs of at most ``size`` bytes (unbounded, one would take half the memory)."""
    flags = _linux.MS_NOSUID | _linux.MS_NODEV
    _linux.mount("tmpfs", target, "tmpfs", flags, f"{options},size={size}")


def _copy(source: Path, target: Path, uid: int, gid: int) -> None:
    """``source``'s files into ``target``, owned by the sandbox's user (links kept as links)."""
    shutil.copytree(source, target, symlinks=True, dirs_exist_ok=True)
    if os.geteuid() == 0 and uid != 0:
        for path in (target, *target.rglob("*")):
            os.lchown(path, uid, gid)


def _mountpoint(root: str, path: str, *, directory: bool) -> str:
    """The folder or empty file ``path`` is mounted on under ``root``, made if missing."""
    target = os.path.join(root, path.lstrip("/"))
    if directory:
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if not os.path.lexists(target):
            os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o644))
    return target


def _mirror(path: Path, root: str) -> None:
    """The host's ``path`` in the view, read-only: the same symbolic link, or a bind."""
    if path.is_symlink():
        link = os.path.join(root, str(path).lstrip("/"))
        os.makedirs(os.path.dirname(link), exist_ok=True)
        os.symlink(os.readlink(path), link)
    elif path.exists():
        _linux.bind(str(path), _mountpoint(root, str(path), directory=path.is_dir()))


def _devices(root: str) -> None:
    dev = _mountpoint(root, "/dev", directory=True)
    _linux.mount(
        "tmpfs",
        dev,
        "tmpfs",
        _linux.MS_NOSUID | _linux.MS_NOEXEC,
        f"mode=0755,size={MOUNT_POINTS_BYTES}",
    )
    for name in DEVICES:
        _linux.bind(
            f"/dev/{name}", _mountpoint(root, f"/dev/{name}", directory=False), writable=True
        )
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                         ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):  # fmt: skip
        os.symlink(target, os.path.join(dev, name))


def _proc(root: str) -> None:
    """A ``/proc`` of this PID namespace only; what writes to the kernel read-only, what tells of
    the host hidden (as container runtimes do)."""
    proc = _mountpoint(root, "/proc", directory=True)
    flags = _linux.MS_NOSUID | _linux.MS_NODEV | _linux.MS_NOEXEC
    _linux.mount("proc", proc, "proc", flags)
    for setting in NO_SYSTEM_V_MEMORY:  # this IPC namespace's own: no limit would count it
        Path(proc, "sys", "kernel", setting).write_text("0")
    for name in PROC_READ_ONLY:
        path = os.path.join(proc, name)
        if os.path.exists(path):
            _linux.bind(path, path)
    for name in PROC_HIDDEN:
        path = os.path.join(proc, name)
        if os.path.exists(path):
            _linux.bind("/dev/null", path)
    for name in PROC_HIDDEN_DIRS:
        path = os.path.join(proc, name)
        if os.path.isdir(path):
            _linux.mount("tmpfs", path, "tmpfs", flags | _linux.MS_RDONLY, "mode=0555")
