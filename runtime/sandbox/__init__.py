"""An operating-system sandbox for code nobody has reviewed: an agent's, before its pull request.

``enter(spec)`` turns the calling process (single-threaded: a fresh fork, or the small helper
``python -m runtime.sandbox``) into a sandbox's keeper, and returns in a new process inside it:

* its own PID, mount, IPC, UTS and cgroup namespaces, and unless ``spec.network`` its own network
  namespace with only a loopback interface;
* a file system with only the system's programs and libraries, the spec's binds (read-only unless
  marked writable), empty private ``/tmp`` and ``HOME``, and a ``/proc`` of its own processes;
* as root, the user ``nobody`` (65534); otherwise the caller's user, in a user namespace;
* no capabilities (the bounding set emptied too), ``no_new_privs``, a seccomp filter that refuses
  new namespaces, and limits on memory (``RLIMIT_AS``), processes (``RLIMIT_NPROC``), the size of
  a file (``RLIMIT_FSIZE``) and of each writable folder (its tmpfs).

If any part cannot be made, ``SandboxError`` says which and how to allow it, and nothing runs:
there is no partial sandbox. The keeper outside waits for the sandbox's first process and exits
with its code; killing the keeper (by the pid its caller started, never one reported from inside,
where ``getpid()`` is 1) ends everything in the sandbox.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Final

#: The user a sandbox runs as when its caller is root (none of the host's files are its own).
NOBODY: Final = 65534
#: Address-space limit of a sandboxed process.
MEMORY_BYTES: Final = 8 << 30
#: Processes (and threads) a sandbox may hold at once.
PROCESSES: Final = 512
#: The largest file a sandboxed process may write.
FILE_BYTES: Final = 256 << 20
#: The most each writable folder of a sandbox holds (in memory: tmpfs).
WRITABLE_BYTES: Final = 512 << 20
#: The keeper's exit code when the sandbox could not be made (its one-line reason on stderr).
SETUP_FAILED: Final = 125
#: Set inside a sandbox: a program started there is in it already (a sandbox cannot nest).
INSIDE_ENV: Final = "A2UI_SANDBOXED"
#: How often a keeper looks whether its parent is still there.
KEEPER_POLL_S: Final = 0.5
#: The private home folder's path inside.
HOME: Final = "/home/sandbox"
#: What every command that can run an agent's code says it skips the sandbox with.
NO_SANDBOX_OPTION: Final = "--no-sandbox"


class SandboxError(RuntimeError):
    """A sandbox cannot be made here; the message is one line: what failed and the fix."""


@dataclass(frozen=True)
class Bind:
    """A host path seen at ``target`` inside (the same path by default)."""

    source: str
    target: str = ""
    writable: bool = False
    #: Seen as a throwaway writable copy, in the sandbox's memory (``Spec.writable_bytes``):
    #: the source stays byte for byte as it was, and nothing written there reaches the disk.
    copy: bool = False

    def __post_init__(self) -> None:
        """Paths made absolute where the spec is written (the sandbox starts elsewhere)."""
        object.__setattr__(self, "source", os.path.abspath(self.source))
        object.__setattr__(self, "target", os.path.abspath(self.target or self.source))


@dataclass(frozen=True)
class Spec:
    """What a sandbox is given: folders and files, whether it has the network, its limits."""

    binds: tuple[Bind, ...] = ()
    #: Folders inside binds shown empty (the runtime's own plugins, for instance).
    hidden: tuple[str, ...] = ()
    network: bool = False
    cwd: str = "/"
    memory_bytes: int = MEMORY_BYTES
    processes: int = PROCESSES
    #: The largest file it may write (``RLIMIT_FSIZE``: output and results included).
    file_bytes: int = FILE_BYTES
    #: Each of its writable tmpfs mounts (``/tmp``, ``HOME``, ``/dev/shm``, a copy) at most.
    writable_bytes: int = WRITABLE_BYTES
    #: Descriptors above 2 the sandboxed process keeps (every other one is closed).
    keep_fds: tuple[int, ...] = ()
    hostname: str = field(default="sandbox")

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Spec:
        data = json.loads(text)
        binds = tuple(Bind(**item) for item in data.pop("binds"))
        hidden, keep = tuple(data.pop("hidden")), tuple(data.pop("keep_fds"))
        return cls(binds=binds, hidden=hidden, keep_fds=keep, **data)

    def describe(self) -> str:
        """One line for reports: what the code that ran in it could and could not reach."""
        user = f"user {NOBODY}" if os.geteuid() == 0 else "your user in a user namespace"
        network = "network open (no host loopback guarantee)" if self.network else "no network"
        writable = sum(b.writable or b.copy for b in self.binds)
        return (
            f"sandbox: {network}; own PID, mount and IPC namespaces; {len(self.binds)} paths "
            f"given ({writable} writable), private HOME and /tmp; {user}, no capabilities, no "
            f"new namespaces; memory {self.memory_bytes >> 30} GiB (RLIMIT_AS), "
            f"{self.processes} processes (RLIMIT_NPROC), files {self.file_bytes >> 20} MiB "
            f"(RLIMIT_FSIZE), {self.writable_bytes >> 20} MiB in each writable folder"
        )


def inside() -> bool:
    """Whether this process was started inside a sandbox (then another cannot be made in it)."""
    return os.environ.get(INSIDE_ENV) == "1"


def interpreter_paths(python: str | Path) -> list[str]:
    """The folders an interpreter needs: its virtual environment, if any, and the programs and
    libraries of the installation it was made from (read from ``pyvenv.cfg``, or where the
    executable's link leads): never the whole prefix, which may be a home folder."""
    executable = Path(python).absolute()
    folders = _installation(executable.resolve().parent.parent)
    config = executable.parent.parent / "pyvenv.cfg"
    if config.is_file():
        folders.append(executable.parent.parent)
        for line in config.read_text(encoding="utf-8", errors="replace").splitlines():
            key, _, value = line.partition("=")
            if key.strip() == "home" and value.strip():
                folders += _installation(Path(value.strip()).resolve().parent)
    return _outermost(str(folder) for folder in folders)


def this_interpreter() -> list[str]:
    """The folders of the running interpreter and its installation."""
    prefixes = {sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix}
    installed = [path for prefix in prefixes for path in _installation(Path(prefix).resolve())]
    venv = [sys.prefix] if sys.prefix != sys.base_prefix else []
    return _outermost([*interpreter_paths(sys.executable), *map(str, installed), *venv])


def _installation(prefix: Path) -> list[Path]:
    """An installation's programs and libraries (``bin``, ``lib``, ``lib64``), as they exist."""
    return [prefix / name for name in ("bin", "lib", "lib64") if (prefix / name).exists()]


def _outermost(paths: Iterable[str]) -> list[str]:
    """``paths`` without those inside another of them."""
    unique = sorted(set(paths), key=lambda p: len(Path(p).parts))
    kept: list[str] = []
    for path in unique:
        if not any(Path(path).is_relative_to(outer) for outer in kept):
            kept.append(path)
    return kept


def hand_over(path: Path) -> None:
    """Make ``path`` (and all in it) writable by the sandbox's user: ``nobody`` under root."""
    if os.geteuid() != 0:
        return
    for each in (path, *path.rglob("*")) if path.is_dir() else (path,):
        os.lchown(each, NOBODY, NOBODY)


def command(spec: Spec, argv: list[str]) -> list[str]:
    """The command that runs ``argv`` in a sandbox made from ``spec`` (this interpreter's helper;
    ``-I``: the caller's ``PYTHONPATH`` is the sandboxed program's, not the helper's)."""
    return [sys.executable, "-I", "-m", "runtime.sandbox", spec.to_json(), "--", *argv]


_probed: str | None = None


def unavailable() -> str | None:
    """Why no sandbox can be made on this machine (one line with the fix), or None; probed once
    a process, in a new helper, with nothing given."""
    global _probed
    if _probed is None:
        if sys.platform != "linux":
            _probed = (
                f"the sandbox needs Linux namespaces, and this is {sys.platform}: run imports "
                f"on Linux, {_ESCAPE}"
            )
        else:
            done = subprocess.run(
                [sys.executable, "-I", "-m", "runtime.sandbox", "--probe"],
                capture_output=True,
                text=True,
                stdin=subprocess.DEVNULL,
            )
            lines = done.stderr.strip().splitlines()
            if done.returncode == 0:
                _probed = ""
            else:
                _probed = lines[-1] if lines else f"the sandbox probe exited {done.returncode}"
    return _probed or None


def enter(spec: Spec) -> None:
    """Become the keeper of a new sandbox; return only in the process inside it.

    The calling process must have one thread. ``SandboxError`` (in the caller) if any part of
    the sandbox could not be made; nothing has run in it then."""
    from runtime.sandbox import _linux

    if not _linux.supported_machine():
        raise SandboxError(f"the sandbox does not know this machine's system calls; {_ESCAPE}")
    privileged = os.geteuid() == 0
    uid, gid = (NOBODY, NOBODY) if privileged else (os.geteuid(), os.getegid())
    flags = _linux.CLONE_NEWNS | _linux.CLONE_NEWPID | _linux.CLONE_NEWIPC
    flags |= _linux.CLONE_NEWUTS | _linux.CLONE_NEWCGROUP
    flags |= 0 if spec.network else _linux.CLONE_NEWNET
    flags |= 0 if privileged else _linux.CLONE_NEWUSER
    root = tempfile.mkdtemp(prefix="a2ui-sandbox-")
    # Removed through its parent once the view is built: the keeper shares the new mount
    # namespace, so the first process's pivot_root moves the keeper's root too.
    parent = os.open(os.path.dirname(root), os.O_PATH | os.O_DIRECTORY)
    try:
        try:
            _linux.unshare(flags)
            if not privileged:
                _map_user(uid, gid)
        except OSError as exc:
            raise SandboxError(_explain(exc, privileged)) from None
        alive_r, alive_w = os.pipe()
        errors_r, errors_w = os.pipe()
        first = os.fork()
    except BaseException:
        _remove(root, parent)
        raise
    if first == 0:
        for fd in (alive_w, errors_r, parent):
            os.close(fd)
        _first(spec, root, uid, gid, alive_r, errors_w, privileged)
        return
    os.close(alive_r)
    os.close(errors_w)
    with os.fdopen(errors_r, "rb") as errors:
        failure = errors.read().decode(errors="replace").strip()
    _remove(root, parent)
    if failure:
        os.waitpid(first, 0)
        raise SandboxError(failure)
    _keep(first)


def _remove(root: str, parent: int) -> None:
    """Remove the (empty) folder the view was built on, by its parent's descriptor; unmounted
    first where the view was left half built (no pivot_root moved it away)."""
    from runtime.sandbox import _linux

    with contextlib.suppress(OSError):
        _linux.umount(root)
    with contextlib.suppress(OSError):
        os.rmdir(os.path.basename(root), dir_fd=parent)
    os.close(parent)


def _map_user(uid: int, gid: int) -> None:
    """In a new user namespace: the caller's user and group, mapped to themselves."""
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"),
                       ("gid_map", f"{gid} {gid} 1")):  # fmt: skip
        with open(f"/proc/self/{name}", "w") as file:
            file.write(text)


