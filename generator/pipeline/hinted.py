"""After a failed validation: the requirements the agent's ImportErrors named, approved or not.

A hint (``generator/validate/hints.py``) names a requirement no file declared. Without
``--approve-deps`` (or in a dry run, which installs nothing) the failure says which one to
approve and how; with it, the plugin is rendered again with the requirement in its
``requirements.txt`` (and the answers and README that list them), its environment decided as
on the first pass (``isolation.py``: a plugin with an environment of its own keeps it and has
its lock written again; a sharing one whose new requirement conflicts gets one, unless
``--shared-env``), the requirements installed there, and the plugin validated once more, once.
``agent-import validate --approve-deps`` does the same in place (``retry_in_place``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from packaging.utils import canonicalize_name
from pydantic import BaseModel, ConfigDict

from generator.dependencies.conflicts import check_conflicts
from generator.dependencies.environment import (
    DependencyReport,
    check_dependencies,
    install_approved,
    read_requirements,
    requirement_name,
)
from generator.dependencies.isolation import (
    Decision,
    build_env,
    decide,
    lock_again,
    validate_isolated,
)
from generator.dependencies.local_packages import project_name
from generator.dependencies.lock import write_lock
from generator.design import Design
from generator.models import Inspection
from generator.render.screen_files import screens_of
from generator.render.template import PluginData, Template, plugin_data, render
from generator.validate.hints import DRY_RUN, hinted_requirements, in_dry_run, unapproved
from generator.validate.plugin import Report, validate
from runtime.contract.agent import EnvironmentSpec, load_agent_spec
from runtime.contract.layout import REQUIREMENTS_FILE, REQUIREMENTS_LOCK, SOURCE_FOLDER


class Rendering(BaseModel):
    """What an import rendered its plugin from: enough to render it again with a requirement
    added (its answers and README list the requirements)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    design: Design
    template: Template
    inspection: Inspection
    plugin: PluginData


class Retried(BaseModel):
    """The validation's outcome after a retry, if one ran: the report, the plugin as it is now
    rendered, its requirements and interpreter, and what the retry did."""

    model_config = ConfigDict(extra="forbid")

    report: Report
    rendering: Rendering
    dependencies: DependencyReport
    python: Path | None = None
    notes: list[str]


def retry_with_hints(
    report: Report,
    rendering: Rendering,
    dependencies: DependencyReport,
    *,
    root: Path,
    folder: Path,
    approved: bool,
    dry_run: bool,
    shared_env: bool,
) -> Retried:
    """``report`` unchanged when it passed or names no new requirement; else the outcome of
    rendering ``folder`` again with the hinted requirements and installing them (``approved``,
    not ``dry_run``), or the failure saying how to approve them."""
    same = Retried(report=report, rendering=rendering, dependencies=dependencies, notes=[])
    if report.ok:
        return same
    inspection = rendering.inspection
    known = {r.name for r in dependencies.requirements}
    hinted = [
        d for d in hinted_requirements(report, inspection.local_packages) if d.name not in known
    ]
    if not hinted:
        return (
            same.model_copy(update={"report": in_dry_run(report)}) if approved and dry_run else same
        )
    added = check_dependencies(hinted)
    merged = DependencyReport(
        requirements=sorted(
            [*dependencies.requirements, *added.requirements], key=lambda r: r.name
        ),
        invalid=dependencies.invalid,
    )
    shown = ", ".join(d.spec for d in hinted)
    if dry_run or not approved:
        why = DRY_RUN if approved else "not approved"
        notes = [f"proposed from an ImportError's install hint: {shown}; {why}"]
        failed = unapproved(report, hinted, dry_run=approved)
        return same.model_copy(update={"report": failed, "dependencies": merged, "notes": notes})
    plugin = rendering.plugin
    plugin_id = plugin.answers.plugin_id
    decision = _decide_again(
        root,
        plugin_id,
        merged.lines(),
        plugin.agent.environment,
        local_packages=inspection.local_packages,
        inspection=None if shared_env else inspection,
    )
    plugin = plugin_data(
        rendering.design,
        inspection,
        strategy=plugin.answers.strategy,
        requirements=merged.lines(),
        environment=decision.environment,
    )
    _render_again(folder, plugin, rendering.design, rendering.template)
    checked, python, built = _install_and_validate(root, folder, plugin_id, decision.lock)
    notes = [
        f"added {shown} to {REQUIREMENTS_FILE} (an ImportError's install hint); validating again",
        decision.note,
        *built,
    ]
    again = rendering.model_copy(update={"plugin": plugin})
    return Retried(report=checked, rendering=again, dependencies=merged, python=python, notes=notes)


