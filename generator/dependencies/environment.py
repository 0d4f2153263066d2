"""Dependencies: what the agent needs, what is installed, and the isolated validation env.

The agent's requirements (as the inspector read them) are compared with the distributions
installed in the runtime's environment and shown. Nothing is ever installed into that
environment. With ``--approve-deps`` the plugin's ``requirements.txt`` (the reviewed record) is
installed with uv into ``.agent-import/envs/<plugin_id>``, a virtual environment that sees the
runtime's packages and is used for validation only. The runtime's
own install picks up every plugin's ``requirements.txt`` after review (``noxfile.py``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from pydantic import BaseModel, ConfigDict, Field

from generator.dependencies.additions import added_sites, planned_additions
from generator.dependencies.distributions import HINT_ORIGIN
from generator.errors import AgentImportError
from generator.models import Dependency
from generator.repository import LOCAL_FOLDER
from generator.validate.processes import Finished, run_tree
from runtime.contract.layout import REQUIREMENTS_LOCK
from runtime.isolated.envs import find_uv

ENVS_FOLDER = LOCAL_FOLDER / "envs"
#: The command quoted in a hinted requirement's ``proposed_for``.
_HINT_COMMAND = re.compile(r":?\s*`pip install[^`]*`")
INSTALL_TIMEOUT_S = 600.0


class RequirementStatus(BaseModel):
    """One requirement of the agent against the runtime's environment."""

    model_config = ConfigDict(extra="forbid")

    spec: str = Field(description="As written, e.g. 'langchain-openai>=0.2'.")
    name: str = Field(description="The canonical distribution name.")
    origin: str
    installed: str | None = Field(description="The installed version, if any.")
    satisfied: bool
    proposed_for: str | None = Field(
        default=None, description="The undeclared import it is proposed for, if no file has it."
    )


class DependencyReport(BaseModel):
    """The agent's requirements, checked; ``invalid`` ones are left out of requirements.txt."""

    model_config = ConfigDict(extra="forbid")

    requirements: list[RequirementStatus] = Field(default_factory=list)
    invalid: list[str] = Field(default_factory=list, description="'spec (origin): why'.")
    locked: dict[str, str] | None = Field(
        default=None,
        description="The versions requirements.lock pins, by canonical name, when the plugin has "
        "an environment of its own (the runtime's installed versions do not matter to it).",
    )

    @property
    def missing(self) -> list[RequirementStatus]:
        """Requirements the runtime's environment does not satisfy."""
        return [r for r in self.requirements if not r.satisfied]

    def lines(self) -> list[str]:
        """The contents of the plugin's requirements.txt, one requirement per line."""
        return [r.spec for r in self.requirements]

    def describe(self) -> str:
        """One line per requirement, as shown during an import."""
        rows = [f"{r.spec} ({r.origin}{_proposal(r)}): {self._state(r)}" for r in self.requirements]
        rows += [f"ignored {line}" for line in self.invalid]
        return "\n".join(rows) if rows else "no requirements declared"

    def _state(self, status: RequirementStatus) -> str:
        """The version the plugin gets: locked for its own environment, else the runtime's."""
        if self.locked is not None:
            version = self.locked.get(status.name)
            return f"locked {version} in {REQUIREMENTS_LOCK}" if version else "not locked"
        return f"installed {status.installed}" if status.satisfied else _unsatisfied(status)


def check_dependencies(dependencies: Iterable[Dependency]) -> DependencyReport:
    """Check each requirement (deduplicated by name, first one wins) against this environment."""
    report = DependencyReport()
    seen: set[str] = set()
    for dependency in dependencies:
        spec = " ".join(dependency.spec.split())
        try:
            requirement = Requirement(spec)
        except InvalidRequirement as exc:
            report.invalid.append(f"{spec} ({dependency.origin}): {exc}")
            continue
        name = canonicalize_name(requirement.name)
        if name in seen or (requirement.marker is not None and not requirement.marker.evaluate()):
            continue
        seen.add(name)
        installed = _installed_version(requirement.name)
        satisfied = installed is not None and (
            requirement.url is not None
            or requirement.specifier.contains(installed, prereleases=True)
        )
        report.requirements.append(
            RequirementStatus(
                spec=str(requirement),
                name=name,
                origin=dependency.origin,
                installed=installed,
                satisfied=satisfied,
                proposed_for=dependency.proposed_for,
            )
        )
    report.requirements.sort(key=lambda r: r.name)
    return report


def check_requirements_file(path: Path) -> DependencyReport:
    """``check_dependencies`` for a rendered plugin's ``requirements.txt``."""
    lines = read_requirements(path)
    return check_dependencies(
        Dependency(name=requirement_name(line), spec=line, origin=path.name) for line in lines
    )