def _keep(first: int) -> None:
    """The keeper, outside: wait for the sandbox's first process and exit as it did; end it
    if the keeper's own parent goes (killed, or gone without stopping it), so no sandbox
    outlives the process that made it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the sandbox gets the terminal's Ctrl-C
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})  # waited for below, not lost
    parent, code = os.getppid(), 1
    try:
        while True:
            done, status = os.waitpid(first, os.WNOHANG)
            if done:
                code = os.waitstatus_to_exitcode(status)
                break
            if os.getppid() != parent:
                os.kill(first, signal.SIGKILL)  # its death ends every process inside
            signal.sigtimedwait({signal.SIGCHLD}, KEEPER_POLL_S)  # at once when it ends
    finally:
        os._exit(code if code >= 0 else 128 - code)


def _first(
    spec: Spec, root: str, uid: int, gid: int, alive: int, errors: int, privileged: bool
) -> None:
    """PID 1 inside: build the view, give up every privilege, then start the sandboxed process
    (which returns from ``enter``) and reap until it ends."""
    from runtime.sandbox import _linux, _view

    try:
        try:
            _view.build(spec, root, uid, gid)
            _linux.sethostname(spec.hostname)
            if not spec.network:
                _linux.set_loopback_up()
            for limit, value in ((resource.RLIMIT_AS, spec.memory_bytes),
                                 (resource.RLIMIT_NPROC, spec.processes),
                                 (resource.RLIMIT_FSIZE, spec.file_bytes),
                                 (resource.RLIMIT_CORE, 0)):  # fmt: skip
                resource.setrlimit(limit, (value, value))
            _drop_privileges(uid, gid, privileged)
            _linux.prctl(_linux.PR_SET_PDEATHSIG, signal.SIGKILL)
            if _keeper_gone(alive):
                os._exit(1)
            os.chdir(spec.cwd)
            _close_all_but({alive, errors, *spec.keep_fds})  # not the caller's connection
            child = os.fork()
        except (OSError, SandboxError) as exc:
            os.write(errors, (_explain(exc, privileged) + "\n").encode())
            os._exit(SETUP_FAILED)
        if child == 0:
            os.close(alive)
            os.close(errors)
            os.environ[INSIDE_ENV] = "1"
            return
        os.close(errors)
        _reap_until(child)
    except BaseException:
        os._exit(SETUP_FAILED)


def _close_all_but(keep: set[int]) -> None:
    """Close every descriptor above 2 but ``keep``: nothing its caller held reaches inside."""
    for name in os.listdir("/proc/self/fd"):
        if (fd := int(name)) > 2 and fd not in keep:
            with contextlib.suppress(OSError):  # the listing's own, closed already
                os.close(fd)


def _keeper_gone(alive: int) -> bool:
    """Whether the keeper died before ``PR_SET_PDEATHSIG`` was set (its pipe end is closed)."""
    os.set_blocking(alive, False)
    try:
        return os.read(alive, 1) == b""
    except BlockingIOError:
        return False


def _drop_privileges(uid: int, gid: int, privileged: bool) -> None:
    """No capabilities, none to regain, no new namespaces; checked, not assumed."""
    from runtime.sandbox import _linux

    _linux.prctl(_linux.PR_SET_DUMPABLE, 0)  # not traced by what runs inside (non-root)
    _linux.empty_bounding_set()
    if privileged:
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
    _linux.clear_capabilities()
    _linux.prctl(_linux.PR_SET_NO_NEW_PRIVS, 1)
    _linux.forbid_namespaces()
    status = dict(
        line.split(":\t", 1) for line in Path("/proc/self/status").read_text().splitlines()
    )
    held = [
        name for name in ("CapEff", "CapPrm", "CapInh", "CapAmb", "CapBnd") if int(status[name], 16)
    ]
    if held or status.get("NoNewPrivs", "").strip() != "1" or status.get("Seccomp") != "2":
        raise SandboxError(f"privileges are still held after dropping them ({', '.join(held)})")


def _reap_until(child: int) -> None:
    """PID 1's work: reap every process that ends; exit as ``child`` did (the namespace ends)."""
    code = 1
    try:
        while True:
            pid, status = os.wait()
            if pid == child:
                code = os.waitstatus_to_exitcode(status)
                break
    finally:
        os._exit(code if code >= 0 else 128 - code)


