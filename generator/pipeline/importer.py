"""``import_agent``: fetch → inspect → design → render → dependencies → validate → write.

Every step is one call into its module, timed and reported through ``progress``. The plugin is
built in a staging folder and moved into ``runtime/plugins/<plugin_id>/`` only after it
validated, so a failure at any step leaves no plugin folder behind (and an existing one, replaced
with ``force``, untouched). A dry run goes through the same steps in a temporary folder and
returns the files it would have written.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from generator import gitops
from generator.design import Design, DesignOptions, design, load_design
from generator.design.bedrock import OnText
from generator.design.facts import select_graph
from generator.errors import AgentImportError
from generator.fetch import FetchLimits, Workspace, fetch
from generator.inspect import inspect_source
from generator.models import Inspection
from generator.pipeline.steps import Progress, Step, Steps, designed, inspected
from generator.render.screen_files import screens_of
from generator.render.staging import Staging
from generator.render.template import PluginData, find_template, plugin_data, render
from generator.render.vendor import vendor
from generator.repository import check_plugin_id
from generator.validate import warm
from generator.validate.conflicts import check_conflicts
from generator.validate.environment import (
    DependencyReport,
    check_dependencies,
    env_python,
    install_approved,
)
from generator.validate.plugin import Report, validate
from runtime.layout import PLUGINS_FOLDER, REQUIREMENTS_FILE, SOURCE_FOLDER, Strategy


class ImportOptions(BaseModel):
    """What ``agent-import import`` was asked to do."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    src: str = Field(description="A local folder or a git URL.")
    plugin_id: str
    graph: str | None = None
    config: str | None = Field(default=None, description="langgraph.json to use, if several.")
    strategy: Strategy | None = Field(default=None, description="None: the inspector's choice.")
    ref: str | None = None
    dry_run: bool = False
    force: bool = False
    design_file: Path | None = None
    design_options: DesignOptions = DesignOptions()
    approve_deps: bool = False
    limits: FetchLimits = FetchLimits()
    branch: str | None = Field(default=None, description="Commit the plugin on this branch.")


class ImportResult(BaseModel):
    """What an import did (or, for a dry run, would do)."""

    model_config = ConfigDict(extra="forbid")

    plugin_id: str
    folder: str = Field(description="The plugin folder, written or (dry run) not.")
    dry_run: bool
    strategy: Strategy
    files: dict[str, str | None] = Field(
        description="Files relative to the folder; contents for a dry run (None if binary)."
    )
    steps: list[Step]
    design: Design
    dependencies: DependencyReport
    validation: Report
    branch: str | None = None
    commit: str | None = Field(default=None, description="The commit made on ``branch``.")


class ValidationFailed(AgentImportError):
    """The rendered plugin did not validate; nothing was written. ``report`` says why.

    A dry run's ``preview`` is what it would have written, so a reviewer (the wizard) can still
    look at the design, the files and what to approve.
    """

    def __init__(self, report: Report, preview: ImportResult | None = None) -> None:
        first = next((c for c in report.checks if not c.ok), None)
        reason = f"{first.name} check: {first.summary}" if first else "incomplete checks"
        if report.missing is not None:
            reason = report.missing.hint
        super().__init__(f"the plugin did not validate ({reason}); nothing was written")
        self.report = report
        self.preview = preview


def import_agent(
    options: ImportOptions,
    *,
    root: Path,
    progress: Progress | None = None,
    on_text: OnText | None = None,
) -> ImportResult:
    """Run the whole import; raises ``AgentImportError`` (``ValidationFailed``) on failure.

    ``on_text`` receives the design model's answer as it streams in (see ``design()``).
    """
    check_plugin_id(options.plugin_id)
    warm.start()  # the check interpreter imports its libraries while the steps before run
    if options.branch is not None:
        if options.dry_run:
            raise AgentImportError("--branch commits the plugin; a dry run writes nothing")
        gitops.check_branch_commit(root, options.branch)
    step = Steps(progress)
    template = find_template(root)
    plugins_dir = root / PLUGINS_FOLDER
    with (
        Staging(plugins_dir, options.plugin_id, force=options.force, dry_run=options.dry_run) as s,
        Workspace() as workspace,
    ):
        with step("fetch") as note:
            source = fetch(options.src, workspace=workspace, ref=options.ref, limits=options.limits)
            note.append(source.url + (f" @ {source.commit[:12]}" if source.commit else ""))
        with step("inspect") as note:
            inspection = inspect_source(source, config=options.config, graph=options.graph)
            note.append(inspected(inspection))
        with step("design") as note:
            screens = design_screens(
                inspection,
                plugin_id=options.plugin_id,
                graph_id=options.graph,
                design_file=options.design_file,
                options=options.design_options,
                on_text=on_text,
            )
            note.append(designed(screens))
        with step("render") as note:
            strategy = check_strategy(options.strategy, inspection, screens.graph_id)
            dependencies = check_dependencies(inspection.dependencies)
            plugin = plugin_data(
                screens,
                inspection,
                strategy=strategy,
                requirements=dependencies.lines(),
            )
            rendered = render(plugin, screens=screens_of(screens), template=template, dest=s.folder)
            vendored = vendor(source, s.folder / SOURCE_FOLDER, max_bytes=options.limits.max_bytes)
            note.append(f"{strategy}: {len(rendered.files)} files from the template")
            note.append(_settings_summary(plugin))
            note.extend(f"needs a value: {line}" for line in plugin.answers.unset_settings)
            note.append(f"src/: {len(vendored.files)} files, {vendored.bytes / 1024:.0f} kB")
            note.extend(f"left out {skipped}" for skipped in vendored.skipped)
            if template.dirty:
                note.append(f"template has uncommitted changes; used {template.commit[:12]}")
        with step("dependencies") as note:
            if options.approve_deps and not options.dry_run:
                note.append(
                    check_conflicts(
                        root,
                        options.plugin_id,
                        dependencies.lines(),
                        local_packages=inspection.local_packages,
                    )
                )
            python = _python(options, root, s.folder, dependencies)
            note.append(_dependency_summary(dependencies, python, options))
        with step("validate") as note:
            report = validate(s.folder, python=python)
            note.append("passed" if report.ok else "FAILED")
        files = _files(s.folder, with_contents=options.dry_run)

        def result(commit: str | None = None) -> ImportResult:
            return ImportResult(
                plugin_id=options.plugin_id,
                folder=str(s.target),
                dry_run=options.dry_run,
                strategy=strategy,
                files=files,
                steps=step.done,
                design=screens,
                dependencies=dependencies,
                validation=report,
                branch=options.branch,
                commit=commit,
            )

        if not report.ok:
            raise ValidationFailed(report, result() if options.dry_run else None)
        if not options.dry_run:
            with step("write") as note:
                note.append(str(s.commit()))
        commit = None
        if options.branch is not None:  # still under the claim: no other import's folder
            with step("commit") as note:
                message = import_message(plugin)
                commit = gitops.commit_on_branch(root, options.branch, s.target, message)
                note.append(f"{commit[:12]} on {options.branch}")
    return result(commit)