def requirement_name(line: str) -> str:
    """The canonical name a ``requirements.txt`` line requires (the line, if it is none)."""
    try:
        return canonicalize_name(Requirement(line).name)
    except InvalidRequirement:
        return line


def requirement_for_module(module: str, requirements: Iterable[str]) -> str | None:
    """The requirement that most likely provides top-level ``module`` (by normalised name)."""
    top = canonicalize_name(module.partition(".")[0])
    for line in requirements:
        try:
            if canonicalize_name(Requirement(line).name) == top:
                return line
        except InvalidRequirement:
            continue
    return None


def read_requirements(path: Path) -> list[str]:
    """The requirement lines of a requirements.txt (comments and blanks skipped)."""
    if not path.is_file():
        return []
    lines = (line.split("#", 1)[0].strip() for line in path.read_text("utf-8").splitlines())
    return [line for line in lines if line]


def approved_env_dir(root: Path, plugin_id: str) -> Path:
    """Where the isolated validation environment of ``plugin_id`` lives."""
    return root / ENVS_FOLDER / plugin_id


def approved_env_python(root: Path, plugin_id: str) -> Path | None:
    """The interpreter of the plugin's validation environment, if it was created."""
    python = approved_env_dir(root, plugin_id) / (
        "Scripts/python.exe" if os.name == "nt" else "bin/python"
    )
    return python if python.exists() else None


def install_approved(
    root: Path, plugin_id: str, requirements_file: Path, *, timeout: float = INSTALL_TIMEOUT_S
) -> Path:
    """Install ``requirements_file`` into the plugin's validation env with uv; its interpreter.

    The env is created on first use (``uv venv``) and sees this environment's packages through a
    ``.pth`` file placed after its own site-packages, so approved versions take precedence. It
    gets only what this environment lacks (``additions.py``) while it holds nothing else, else
    the whole set. uv resolves and installs in parallel from its cache; the whole process tree
    is stopped past ``timeout`` seconds or on Ctrl-C. The runtime's environment is never modified.
    """
    folder = approved_env_dir(root, plugin_id)
    uv = find_uv()
    python = approved_env_python(root, plugin_id)
    if python is None:
        made = run_tree(
            [*uv, "venv", "--quiet", "--python", sys.executable, str(folder)],
            what=f"creating the validation environment {ENVS_FOLDER / plugin_id}",
            timeout=timeout,
        )
        python = approved_env_python(root, plugin_id)
        if made.returncode != 0 or python is None:
            raise AgentImportError(f"could not create the validation environment: {_last(made)}")
        _link_base_packages(python)
    added = None
    if added_sites(python) is not None:
        added = planned_additions(uv, sys.executable, requirements_file, timeout=timeout)
        if added == []:
            return python
    wanted = ["--no-deps", *added] if added else ["-r", str(requirements_file)]
    count = len(read_requirements(requirements_file))
    done = run_tree(
        [*uv, "pip", "install", "--python", str(python), *wanted],
        what=f"installing {count} approved requirements with uv",
        timeout=timeout,
    )
    if done.returncode != 0:
        raise AgentImportError(f"installing the approved requirements failed: {_last(done)}")
    return python


def _last(done: Finished) -> str:
    """uv's own explanation: its last non-empty stderr line."""
    lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
    return lines[-1] if lines else f"exit code {done.returncode}"


def _link_base_packages(python: Path) -> None:
    """Make the new env see this environment's site-packages (and their ``.pth`` files)."""
    done = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    )
    base = [sysconfig.get_path("purelib"), sysconfig.get_path("platlib")]
    lines = "".join(f"import site; site.addsitedir({path!r})\n" for path in dict.fromkeys(base))
    (Path(done.stdout.strip()) / "_agent_import_base.pth").write_text(lines, encoding="utf-8")


def _installed_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _proposal(status: RequirementStatus) -> str:
    """Why a requirement no file declares is proposed: an undeclared import, or the agent's
    ``pip install`` hint (for a module, at a file:line or in a check)."""
    if status.proposed_for is None:
        return ""
    if status.origin != HINT_ORIGIN:
        return f"; proposed for the undeclared import {status.proposed_for}"
    module, _, where = status.proposed_for.partition(" ")
    where = _HINT_COMMAND.sub("", where).strip(" ():")
    return f"; proposed from the agent's `pip install {status.spec}` hint for {module}" + (
        f", {where}" if where else ""
    )


def _unsatisfied(status: RequirementStatus) -> str:
    if status.installed is None:
        return "not installed"
    return f"installed {status.installed} does not satisfy it"
