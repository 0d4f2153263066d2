"""Where an isolated plugin's environment lives, and building it with uv.

An environment is ``<repo root>/.a2ui-runtime/envs/<plugin_id>/<version>/`` (or under
``$A2UI_ENVS_DIR``): a fresh ``uv venv`` of the Python the plugin asks for, with its
``requirements.lock`` installed (``requirements.txt`` when there is no lock), never seeing the
runtime's packages. ``<version>`` is a hash of what it is built from (the pins and the Python), so
an unchanged plugin is never built twice and a changed lock or Python gets a new environment.

A new environment is built beside the one in use, as ``.<version>.partial``, and renamed into
place once complete (one atomic step): a worker running on the old one keeps its interpreter and
packages, and moves to the new one when the runtime next starts it (see ``process.py``). A
failed build removes what it made; after a build, the plugin's other environments are removed
unless a worker runs on them (it holds a shared lock on its environment's marker, ``in_use``).
The runtime never builds at start-up (it may take minutes): ``a2ui-runtime envs`` does, and
``python3 dev.py serve`` runs it first.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from runtime.contract.agent import AgentSpec, load_agent_spec
from runtime.contract.ids import is_plugin_id
from runtime.contract.layout import AGENT_FILE, REQUIREMENTS_FILE, REQUIREMENTS_LOCK
from runtime.isolated.pythons import find_python, searched
from runtime.storage.file_lock import try_lock, unlock

#: Overrides where the environments live.
ENVS_DIR_ENV = "A2UI_ENVS_DIR"
#: Under the repository's root by default (ignored by git).
ENVS_FOLDER = Path(".a2ui-runtime") / "envs"
#: What the environment was built from (written last: no marker, no environment).
MARKER = ".a2ui-built"
#: How many characters of the fingerprint name an environment's folder.
VERSION_CHARS = 16
#: Ends the name of an environment being built (renamed without it when complete).
PARTIAL = ".partial"
#: The command that builds missing environments, as the unavailable plugin's line names it.
BUILD_COMMAND = "a2ui-runtime envs (python3 dev.py serve runs it first)"
#: How long one ``uv`` step may take before it is stopped.
UV_TIMEOUT_S = 900
#: How often a process waiting for another's build of the same environment looks again.
BUILD_WAIT_S = 0.2

Progress = Callable[[str], None]


class EnvBuildError(RuntimeError):
    """An environment cannot be built; the message is one line saying why and what to do."""


def envs_root() -> Path:
    configured = os.environ.get(ENVS_DIR_ENV)
    return Path(configured) if configured else Path(__file__).resolve().parents[2] / ENVS_FOLDER


def env_dir(plugin_id: str) -> Path:
    """The folder of the plugin's environments (one per lock and Python it was built for)."""
    if not is_plugin_id(plugin_id):  # checked before any path is built from it
        raise EnvBuildError(f"{plugin_id!r} is not a plugin id")
    return envs_root() / plugin_id


def version_dir(plugin_id: str, built_from: str) -> Path:
    """The environment built from what ``built_from`` (a ``fingerprint``) hashes."""
    return env_dir(plugin_id) / built_from[:VERSION_CHARS]


def env_python(folder: Path) -> Path:
    return folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def requirements_of(plugin_folder: Path) -> Path:
    """The lock when there is one, else the reviewed requirements."""
    lock = plugin_folder / REQUIREMENTS_LOCK
    return lock if lock.is_file() else plugin_folder / REQUIREMENTS_FILE


def fingerprint(plugin_folder: Path, spec: AgentSpec) -> str:
    """A hash of what the environment is built from: the pins and the Python wanted."""
    requirements = requirements_of(plugin_folder)
    pins = requirements.read_bytes() if requirements.is_file() else b""
    wanted = spec.environment.python or "runtime"
    return hashlib.sha256(pins + b"\0" + wanted.encode()).hexdigest()


