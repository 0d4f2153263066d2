"""A warm interpreter for the checks: the libraries imported once, each plugin checked in a fork.

Importing LangGraph, LangChain and the runtime takes most of two seconds; the checks themselves
take a fraction of a second. So a process that validates (the command line, the import API, a
test worker) starts one interpreter that imports those libraries, never a plugin, and forks a
child for each plugin to check. The child is a fresh process, as a cold check is: the agent's
imports, patches and ``sys.path`` changes end with it, it gets the variables the caller gives it
and an empty working folder, and a time limit kills it with whatever it started. Before the
agent's code runs, the child enters the request's sandbox itself (``runtime.sandbox``: it has one
thread, as making namespaces needs), keeping the fork's speed; the interpreter is started with
nothing secret in its variables, since each fork's memory holds them. The
command line starts the warm interpreter first thing, so its imports overlap with fetching,
inspecting and rendering.

A plugin's validation environment that only adds distributions to the runtime's
(``additions.py``) is checked in a fork too, its site-packages put first on ``sys.path``. Where
``os.fork`` is missing, or the checks need another interpreter (a validation environment that
replaces a version, an isolated plugin's), ``validate`` starts a new process as before.

The protocol, over a Unix socket the caller listens on and hands over: the caller connects and
sends one JSON line (``Request``); the forked child answers ``pid N`` at once, runs the checks,
writes the results to the request's file and closes the connection by exiting. This module
imports the standard library alone: the command line imports it first thing, to start the warm
interpreter at once.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import importlib.util
import json
import os
import select
import signal
import site
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

#: What the warm interpreter imports before any plugin: what every check imports anyway.
PRELOAD = (
    "langgraph.graph",
    "langgraph.checkpoint.memory",
    "langgraph.store.memory",
    "runtime.discovery",
    "runtime.adapters.imported",
    "runtime.testing.offline_models",
    "runtime.storage.plugin_store",
    "runtime.a2ui",
    "generator.validate.smoke",
    "runtime.sandbox._view",
)
#: What of the caller's environment the warm interpreter starts with: nothing secret, since a
#: fork's memory holds what its interpreter was started with (each check gets its own variables).
INTERPRETER_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "PYTHONPATH")
#: The packages the checks run, imported from where their caller imports them (``package_roots``).
PACKAGES = ("runtime", "generator")
#: The file a child's stdout and stderr go to, in its scratch folder.
OUTPUT_FILE = "output.log"
#: The file a child writes why its sandbox could not be made to, in its scratch folder.
SANDBOX_FAILED_FILE = "sandbox-failed.txt"


class Unavailable(Exception):
    """The warm interpreter cannot take the checks: they run in a new process instead."""


@dataclass(frozen=True)
class Request:
    """One plugin to check, in a scratch folder, with the caller's environment."""

    folder: str
    out: str
    scratch: str
    env: dict[str, str]
    #: A validation environment's site-packages, put first on ``sys.path`` (``additions.py``).
    sites: list[str] = field(default_factory=list)
    #: The sandbox the checks run in (``runtime.sandbox.Spec`` as JSON); None: unconfined.
    sandbox: str | None = None

    def to_line(self) -> bytes:
        return json.dumps(asdict(self)).encode() + b"\n"

    @classmethod
    def from_line(cls, line: bytes) -> Request:
        return cls(**json.loads(line))


class Warm:
    """The caller's side: the warm interpreter's process and the socket it accepts checks on."""

    def __init__(self) -> None:
        self._home = tempfile.TemporaryDirectory(prefix="agent-import-warm-")
        self._address = str(Path(self._home.name) / "socket")
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
            listener.bind(self._address)
            listener.listen(8)
            # Handed over, not kept: once the interpreter is gone, connecting fails at once.
            # Its stdin stays open while this process lives: it leaves when that closes.
            self.process = subprocess.Popen(
                [sys.executable, "-m", "generator.validate.warm", str(listener.fileno())],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                cwd=self._home.name,
                pass_fds=(listener.fileno(),),
                env=with_packages(
                    {name: os.environ[name] for name in INTERPRETER_ENV if name in os.environ}
                    | {"PYTHONDONTWRITEBYTECODE": "1"}
                ),
            )
        self.owner = os.getpid()

    @property
    def alive(self) -> bool:
        return self.owner == os.getpid() and self.process.poll() is None

    def check(self, request: Request, *, timeout: float) -> bool:
        """Run the checks in a fork, their results in ``request.out``; False on the time limit.

        ``Unavailable`` if the warm interpreter is gone: the caller checks in a new process.
        """
        deadline = time.monotonic() + timeout
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(timeout)
            pid: int | None = None
            try:
                conn.connect(self._address)
                conn.sendall(request.to_line())
                received = b""
                while True:  # the child says its pid, then closes the connection by exiting
                    conn.settimeout(max(deadline - time.monotonic(), 0.001))
                    if not (chunk := conn.recv(4096)):
                        break
                    received += chunk
                    if pid is None and b"\n" in received:
                        pid = int(received.split(b"\n", 1)[0].removeprefix(b"pid "))
            except TimeoutError:
                _end(pid)
                return False
            except OSError as exc:
                _end(pid)
                raise Unavailable(f"the warm check interpreter is gone ({exc})") from None
            except BaseException:  # Ctrl-C: nothing the check started may keep running
                _end(pid)
                raise
        if pid is None:
            raise Unavailable("the warm check interpreter closed the connection")
        return True

    def close(self) -> None:
        """Stop the warm interpreter (it holds nothing) and remove its socket."""
        if self.owner != os.getpid():
            return
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        if self.process.stdin is not None:
            self.process.stdin.close()
        self._home.cleanup()


