"""One worker process per isolated plugin: started on first use, kept warm, replaced after a crash.

The worker runs on the plugin's environment's interpreter with only its own program and the
plugin's files on ``sys.path`` (``-s``: no user site either), in the plugin's folder, with an
environment holding only the basics (``PATH``, ``HOME``, locale, temp folder) and the variables the
plugin's ``agent.json`` ``env`` names. A reader thread routes what the worker writes to the call
it belongs to (every message about a run carries the run's request id); the worker's stderr goes
to the runtime's log, through its card-number filter. Ending the runtime closes the worker's stdin,
which ends the worker; ``Workers.close`` (the server's lifespan) also waits for it.

A worker stays on the environment it started on while it runs (it holds ``envs.in_use`` on it, so
no build removes it): when ``a2ui-runtime envs`` builds the plugin a new one (its lock changed),
the plugin moves to it when the runtime next starts its worker, at the runtime's next start-up or
after the worker exited (a crash, a run killed past its deadline). No run in flight is cut short.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import logging
import os
import queue
import re
import signal
import subprocess
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from runtime import redaction, sandbox
from runtime.contract.layout import AGENT_FILE, SOURCE_FOLDER
from runtime.isolated.envs import EnvBuildError, find_uv, in_use
from runtime.isolated.worker import protocol

logger = logging.getLogger(__name__)

#: The folder whose ``worker`` package the interpreter runs (``-m worker``).
PROGRAM_DIR: Final = Path(__file__).resolve().parent
#: Variables every worker gets from the runtime's environment when they are set.
BASICS: Final = (
    "PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ", "SYSTEMROOT",
    "PYTHONDONTWRITEBYTECODE",  # a validation writes nothing into the plugin folder
)  # fmt: skip
#: The runtime's own variables (its admin token, its database URL) go to no worker, whatever
#: its ``agent.json`` names.
RUNTIME_PREFIX: Final = "A2UI_"
#: How long a stopped worker may take to exit before it is killed.
STOP_GRACE_S: Final = 2.0
#: The runtime's card-number masking, which the worker loads by path for the agent's checkpoints.
REDACTION: Final = str(Path(redaction.__file__).resolve())
#: Put in a call's queue when the worker died.
CRASHED: Final = {"crashed": True}
#: How many of the worker's last stderr lines are kept to say why it exited.
STDERR_KEPT: Final = 40
#: What a package that does not fit the versions installed beside it raises while loading.
_LOADING_ERRORS: Final = ("ImportError", "ModuleNotFoundError", "AttributeError", "TypeError")
#: ``uv pip check``'s line for one unmet requirement.
_UNMET = re.compile(r"The package `([^`]+)` requires `([^`]+)`, but `([^`]+)` is installed")
#: The last line of a Python traceback: ``SomeError: what``.
_ERROR_LINE = re.compile(r"^(?:[\w.]+\.)?\w*(?:Error|Exception|Exit|Interrupt)\b.*")


class WorkerCrashed(RuntimeError):
    """The worker process ended (or could not start) while it was needed."""


@dataclass
class Call:
    """A request the runtime made; its replies and the worker's messages about it arrive here."""

    id: int
    inbox: queue.Queue[dict[str, Any]] = field(default_factory=queue.Queue)


