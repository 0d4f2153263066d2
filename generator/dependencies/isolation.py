"""Decide at import: does a plugin share the runtime's environment, or get one of its own?

Plugins share the runtime's Python environment, which costs them nothing. One that cannot (its
requirements conflict with the runtime's or another sharing plugin's, or its ``langgraph.json``
``python_version`` / ``requires-python`` asks for another Python) gets an environment of its own
when its requirements are approved, as LangGraph's server builds each deployment its own image:
the decision is recorded in ``agent.json`` (``environment``: kind, Python, reason) with a lock of
the resolved versions beside ``requirements.txt`` (``lock.py``), both reviewed in the pull
request, and the runtime runs that plugin's agent in a worker on that environment. With
``--shared-env`` a conflict refuses the import, as it did before.

Another Python is one found on the machine where users keep one (``runtime.isolated.pythons``:
uv's, PATH, pyenv, asdf, conda). When there is none, the agent is validated on the runtime's
Python and, if it passes, imported with a warning (``EnvironmentSpec.asked_python``), as
LangGraph's server insists on no version either.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from generator.dependencies.conflicts import RUNTIME_OWNER, RequirementsConflict, check_conflicts
from generator.dependencies.environment import INSTALL_TIMEOUT_S, read_requirements
from generator.dependencies.lock import compile_lock, project_pins, write_lock
from generator.dependencies.python_version import needed_for, running_python
from generator.errors import AgentImportError
from generator.models import Inspection
from generator.repository import LOCAL_FOLDER
from generator.validate.plugin import Report, validate
from generator.validate.processes import run_tree
from runtime.contract.agent import EnvironmentSpec, load_agent_spec
from runtime.contract.layout import AGENT_FILE, REQUIREMENTS_FILE, REQUIREMENTS_LOCK
from runtime.isolated.envs import ENVS_DIR_ENV, has_python

#: Where ``found_python`` looks, for a message.
LOOKED = "looked in uv's Pythons, PATH, pyenv, asdf and conda"
#: Where an import builds isolated plugins' environments to validate them.
VALIDATION_ENVS = LOCAL_FOLDER / "isolated-envs"
#: ``python -c`` this with the plugin folder and id: the runtime's own build, in a process of its
#: own (``$A2UI_ENVS_DIR`` is read from the environment), stoppable with everything it started.
_ENSURE_ENV = """
import sys
from pathlib import Path
from runtime.isolated.envs import EnvBuildError, ensure_env
try:
    ensure_env(Path(sys.argv[1]), sys.argv[2], lambda line: print(line, file=sys.stderr))
except EnvBuildError as exc:
    sys.exit(str(exc))
"""


class Decision(BaseModel):
    """The environment a plugin gets, the lock of an isolated one, and the step's summary."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    environment: EnvironmentSpec = Field(default_factory=EnvironmentSpec)
    lock: str | None = Field(default=None, description="requirements.lock's text, if isolated.")
    note: str


def decide(
    root: Path, plugin_id: str, requirements: list[str], *, inspection: Inspection
) -> Decision:
    """Shared when the plugin fits; else isolated, with its requirements locked for the Python
    it runs on. An agent that asks for another Python gets an environment of its own on it when
    one is on this machine; when none is, it is decided as any other and validated on the
    runtime's Python, with a warning (``asked_python``). Nothing is installed."""
    need = needed_for(inspection)
    if need is not None and has_python(need.required):
        reason, python = need.describe(), need.required
        asked = None
    else:
        missing = f"no Python {need.required} on this machine ({LOOKED})" if need else ""
        asked = need.elsewhere(missing) if need else None
        try:
            fits = check_conflicts(
                root, plugin_id, requirements, local_packages=inspection.local_packages
            )
        except RequirementsConflict as conflict:
            reason, python = conflict_reason(plugin_id, conflict), _running()
        else:
            note = f"shared: {fits}" + (f"; {asked.reason}" if asked else "")
            return Decision(environment=asked or EnvironmentSpec(), note=note)
    source = Path(inspection.source.path)
    pins = project_pins([(source / inspection.config_file).parent, source])
    lock = compile_lock(
        requirements, python, local_packages=inspection.local_packages, preferred=pins
    )
    spec = EnvironmentSpec(
        kind="isolated",
        python=python,
        reason=reason + (f"; {asked.reason}" if asked else ""),
        asked_python=asked.asked_python if asked else None,
    )
    return Decision(environment=spec, lock=lock, note=f"isolated, because {spec.reason}")