def retry_in_place(
    root: Path, folder: Path, report: Report, *, approved: bool
) -> tuple[Report, list[str]]:
    """``agent-import validate``'s retry for the imported plugin in ``folder``: the hinted
    requirements appended to its ``requirements.txt`` (its lock written again when it has an
    environment of its own), installed, and validated once more; unapproved, the failure saying
    how. Nothing is left changed when the install fails."""
    if report.ok:
        return report, []
    requirements = read_requirements(folder / REQUIREMENTS_FILE)
    known = {requirement_name(line) for line in requirements}
    local = _own_names(folder)
    hinted = [d for d in hinted_requirements(report, local) if d.name not in known]
    if not hinted:
        return report, []
    if not approved:
        return unapproved(report, hinted), []
    lines = [*requirements, *(d.spec for d in hinted)]
    environment = load_agent_spec(folder).environment
    kept = {name: _read(folder / name) for name in (REQUIREMENTS_FILE, REQUIREMENTS_LOCK)}
    try:
        decision = _decide_again(root, folder.name, lines, environment, local_packages=local)
        with (folder / REQUIREMENTS_FILE).open("a", encoding="utf-8") as file:
            file.write("".join(f"{d.spec}\n" for d in hinted))
        checked, _, built = _install_and_validate(root, folder, folder.name, decision.lock)
    except BaseException:
        for name, text in kept.items():
            _restore(folder / name, text)
        raise
    shown = ", ".join(d.spec for d in hinted)
    added = f"added {shown} to {REQUIREMENTS_FILE} (an ImportError's install hint)"
    return checked, [added, decision.note, *built]


def _decide_again(
    root: Path,
    plugin_id: str,
    requirements: list[str],
    environment: EnvironmentSpec,
    *,
    local_packages: list[str],
    inspection: Inspection | None = None,
) -> Decision:
    """The first pass's decision, for the requirements with the hinted ones: an environment of
    its own is kept (its lock written again); a sharing plugin is decided again with the
    agent's ``inspection`` (one whose new requirement conflicts gets an environment of its own),
    or, without one (``--shared-env``, or after the import), a conflict refuses in one line."""
    if environment.kind == "isolated":
        lock = lock_again(requirements, environment, local_packages=local_packages)
        python = f"Python {environment.python}" if environment.python else "the runtime's Python"
        note = f"isolated; {REQUIREMENTS_LOCK} written again for {python}"
        return Decision(environment=environment, lock=lock, note=note)
    if inspection is None:
        fits = check_conflicts(root, plugin_id, requirements, local_packages=local_packages)
        return Decision(note=fits)
    return decide(root, plugin_id, requirements, inspection=inspection)


def _install_and_validate(
    root: Path, folder: Path, plugin_id: str, lock: str | None
) -> tuple[Report, Path | None, list[str]]:
    """The plugin's requirements installed where it is validated, then its checks: in an
    environment of its own built from ``lock``, or in its validation environment."""
    if lock is not None:
        write_lock(folder, lock)
        built = build_env(root, folder, plugin_id)
        return validate_isolated(root, folder), None, [built]
    python = install_approved(root, plugin_id, folder / REQUIREMENTS_FILE)
    return validate(folder, python=python), python, []


def _render_again(folder: Path, plugin: PluginData, design: Design, template: Template) -> None:
    """Render ``plugin`` in place of ``folder``'s rendered files, keeping its vendored source."""
    fresh = folder.with_name(folder.name + ".again")
    render(plugin, screens=screens_of(design), template=template, dest=fresh)
    os.rename(folder / SOURCE_FOLDER, fresh / SOURCE_FOLDER)
    shutil.rmtree(folder)
    os.rename(fresh, folder)


def _own_names(folder: Path) -> list[str]:
    """The vendored repository's own names, never proposed from a hint: its projects' and its
    top-level packages' (the import's inspection is not at hand after it)."""
    src = folder / SOURCE_FOLDER
    projects = [project_name(p.parent) for p in src.rglob("pyproject.toml")]
    packages = [p.parent.name for p in [*src.glob("*/__init__.py"), *src.glob("*/*/__init__.py")]]
    return sorted({canonicalize_name(n) for n in [*projects, *packages] if n})


def _read(path: Path) -> str | None:
    return path.read_text(encoding="utf-8") if path.is_file() else None


def _restore(path: Path, text: str | None) -> None:
    if text is None:
        path.unlink(missing_ok=True)
    else:
        path.write_text(text, encoding="utf-8")
