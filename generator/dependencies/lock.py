"""``requirements.lock``: the versions an isolated plugin's own environment is built from.

A plugin that cannot share the runtime's environment gets one of its own (``isolation.py``),
built from exact versions, not from ``requirements.txt``'s ranges: what the reviewer approved in
the pull request is what runs, on every machine and after every rebuild. The lock is
``uv pip compile requirements.txt --python-version X``, resolved on its own (the runtime's
packages are not in that environment), with a header saying so; ``agent-import update`` writes it
again when ``requirements.txt`` changes.
"""

from __future__ import annotations

import re
import tempfile
import tomllib
from collections.abc import Sequence
from pathlib import Path

from packaging.utils import canonicalize_name

from generator.dependencies.conflicts import RESOLVE_TIMEOUT_S, explanation
from generator.dependencies.environment import DependencyReport, requirement_name
from generator.errors import AgentImportError
from generator.validate.processes import run_tree
from runtime.contract.layout import REQUIREMENTS_FILE, REQUIREMENTS_LOCK
from runtime.isolated.envs import find_uv

#: What every LangGraph server image has, whether the agent lists it or not (an agent that
#: never names ``langgraph`` still imports it there): locked too, in the version its other pins
#: allow.
SERVER_IMAGE = ("langgraph",)
#: A pinned line of uv's output: ``name==1.2.3``.
_PINNED = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", re.MULTILINE)


def lock_header(python: str) -> str:
    """What the lock says of itself, for the reviewer and for whoever edits requirements.txt."""
    return (
        f"# The versions this plugin's own environment is built from (agent.json environment:\n"
        f"# isolated, Python {python}). Written by agent-import with\n"
        f"#   uv pip compile {REQUIREMENTS_FILE} --python-version {python} -o {REQUIREMENTS_LOCK}\n"
        f"# and again by `agent-import update` when {REQUIREMENTS_FILE} changes: review it, do\n"
        "# not edit it.\n"
    )


def compile_lock(
    requirements: list[str],
    python: str,
    *,
    local_packages: list[str],
    preferred: Sequence[str] = (),
    timeout: float = RESOLVE_TIMEOUT_S,
) -> str:
    """The text of ``requirements.lock`` for ``requirements`` on Python ``python`` ("3.11").

    ``preferred`` (``name==version``: the project's own lock, ``project_pins``) are the versions
    uv keeps where they fit, as it keeps an existing output file's: the agent gets what its
    authors ran, not whatever is newest. One line (``AgentImportError``) when they cannot be
    resolved on their own, or when the resolution would fetch one of the repository's
    ``local_packages`` from the index.
    """
    named = {requirement_name(line) for line in requirements}
    wanted = [*requirements, *(name for name in SERVER_IMAGE if name not in named)]
    with tempfile.TemporaryDirectory(prefix="agent-import-lock-") as scratch:
        folder = Path(scratch)
        (folder / REQUIREMENTS_FILE).write_text("".join(f"{r}\n" for r in wanted), "utf-8")
        if preferred:
            (folder / REQUIREMENTS_LOCK).write_text("".join(f"{p}\n" for p in preferred), "utf-8")
        done = run_tree(
            [*find_uv(), "pip", "compile", "--quiet", "--no-header", "--python-version", python,
             "--directory", str(folder), REQUIREMENTS_FILE, "-o", REQUIREMENTS_LOCK],
            what=f"locking the requirements for an environment of its own (Python {python})",
            timeout=timeout,
        )  # fmt: skip
        locked = folder / REQUIREMENTS_LOCK
        if done.returncode != 0 or not locked.is_file():
            raise AgentImportError(
                f"the requirements cannot be resolved for an environment of their own on Python "
                f"{python}: {explanation(done.stderr)}"
            )
        body = locked.read_text(encoding="utf-8")
    confused = sorted(set(pinned(body)) & {canonicalize_name(n) for n in local_packages})
    if confused:
        raise AgentImportError(
            f"{', '.join(confused)} would be installed from the package index, but the agent's "
            "repository has a local package of that name: refused (a public project of the same "
            "name is not the agent's code)"
        )
    return lock_header(python) + body


def project_pins(folders: list[Path]) -> list[str]:
    """``name==version`` of each package the project's own lock pins once from a package index:
    the first ``uv.lock`` or ``poetry.lock`` in ``folders`` (its own folders, nearest first).
    A package locked at several versions (per Python or platform), or from a folder, a git
    repository or a URL, is left to the resolver."""
    for folder in folders:
        for name in ("uv.lock", "poetry.lock"):
            try:
                data = tomllib.loads((folder / name).read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            packages = data.get("package")
            return _registry_pins(packages) if isinstance(packages, list) else []
    return []


def _registry_pins(packages: list[object]) -> list[str]:
    versions: dict[str, set[str]] = {}
    for package in packages:
        if not isinstance(package, dict):
            continue
        name, version, source = package.get("name"), package.get("version"), package.get("source")
        local = isinstance(source, dict) and (
            source.get("type") in ("directory", "file", "git", "url")
            or any(key in source for key in ("editable", "virtual", "directory", "path", "git"))
        )
        if isinstance(name, str) and isinstance(version, str) and not local:
            versions.setdefault(canonicalize_name(name), set()).add(version)
    return [f"{name}=={next(iter(v))}" for name, v in sorted(versions.items()) if len(v) == 1]


def pinned(lock: str) -> dict[str, str]:
    """The versions a lock pins, by canonical name."""
    return {canonicalize_name(name): version for name, version in _PINNED.findall(lock)}


def write_lock(folder: Path, text: str) -> Path:
    """Put the lock beside the plugin's ``requirements.txt``."""
    path = folder / REQUIREMENTS_LOCK
    path.write_text(text, encoding="utf-8")
    return path


def with_lock(report: DependencyReport, folder: Path) -> DependencyReport:
    """``report`` with the versions the plugin in ``folder`` is locked to, when it has a lock
    (an environment of its own): those, not the runtime's, are what its agent gets."""
    lock = folder / REQUIREMENTS_LOCK
    if not lock.is_file():
        return report
    return report.model_copy(update={"locked": pinned(lock.read_text(encoding="utf-8"))})