def ready_python(plugin_folder: Path, plugin_id: str, spec: AgentSpec) -> Path | None:
    """The environment's interpreter when it is built for the plugin as it is now."""
    built_from = fingerprint(plugin_folder, spec)
    folder = version_dir(plugin_id, built_from)
    try:
        built = json.loads((folder / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    python = env_python(folder)
    if built.get("fingerprint") != built_from or not python.exists():
        return None
    return python


def in_use(python: Path) -> int | None:
    """A descriptor holding a shared lock on the marker of ``python``'s environment, so no build
    removes it while a worker runs on it (closing it, or the process ending, releases it);
    ``None`` when it is not one of these environments."""
    try:
        fd = os.open(python.parent.parent / MARKER, os.O_RDONLY)
    except OSError:
        return None
    fcntl.flock(fd, fcntl.LOCK_SH)
    return fd


def find_uv() -> list[str]:
    """The command that runs uv: on PATH, next to this interpreter, or ``python -m uv``."""
    beside = Path(sys.executable).parent / ("uv.exe" if os.name == "nt" else "uv")
    for found in (shutil.which("uv"), str(beside) if beside.is_file() else None):
        if found:
            return [found]
    if importlib.util.find_spec("uv") is not None:
        return [sys.executable, "-m", "uv"]
    raise EnvBuildError("uv is not installed: run `python3 dev.py` or `pip install uv`")


def has_python(version: str) -> bool:
    """Whether a Python ``version`` (``3.12``) is on this machine where users keep one, as
    ``interpreter_path`` would find it (without uv when uv is not installed)."""
    try:
        uv: list[str] | None = find_uv()
    except EnvBuildError:
        uv = None
    return find_python(version, uv=uv) is not None


def interpreter_path(uv: list[str], version: str | None) -> str:
    """The interpreter of Python ``version`` (``3.12``) on this machine, wherever it is kept
    (uv's, PATH, pyenv, asdf, conda: ``pythons.find_python``); none asked: the runtime's."""
    if version is None:
        return sys.executable
    try:
        found = find_python(version, uv=uv)
    except ValueError:
        raise EnvBuildError(
            f"needs Python {version!r}, which is not a version like 3.12: write it as X.Y"
        ) from None
    if found is None:
        raise EnvBuildError(
            f"needs Python {version}, which is not on this machine (looked in "
            f"{', '.join(searched())}): install it with `uv python install {version}` "
            f"(or put a python{version} on PATH)"
        )
    return str(found)


def ensure_env(plugin_folder: Path, plugin_id: str, progress: Progress = print) -> Path:
    """The interpreter of the plugin's environment, built first when it is missing or stale.

    Nothing partial is left: a failed build removes what it made, and keeps the others."""
    plugin_folder = plugin_folder.resolve()
    spec = load_agent_spec(plugin_folder)
    if python := ready_python(plugin_folder, plugin_id, spec):
        return python
    with _building(plugin_id):
        if python := ready_python(plugin_folder, plugin_id, spec):
            return python  # another process built it meanwhile
        return _build(plugin_folder, plugin_id, spec, progress)


@contextmanager
def _building(plugin_id: str) -> Iterator[None]:
    """One builder of an environment at a time, across processes (two ``envs`` commands, test
    workers, an import's validation): the others wait, then find it built."""
    folder = env_dir(plugin_id)
    folder.parent.mkdir(parents=True, exist_ok=True)
    path = folder.with_name(f".{plugin_id}.building")
    while (fd := try_lock(path)) is None:
        time.sleep(BUILD_WAIT_S)
    try:
        yield
    finally:
        unlock(path, fd)


def _build(plugin_folder: Path, plugin_id: str, spec: AgentSpec, progress: Progress) -> Path:
    uv = find_uv()
    base = interpreter_path(uv, spec.environment.python)
    built_from = fingerprint(plugin_folder, spec)
    folder = version_dir(plugin_id, built_from)
    partial = folder.with_name(f".{folder.name}{PARTIAL}")
    requirements = requirements_of(plugin_folder)
    shutil.rmtree(partial, ignore_errors=True)  # a build that was killed
    try:
        progress(f"{plugin_id}: creating its environment ({folder})")
        # Relocatable: its scripts still run once it is renamed into place.
        venv = ["venv", "--quiet", "--relocatable", "--python", base, str(partial)]
        _check(_uv(uv, venv), "creating it")
        if requirements.is_file():
            progress(f"{plugin_id}: installing {requirements.name} with uv")
            install = ["pip", "install", "--python", str(env_python(partial)), "-r"]
            _check(
                _uv(uv, [*install, str(requirements)], cwd=plugin_folder),
                f"installing {requirements.name}",
            )
        marker = {"fingerprint": built_from, "python": base}
        (partial / MARKER).write_text(json.dumps(marker), encoding="utf-8")
        shutil.rmtree(folder, ignore_errors=True)  # not ready (no marker, or no interpreter)
        partial.rename(folder)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        with suppress(OSError):
            folder.parent.rmdir()  # when it holds nothing else
        raise
    _remove_unused(plugin_id, keep=folder)
    progress(f"{plugin_id}: environment ready")
    return env_python(folder)


def _remove_unused(plugin_id: str, keep: Path) -> None:
    """Remove the plugin's environments but ``keep`` and those a worker runs on (``in_use``)."""
    for entry in env_dir(plugin_id).iterdir():
        if entry == keep:
            continue
        if not entry.is_dir() or entry.is_symlink():
            entry.unlink()
            continue
        try:
            fd = os.open(entry / MARKER, os.O_RDONLY)
        except OSError:
            shutil.rmtree(entry, ignore_errors=True)  # not an environment (or an incomplete one)
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue  # a worker runs on it: removed by a later build
        try:
            shutil.rmtree(entry, ignore_errors=True)
        finally:
            os.close(fd)


def isolated_plugins(plugins_dir: Path) -> dict[str, Path]:
    """The plugin folders under ``plugins_dir`` whose ``agent.json`` asks for an isolated env."""
    found = {}
    for agent_file in sorted(plugins_dir.glob(f"*/{AGENT_FILE}")):
        try:
            spec = load_agent_spec(agent_file.parent)
        except ValueError:
            continue  # the runtime reports a broken agent.json itself
        if spec.environment.kind == "isolated":
            found[agent_file.parent.name] = agent_file.parent
    return found


def build_missing(plugins_dir: Path, progress: Progress = print) -> list[str]:
    """Build every isolated plugin's missing environment; the lines of those that failed."""
    failed = []
    for plugin_id, folder in isolated_plugins(plugins_dir).items():
        try:
            ensure_env(folder, plugin_id, progress)
        except EnvBuildError as exc:
            failed.append(f"{plugin_id}: {exc}")
    return failed


def _uv(
    uv: list[str], args: list[str], *, cwd: Path | None = None, timeout: float = UV_TIMEOUT_S
) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            [*uv, *args], capture_output=True, text=True, cwd=cwd, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        raise EnvBuildError(f"uv {args[0]} took over {timeout:.0f} s") from None


def _check(done: subprocess.CompletedProcess[str], what: str) -> None:
    if done.returncode != 0:
        lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
        raise EnvBuildError(f"{what} failed: {lines[-1] if lines else done.returncode}")