def import_message(plugin: PluginData) -> str:
    """The commit message of an import: where from, how it runs, what a reviewer checks."""
    answers, agent = plugin.answers, plugin.agent
    shape = answers.agent_shape
    commit = f" @ {answers.source_commit[:12]}" if answers.source_commit else ""
    designer = answers.design_provenance.get("design_model") or answers.design_provenance.get(
        "mode", "unknown"
    )
    lines = [
        f"Import plugin {answers.plugin_id} from {answers.source_url}{commit}",
        "",
        f"Strategy: {answers.strategy} (graph {agent.graph_id}: {agent.graph_spec})",
        "State fields: " + (", ".join(f["name"] for f in shape.get("state") or []) or "unknown"),
        "Nodes: " + (", ".join(n["name"] for n in shape.get("nodes") or []) or "unknown"),
        "Dependencies: " + (", ".join(answers.requirements) or "none"),
        f"Screens: {', '.join(answers.screens)} (designed by {designer})",
    ]
    return "\n".join(lines) + "\n"


def design_screens(
    inspection: Inspection,
    *,
    plugin_id: str,
    graph_id: str | None,
    design_file: Path | None,
    options: DesignOptions,
    on_text: OnText | None = None,
) -> Design:
    """The design step: ``design_file`` checked, else a model's or the offline design."""
    if design_file is not None:
        return load_design(design_file, inspection, plugin_id=plugin_id, graph_id=graph_id)
    return design(
        inspection, plugin_id=plugin_id, graph_id=graph_id, options=options, on_text=on_text
    )


def check_strategy(asked: Strategy | None, inspection: Inspection, graph_id: str) -> Strategy:
    """The asked strategy, else the inspector's; an agent that cannot be loaded must be ported."""
    graph = select_graph(inspection, graph_id)
    strategy = asked or graph.strategy
    if strategy != "port" and graph.export_kind == "unresolvable":
        why = graph.export_reason or "its export cannot be resolved statically"
        raise AgentImportError(
            f"graph {graph_id!r} cannot be run as it is ({why}); import it with --strategy port"
        )
    return strategy


def _python(
    options: ImportOptions, root: Path, folder: Path, dependencies: DependencyReport
) -> Path | None:
    """The interpreter to validate with: the plugin's isolated env, installed if approved."""
    if options.approve_deps and dependencies.missing and not options.dry_run:
        return install_approved(root, options.plugin_id, folder / REQUIREMENTS_FILE)
    return env_python(root, options.plugin_id)


def _settings_summary(plugin: PluginData) -> str:
    """The recorded settings in one line: context fields and variable names (never values)."""
    optional = plugin.answers.optional_env
    context = ", ".join(plugin.agent.context) or "none"
    env = ", ".join([*plugin.agent.env, *(f"{name} (optional)" for name in optional)])
    return f"settings: context {context}; environment variables {env or 'none'}"


def _files(folder: Path, *, with_contents: bool) -> dict[str, str | None]:
    files: dict[str, str | None] = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        content: str | None = None
        if with_contents:
            try:
                content = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                content = None
        files[path.relative_to(folder).as_posix()] = content
    return files


def _dependency_summary(
    report: DependencyReport, python: Path | None, options: ImportOptions
) -> str:
    missing = [r.spec for r in report.missing]
    if not missing:
        return f"{len(report.requirements)} requirements, all installed"
    if python is not None:
        return f"missing here: {', '.join(missing)}; validating with {python}"
    approve = " (dry run: nothing installed)" if options.dry_run else "; not approved"
    return f"missing here: {', '.join(missing)}{approve}"