def package_roots() -> list[str]:
    """The folders this process imports ``PACKAGES`` from (each one's parent), but the
    interpreter's site-packages, where a new interpreter of it finds them anyway.

    First on a check interpreter's path, they make it import the ``runtime`` and ``generator``
    this process imports, the ones the checks' sandbox shows (``confined.py``): not those of
    the checkout the interpreter's editable install points at, when this process runs in
    another (``python -m generator.cli`` in a clone puts the clone first on its path only)."""
    sites = {
        os.path.realpath(path) for path in [*site.getsitepackages(), site.getusersitepackages()]
    }
    roots: list[str] = []
    for name in PACKAGES:
        found = importlib.util.find_spec(name)
        if found is None or not found.submodule_search_locations:
            continue
        root = os.path.dirname(os.path.abspath(found.submodule_search_locations[0]))
        if root not in roots and os.path.realpath(root) not in sites:
            roots.append(root)
    return roots


def with_packages(env: dict[str, str]) -> dict[str, str]:
    """``env`` for a new check interpreter: ``package_roots`` first on its ``PYTHONPATH``."""
    path = os.pathsep.join([*package_roots(), *filter(None, [env.get("PYTHONPATH")])])
    return env | {"PYTHONPATH": path} if path else env


def _end(pid: int | None) -> None:
    """Kill a check by the pid its fork said before anything else ran (it leads its own process
    group; in a sandbox, its keeper, whose death ends the sandbox)."""
    if pid is not None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)


_lock = threading.Lock()
_warm: Warm | None = None


def start() -> Warm | None:
    """The warm interpreter of this process, started if it is not running; None without fork."""
    global _warm
    if not hasattr(os, "fork"):
        return None
    with _lock:
        if _warm is None or not _warm.alive:
            if _warm is not None:
                _warm.close()
            _warm = Warm()
            atexit.register(_warm.close)
        return _warm


def serve(listener: socket.socket) -> None:
    """The warm interpreter's loop: fork a child per connection until stdin closes."""
    # Each child is reaped as it ends, so its CPU time counts in this process's children's, as
    # a cold check's counts in its caller's (the bench reports it).
    signal.signal(signal.SIGCHLD, _reap)
    while True:
        ready, _, _ = select.select([listener, sys.stdin], [], [])
        if sys.stdin in ready:
            return  # the caller is gone
        conn, _ = listener.accept()
        if os.fork() == 0:
            listener.close()
            code = 1
            try:
                code = _child(conn)
            finally:
                os._exit(code)
        conn.close()


def _reap(*_: object) -> None:
    """Wait for every child that ended (``SIGCHLD``'s handler)."""
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass


def _child(conn: socket.socket) -> int:
    """In the fork: become a fresh check process, say who it is, run the checks."""
    from generator.validate.smoke import main
    from runtime import sandbox

    gc.enable()
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the agent may wait for its own children
    os.setsid()
    with conn.makefile("rb") as lines:
        request = Request.from_line(lines.readline())
    os.chdir(request.scratch)
    os.environ.clear()
    os.environ.update(request.env)
    nothing = os.open(os.devnull, os.O_RDONLY)
    output = os.open(Path(request.scratch) / OUTPUT_FILE, os.O_WRONLY | os.O_CREAT, 0o600)
    for fd, to in ((nothing, 0), (output, 1), (output, 2)):
        os.dup2(fd, to)
    os.close(nothing)
    os.close(output)
    conn.sendall(f"pid {os.getpid()}\n".encode())  # this pid, outside any sandbox
    if request.sandbox is not None:
        try:
            sandbox.enter(sandbox.Spec.from_json(request.sandbox))
        except sandbox.SandboxError as exc:
            (Path(request.scratch) / SANDBOX_FAILED_FILE).write_text(str(exc), encoding="utf-8")
            return sandbox.SETUP_FAILED
    _put_first(request.sites)
    try:
        return main([request.folder, request.out])
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        conn.close()


def _put_first(sites: list[str]) -> None:
    """Put a validation environment's site-packages (and what their ``.pth`` files add) before
    the runtime's, as that environment's own interpreter has them."""
    import importlib
    import site

    before = list(sys.path)
    for folder in sites:
        site.addsitedir(folder)
    sys.path[:] = [path for path in sys.path if path not in before] + before
    importlib.invalidate_caches()


def _preload() -> None:
    """Import ``PRELOAD`` as Python's documentation advises before forking: the collector off
    while importing (a sixth of the time here), then everything imported frozen, so no child's
    collection walks or copies it; each child turns the collector back on."""
    import importlib

    from runtime.testing.offline_models import OFFLINE_ENV

    gc.disable()
    os.environ.update(OFFLINE_ENV)
    for module in PRELOAD:
        importlib.import_module(module)
    gc.freeze()


if __name__ == "__main__":
    sys.dont_write_bytecode = True
    listening = socket.socket(fileno=int(sys.argv[1]))
    _preload()
    serve(listening)
