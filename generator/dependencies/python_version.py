"""Does the agent ask for a newer Python than the one that would run it?

LangGraph's server picks its Python from ``langgraph.json`` ``python_version``; a project also
says ``requires-python`` in its ``pyproject.toml``. Many such agents run unchanged on an older
Python, so the asked version never refuses an import by itself: the agent gets an environment of
its own on it when one is found and approved, else it is validated on the runtime's Python with
a warning (``PythonNeed.elsewhere``). One that does not run there fails with a ``SyntaxError``
(``type`` statements, ``except*``) or an ``ImportError`` deep in its code, which says nothing of
the cause; the diagnosis names it in one line, with how to get that Python. A caller with an
environment of another Python (a per-plugin environment) passes that interpreter's version as
``running``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from pydantic import BaseModel, ConfigDict

from generator.models import Inspection
from runtime.contract.agent import EnvironmentSpec

#: The newest minor version of Python 3 worth naming when ``requires-python`` has no upper bound.
NEWEST_MINOR = 20
PYPROJECT = "pyproject.toml"


class PythonNeed(BaseModel):
    """The agent needs Python ``required``; the validating interpreter is ``running``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    required: str
    running: str
    origin: str
    runner: str = "this runtime"

    def describe(self) -> str:
        """The one line a user reads: both versions and where the requirement is written."""
        return (
            f"the agent needs Python {self.required} ({self.origin}); "
            f"{self.runner} runs Python {self.running}"
        )

    def elsewhere(self, why: str) -> EnvironmentSpec:
        """The runtime's environment for an agent that asks for this Python, recorded as a
        warning: LangGraph's server would run it on the asked one, and nothing insists."""
        reason = (
            f"asked for Python {self.required} ({self.origin}), validated on Python "
            f"{self.running}: {why}"
        )
        return EnvironmentSpec(asked_python=self.required, reason=reason)


def running_python() -> tuple[int, int]:
    return sys.version_info[0], sys.version_info[1]


def interpreter_version(python: str) -> tuple[int, int]:
    """The ``(major, minor)`` of the interpreter at ``python`` (this one's, if it cannot say)."""
    if Path(python) == Path(sys.executable):
        return running_python()
    done = subprocess.run(
        [python, "-c", "import sys; print(*sys.version_info[:2])"],
        capture_output=True,
        text=True,
        check=False,
        timeout=30,
    )
    parts = done.stdout.split()
    return (int(parts[0]), int(parts[1])) if len(parts) == 2 else running_python()


def newer_python(
    python_version: str | None,
    requires_python: str | None,
    *,
    running: tuple[int, int] | None = None,
    config_file: str = "langgraph.json",
) -> PythonNeed | None:
    """The need, when ``python_version`` (``"3.12"``) or ``requires-python`` (``">=3.12"``)
    asks for a Python newer than ``running``; ``None`` when it is satisfied, older or unreadable
    (never stricter than LangGraph's server, which runs what it can)."""
    now = running or running_python()
    here = f"{now[0]}.{now[1]}"
    asked = minor_version(python_version)
    if asked is not None and asked > now:
        origin = f'{config_file} "python_version": "{python_version}"'
        return PythonNeed(required=f"{asked[0]}.{asked[1]}", running=here, origin=origin)
    try:
        specifier = SpecifierSet(requires_python or "")
    except InvalidSpecifier:
        return None
    if not requires_python or specifier.contains(f"{here}.0", prereleases=True):
        return None
    newer = next(
        (minor for minor in range(now[1] + 1, NEWEST_MINOR + 1) if f"3.{minor}.0" in specifier),
        None,
    )
    if newer is None:
        return None
    origin = f'{PYPROJECT} requires-python = "{requires_python}"'
    return PythonNeed(required=f"3.{newer}", running=here, origin=origin)


def needed_for(
    inspection: Inspection, *, running: tuple[int, int] | None = None
) -> PythonNeed | None:
    """``newer_python`` for an inspected agent: its ``langgraph.json`` and the ``pyproject.toml``
    beside it (or at the repository's root)."""
    root = Path(inspection.source.path)
    config_dir = (root / inspection.config_file).parent
    requires = read_requires_python(config_dir) or read_requires_python(root)
    return newer_python(
        inspection.python_version, requires, running=running, config_file=inspection.config_file
    )


def needed_in(
    src: Path, config_file: str, *, running: tuple[int, int] | None = None
) -> PythonNeed | None:
    """``newer_python`` for a vendored agent (a plugin's ``src/``, ``config_file`` within it)."""
    config_path = src / config_file
    try:
        python_version = json.loads(config_path.read_text(encoding="utf-8")).get("python_version")
    except (OSError, ValueError, AttributeError):
        python_version = None
    requires = read_requires_python(config_path.parent) or read_requires_python(src)
    return newer_python(
        python_version if isinstance(python_version, str) else None,
        requires,
        running=running,
        config_file=config_file,
    )


def read_requires_python(folder: Path) -> str | None:
    """``[project] requires-python`` of ``folder/pyproject.toml``, if it says one."""
    try:
        data = tomllib.loads((folder / PYPROJECT).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    value = data.get("project", {}).get("requires-python")
    return value if isinstance(value, str) else None


def minor_version(text: str | None) -> tuple[int, int] | None:
    """``(3, 12)`` of ``"3.12"`` (or ``"3.12.1"``); ``None`` when it is not a version."""
    parts = (text or "").strip().split(".")
    if len(parts) < 2 or not all(part.isdigit() for part in parts[:2]):
        return None
    return int(parts[0]), int(parts[1])
