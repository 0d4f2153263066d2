"""The staged job import and update share once the plugin is rendered into a staging folder.

Copier's ``Worker`` holds copy and update; here each driver renders its own way (``import``: a
fresh render in a staging folder; ``update``: ``copier update`` in a worktree of the plugin's
repository) and hands the same steps a ``Staged`` plugin, each step taking the model the step
before returned::

    Staged --dependencies--> Installed --validate--> Checked --write, commit

* **dependencies**: an isolated plugin's lock written (the import's decision, or again when its
  requirements changed) and its environment built, as the runtime would build it; a sharing
  plugin's approved requirements checked against the runtime's and installed into its
  validation environment (never the runtime's);
* **validate**: the offline checks (``validate/``), in the plugin's worker when it is isolated,
  then once more with a requirement an ImportError named (``hinted.py``), if approved; a plugin
  validated on another Python than its project asks for passes with a warning;
* **write** happens only when the checks passed, by the driver (a rename of the staging folder,
  or a copy of the worktree's), then **commit** on the asked branch.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from generator import gitops
from generator.dependencies.conflicts import check_conflicts
from generator.dependencies.environment import (
    DependencyReport,
    approved_env_python,
    install_approved,
)
from generator.dependencies.isolation import build_env, refresh, validate_isolated
from generator.dependencies.lock import write_lock
from generator.dependencies.prefill import Prefill
from generator.errors import AgentImportError
from generator.pipeline.hinted import Rendering, retry_in_place, retry_with_hints
from generator.pipeline.steps import Steps
from generator.render.template import read_answers
from generator.validate.diagnosis import port_warning, python_warning
from generator.validate.plugin import Report, validate
from runtime.contract.agent import EnvironmentSpec, load_agent_spec
from runtime.contract.layout import REQUIREMENTS_FILE


class Asked(BaseModel):
    """What the user allowed, the same words for import and update."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    approve_deps: bool = False
    dry_run: bool = False
    shared_env: bool = False


class Staged(BaseModel):
    """A plugin rendered into its staging folder: what the dependencies step takes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    root: Path
    folder: Path = Field(description="The staging folder, named after the plugin id.")
    environment: EnvironmentSpec
    dependencies: DependencyReport = Field(description="Its requirements.txt, checked here.")
    local_packages: list[str] = Field(default_factory=list)
    lock: str | None = Field(
        default=None, description="An isolated plugin's new lock; None: the folder's, or again."
    )
    relock: bool = Field(default=False, description="Its requirements changed: lock again.")
    rendering: Rendering | None = Field(
        default=None,
        description="What it was rendered from, to render again with a hinted requirement "
        "(import); None: the hint is added in place (update).",
    )

    @property
    def plugin_id(self) -> str:
        return self.folder.name

    @property
    def isolated(self) -> bool:
        return self.environment.kind == "isolated"


class Installed(BaseModel):
    """The staged plugin with its requirements where its checks run."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    staged: Staged
    #: The approved validation environment's interpreter, or None (the runtime's, or the
    #: plugin's own environment's, which its worker finds).
    python: Path | None = None


class Checked(BaseModel):
    """The validation's outcome, after the hint retry if one ran."""

    model_config = ConfigDict(extra="forbid")

    installed: Installed
    report: Report
    notes: list[str]


def dependencies(
    staged: Staged, step: Steps, asked: Asked, prefill: Prefill | None = None
) -> Installed:
    """The dependencies step; ``prefill`` holds an install started while the plugin rendered."""
    root, folder = staged.root, staged.folder
    with step("dependencies") as note:
        if staged.isolated:
            if staged.lock is not None:
                write_lock(folder, staged.lock)
                note.append(build_env(root, folder, staged.plugin_id))
            else:
                note.append(
                    refresh(
                        root,
                        folder,
                        staged.environment,
                        relock=staged.relock,
                        local_packages=staged.local_packages,
                    )
                )
            return Installed(staged=staged)
        installs = asked.approve_deps and not asked.dry_run
        if installs and asked.shared_env:  # the import's decision checked it otherwise
            note.append(
                check_conflicts(
                    root,
                    staged.plugin_id,
                    staged.dependencies.lines(),
                    local_packages=staged.local_packages,
                )
            )
        python = approved_env_python(root, staged.plugin_id)
        if installs and staged.dependencies.missing:
            python = _install(staged, prefill)
        note.append(_installed(staged, python, asked))
    return Installed(staged=staged, python=python)


def validate_staged(installed: Installed, step: Steps, asked: Asked) -> Checked:
    """The validate step: the checks, then one retry with a hinted requirement."""
    staged = installed.staged
    with step("validate") as note:
        report = _checks(installed)
        if staged.rendering is not None:
            retried = retry_with_hints(
                report,
                staged.rendering,
                staged.dependencies,
                root=staged.root,
                folder=staged.folder,
                approved=asked.approve_deps,
                dry_run=asked.dry_run,
                shared_env=asked.shared_env,
            )
            report, notes = retried.report, retried.notes
            again = {"rendering": retried.rendering, "dependencies": retried.dependencies}
            staged = staged.model_copy(update=again)
            installed = Installed(staged=staged, python=retried.python or installed.python)
        else:
            report, notes = retry_in_place(
                staged.root, staged.folder, report, approved=asked.approve_deps
            )
        if report.ok and report.diagnosis is None:  # as the folder now says, after a retry
            warning = port_warning(read_answers(staged.folder).get("strategy", "")) or (
                python_warning(load_agent_spec(staged.folder).environment)
            )
            report = report.model_copy(update={"diagnosis": warning})
        note.extend(notes)
        note.append("passed" if report.ok else "FAILED: nothing was written")
    return Checked(installed=installed, report=report, notes=notes)


def commit(root: Path, branch: str, folder: Path, message: str, step: Steps) -> str:
    """The commit step: the written plugin folder, one commit on ``branch``."""
    with step("commit") as note:
        made = gitops.commit_on_branch(root, branch, folder, message)
        note.append(f"{made[:12]} on {branch}")
    return made


def _install(staged: Staged, prefill: Prefill | None) -> Path:
    """The approved requirements installed into the validation environment; a failure of an
    agent validated on another Python than it asks for says which (a package may have no
    release for this one)."""
    listed = staged.folder / REQUIREMENTS_FILE
    try:
        if prefill is not None:
            return prefill.python(staged.root, staged.plugin_id, listed)
        return install_approved(staged.root, staged.plugin_id, listed)
    except AgentImportError as exc:
        asked = staged.environment.asked_python
        if asked is None:
            raise
        raise AgentImportError(f"{exc} ({staged.environment.reason})") from None


def _checks(installed: Installed) -> Report:
    """The checks, with the agent in its worker when it has an environment of its own."""
    staged = installed.staged
    if staged.isolated:
        return validate_isolated(staged.root, staged.folder)
    return validate(staged.folder, python=installed.python)


def _installed(staged: Staged, python: Path | None, asked: Asked) -> str:
    """The step's summary for a sharing plugin: what is missing here and where it is checked."""
    report = staged.dependencies
    missing = ", ".join(r.spec for r in report.missing)
    if not missing:
        return f"{len(report.requirements)} requirements, all installed"
    if python is not None:
        return f"missing here: {missing}; validating with {python}"
    return f"missing here: {missing}" + (
        " (dry run: nothing installed)" if asked.dry_run else "; not approved"
    )