class Worker:
    """One worker process of one plugin."""

    def __init__(
        self,
        plugin_id: str,
        folder: Path,
        python: Path,
        *,
        env_names: Iterable[str] = (),
        offline_models: Path | None = None,
        confinement: sandbox.Spec | None = None,
    ) -> None:
        self.plugin_id = plugin_id
        self.python = python
        agent_file, source = folder / AGENT_FILE, folder / SOURCE_FOLDER
        command = [str(python), "-s", "-m", "worker", str(agent_file), str(source), REDACTION]
        if offline_models is not None:
            command.append(str(offline_models))
        names = (*BASICS, *(name for name in env_names if not name.startswith(RUNTIME_PREFIX)))
        env = {name: os.environ[name] for name in names if name in os.environ}
        env |= {"PYTHONPATH": str(PROGRAM_DIR), "PYTHONUNBUFFERED": "1"}
        if confinement is not None:
            env |= {"HOME": sandbox.HOME, "TMPDIR": "/tmp"}
            command = sandbox.command(confinement, command)
        self._env_lock, self._env_guard = in_use(python), threading.Lock()
        try:
            self.process = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=folder,
                env=env,
                start_new_session=True,  # its own process group: killed with whatever it started
            )
        except BaseException:
            self._release_env()
            raise
        #: The sandbox helper's one line, when it could not make the worker's sandbox.
        self.sandbox_failure: str | None = None
        #: Its last lines of stderr, card numbers masked: why it exited, when it does.
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=STDERR_KEPT)
        self._ids = itertools.count(1)
        self._calls: dict[int, Call] = {}
        self._write = threading.Lock()
        self.alive = True
        threading.Thread(target=self._read, daemon=True, name=f"worker-{plugin_id}").start()
        self._logging = threading.Thread(
            target=self._log, daemon=True, name=f"worker-log-{plugin_id}"
        )
        self._logging.start()
        #: The worker's Python, LangGraph and langchain-core versions (it loaded the agent).
        try:
            self.versions: dict[str, str] = self.wait(self.request(protocol.INFO, {}))
        except BaseException:
            self.stop()
            raise

    @property
    def pid(self) -> int:
        return self.process.pid

    def request(self, method: str, params: dict[str, Any]) -> Call:
        call = Call(next(self._ids))
        self._calls[call.id] = call
        self.send(protocol.request(call.id, method, params))
        return call

    def wait(self, call: Call) -> Any:
        """The result of ``call`` (a request that reports nothing on the way)."""
        try:
            reply = call.inbox.get()
        finally:
            self.forget(call)
        if reply is CRASHED:
            raise WorkerCrashed(self.exit_reason())
        if "error" in reply:
            raise WorkerCrashed(f"the {self.plugin_id} worker: {reply['error']['message']}")
        return reply.get("result")

    def exit_reason(self) -> str:
        """Why the worker ended: the sandbox helper's line when it could not make the sandbox,
        else its exit code and the error its stderr ended on (a traceback's last line: the
        agent's import failing, its pins that do not load together), never the code alone. Its
        output ends before its exit is known: both are waited for."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(STOP_GRACE_S)
        self._logging.join(STOP_GRACE_S)
        code = self.process.returncode
        if code == sandbox.SETUP_FAILED and self.sandbox_failure:
            return f"the {self.plugin_id} worker: {self.sandbox_failure}"
        exited = f"the {self.plugin_id} worker exited (code {code})"
        why = last_error(self.stderr_tail)
        if why is None:
            return exited
        if why.startswith(_LOADING_ERRORS) and (clash := broken_pins(self.python)):
            return f"{exited}: its requirements do not work together: {clash} ({why})"
        return f"{exited}: {why}"

    def forget(self, call: Call) -> None:
        self._calls.pop(call.id, None)

    def send(self, data: bytes) -> None:
        assert self.process.stdin is not None
        try:
            with self._write:
                self.process.stdin.write(data)
                self.process.stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            self._died()

    def cancel(self, call: Call) -> None:
        self.send(protocol.notification(protocol.CANCEL, {"requestId": call.id}))

    def kill(self) -> None:
        """End the worker and whatever it started, now."""
        self.alive = False
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        self._release_env()

    def stop(self) -> None:
        """End the worker: close its input, and kill it if it does not exit soon."""
        self.alive = False
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        try:
            self.process.wait(STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            self.kill()
        self._release_env()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            try:
                message = protocol.parse(line)
            except ValueError:
                logger.warning("worker %r wrote a line that is not JSON-RPC", self.plugin_id)
                continue
            params = message.get("params") or {}
            owner = params.get("run") if "method" in message else message.get("id")
            call = self._calls.get(owner) if isinstance(owner, int) else None
            if call is not None:
                call.inbox.put(message)
        self._died()

    def _died(self) -> None:
        self.alive = False
        for call in list(self._calls.values()):
            call.inbox.put(CRASHED)
        self._release_env()

    def _release_env(self) -> None:
        with self._env_guard:
            fd, self._env_lock = self._env_lock, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)

    def _log(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            text = line.decode("utf-8", "replace").rstrip()
            if text.startswith("sandbox: "):
                self.sandbox_failure = text.removeprefix("sandbox: ")
            if text:
                self.stderr_tail.append(redaction.redact_card_numbers(text))
                logger.info("[%s worker] %s", self.plugin_id, text)


def broken_pins(python: Path) -> str | None:
    """The first of an environment's packages whose requirements its other packages' versions do
    not meet, as ``uv pip check`` says it (``langgraph 0.2.60 requires langchain-core<0.4``), or
    None: the same failure LangGraph's server would meet installing the agent's pins."""
    try:
        done = subprocess.run(
            [*find_uv(), "pip", "check", "--python", str(python)],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError, EnvBuildError):
        return None
    found = _UNMET.search(done.stdout + done.stderr) if done.returncode else None
    return f"{found[1]} needs {found[2]}, and {found[3]} is installed" if found else None


def last_error(lines: Iterable[str]) -> str | None:
    """The error a process's stderr ended on: a traceback's last line (``ModuleNotFoundError:
    No module named 'x'``), else its last line that is not part of a traceback."""
    kept = [line.strip() for line in lines if line.strip()]
    for line in reversed(kept):
        if _ERROR_LINE.match(line):
            return line
    plain = [line for line in kept if not line.startswith(("File ", "Traceback", "^", "~"))]
    return plain[-1] if plain else None


def worker_spec(
    folder: Path, python: Path, *, network: bool, offline_models: Path | None
) -> sandbox.Spec:
    """An isolated plugin's worker's sandbox: its interpreter and environment, the worker's
    program and the plugin's folder, all read-only; the network unless ``agent.json`` says
    ``"network": false``. No database, no plugins folder, no other process."""
    readable = [*sandbox.interpreter_paths(python), str(PROGRAM_DIR), REDACTION, str(folder)]
    if offline_models is not None:
        readable.append(str(offline_models))
    binds = tuple(sandbox.Bind(path) for path in dict.fromkeys(readable))
    return sandbox.Spec(binds=binds, network=network, cwd=str(folder))


class Workers:
    """The runtime process's workers, one per isolated plugin."""

    def __init__(self) -> None:
        #: Whether workers run in a sandbox (``serve --no-sandbox`` says not).
        self.sandboxed = True
        self._workers: dict[str, Worker] = {}
        #: One per plugin: a worker starting (seconds) holds up its own plugin's turns only.
        self._starting: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()

    def unconfined_reason(self) -> str | None:
        """Why a worker cannot be sandboxed here (one line, the fix), or None: it can, it runs
        inside a sandbox already (a validation's), or workers run unconfined."""
        if not self.sandboxed or sandbox.inside():
            return None
        return sandbox.unavailable()

    def confine(self) -> bool:
        """Whether a new worker gets a sandbox of its own (not when in one already)."""
        return self.sandboxed and not sandbox.inside()

    def get(self, plugin_id: str, start: Callable[[], Worker]) -> Worker:
        """The plugin's warm worker, or a new one when there is none or it died."""
        with self._lock:
            starting = self._starting.setdefault(plugin_id, threading.Lock())
        with starting:
            worker = self._workers.get(plugin_id)
            if worker is None or not worker.alive or worker.process.poll() is not None:
                if worker is not None:
                    logger.warning("restarting the %r worker (it exited)", plugin_id)
                    worker.kill()
                worker = start()
                with self._lock:
                    self._workers[plugin_id] = worker
            return worker

    def close(self) -> None:
        with self._lock:
            workers, self._workers = list(self._workers.values()), {}
        for worker in workers:
            worker.stop()


#: This runtime process's workers (``serve --workers N``: each process has its own).
WORKERS = Workers()