#: How a system that forbids namespaces says so (then the fix is the system's setting).
_REFUSED: Final = frozenset({errno.EPERM, errno.EACCES, errno.ENOSPC, errno.ENOSYS, errno.EINVAL})
_ESCAPE: Final = f"or pass {NO_SANDBOX_OPTION} to run the agent's code unconfined"


def _explain(exc: BaseException, privileged: bool) -> str:
    """``exc`` as one line: the part of the sandbox that failed, and the fix on this platform."""
    if isinstance(exc, SandboxError):
        return str(exc)
    cause = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    if not isinstance(exc, OSError) or exc.errno not in _REFUSED:
        return f"cannot make the sandbox ({cause}); {_ESCAPE}"
    if privileged:
        fix = (
            "in Docker, run the container with --security-opt seccomp=unconfined "
            "--cap-add SYS_ADMIN (its default profile refuses namespaces)"
        )
    else:
        fix = (
            "allow unprivileged user namespaces (Ubuntu 23.10+: sudo sysctl -w "
            "kernel.apparmor_restrict_unprivileged_userns=0, or an AppArmor profile for this "
            "Python with 'userns,'; elsewhere: sudo sysctl -w user.max_user_namespaces=15000 "
            "and kernel.unprivileged_userns_clone=1; in Docker: --security-opt seccomp=unconfined)"
        )
    return f"cannot make the sandbox ({cause}): {fix}; {_ESCAPE}"