def lock_again(requirements: list[str], spec: EnvironmentSpec, *, local_packages: list[str]) -> str:
    """The lock of an isolated plugin's (changed) requirements, on the Python it records."""
    python = spec.python or _running()
    if python != _running():
        find_python_version(python, why=f"its agent.json environment is Python {python}")
    return compile_lock(requirements, python, local_packages=local_packages)


def conflict_reason(plugin_id: str, conflict: RequirementsConflict) -> str:
    """``langgraph<0.3 conflicts with the runtime's langgraph>=1.2``, from who asked for what."""
    mine = [spec for who, spec in conflict.owners if who == plugin_id]
    theirs = [
        f"{who if who == RUNTIME_OWNER else f'plugin {who}'}'s {spec}"
        for who, spec in conflict.owners
        if who != plugin_id
    ]
    if not mine or not theirs:
        return str(conflict)
    return f"{', '.join(mine)} conflicts with {' and '.join(theirs)}"


def find_python_version(request: str, *, why: str) -> str:
    """``request``, when ``found_python``; else one line saying which is needed (``why``),
    where it was looked for and how to provide it."""
    if not has_python(request):
        raise AgentImportError(
            f"{why}, and no Python {request} is on this machine ({LOOKED}): provide one with "
            f"`uv python install {request}`, then try again"
        )
    return request


def _running() -> str:
    major, minor = running_python()
    return f"{major}.{minor}"


def validation_env(root: Path) -> dict[str, str]:
    """Where an import builds (and its checks find) isolated environments: under the generator's
    own folder, never where the runtime keeps its environments."""
    return {ENVS_DIR_ENV: str((root / VALIDATION_ENVS).resolve())}


def build_env(root: Path, folder: Path, plugin_id: str) -> str:
    """Build the environment of the plugin in ``folder`` from its lock, as the runtime would
    (``runtime.isolated.envs``), where its validation finds it; the step's note."""
    done = run_tree(
        [sys.executable, "-c", _ENSURE_ENV, str(folder), plugin_id],
        what=f"building the environment of its own with uv ({REQUIREMENTS_LOCK})",
        timeout=INSTALL_TIMEOUT_S,
        env={**os.environ, **validation_env(root)},
    )
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        why = lines[-1].strip() if lines else f"exit code {done.returncode}"
        raise AgentImportError(f"could not build the plugin's own environment: {why}")
    return f"its own environment, from {REQUIREMENTS_LOCK}: {VALIDATION_ENVS / plugin_id}"


def validate_isolated(root: Path, folder: Path) -> Report:
    """The usual checks: the runtime's side in the check process, the agent in its worker on
    the environment ``build_env`` made."""
    return validate(folder, env=validation_env(root))


def refresh(
    root: Path, folder: Path, spec: EnvironmentSpec, *, relock: bool, local_packages: list[str]
) -> str:
    """An updated isolated plugin keeps its environment: the lock is written again when its
    requirements changed (``relock``) or it has none, and the environment built for the checks."""
    kept = (folder / REQUIREMENTS_LOCK).is_file() and not relock
    if not kept:
        requirements = read_requirements(folder / REQUIREMENTS_FILE)
        write_lock(folder, lock_again(requirements, spec, local_packages=local_packages))
    what = "kept: requirements unchanged" if kept else f"written again for Python {spec.python}"
    return f"isolated; {REQUIREMENTS_LOCK} {what}; {build_env(root, folder, folder.name)}"


def is_isolated(folder: Path) -> bool:
    """Whether the plugin in ``folder`` has an environment of its own (its ``agent.json`` says)."""
    if not (folder / AGENT_FILE).is_file():
        return False
    return load_agent_spec(folder).environment.kind == "isolated"
