"""``import_agent``: fetch → inspect → design → render → dependencies → validate → write.

Every step is one call into its module, timed and reported through ``progress``; dependencies,
validate and commit are the staged job ``update`` runs too (``job.py``). The plugin is
built in a staging folder and moved into ``runtime/plugins/<plugin_id>/`` only after it
validated, so a failure at any step leaves no plugin folder behind (and an existing one, replaced
with ``force``, untouched). A dry run goes through the same steps in a temporary folder and
returns the files it would have written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from generator import gitops
from generator.dependencies.environment import (
    DependencyReport,
    check_dependencies,
)
from generator.dependencies.index import check_proposals
from generator.dependencies.isolation import (
    decide,
)
from generator.dependencies.lock import with_lock
from generator.dependencies.prefill import Prefill
from generator.dependencies.python_version import needed_for
from generator.design import Design, DesignOptions, design, load_design
from generator.design.bedrock import OnText
from generator.design.facts import select_graph
from generator.errors import AgentImportError
from generator.fetch import FetchLimits, Workspace, fetch
from generator.inspect import inspect_source
from generator.models import Inspection
from generator.pipeline import job
from generator.pipeline.hinted import Rendering
from generator.pipeline.job import Asked, Staged, validate_staged
from generator.pipeline.steps import Progress, Step, Steps, designed, inspected
from generator.render.proposed_files import write_proposed
from generator.render.screen_files import screens_of
from generator.render.staging import Staging
from generator.render.template import PluginData, find_template, plugin_data, render
from generator.render.vendor import vendor
from generator.repository import check_plugin_id
from generator.validate import warm
from generator.validate.explain import explained
from generator.validate.plugin import UNCONFINED, Report
from runtime.contract.agent import EnvironmentSpec
from runtime.contract.layout import (
    PLUGINS_FOLDER,
    REQUIREMENTS_LOCK,
    SOURCE_FOLDER,
    Strategy,
)


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
    shared_env: bool = Field(
        default=False, description="Refuse a conflict rather than give an environment of its own."
    )
    limits: FetchLimits = FetchLimits()
    branch: str | None = Field(default=None, description="Commit the plugin on this branch.")

    @classmethod
    def from_asked(cls, asked: object, **given: Any) -> ImportOptions:
        """The options of a request to import (the CLI's arguments, the API's body): each value
        ``asked`` holds under an option's name (its own attributes, never methods), then
        ``given`` for what it names or holds otherwise. An option that both spell alike thus
        reaches ``import_agent`` with no line here, in the CLI or in the API."""
        named = {name: value for name, value in vars(asked).items() if name in cls.model_fields}
        return cls(**(named | given))


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
        elif report.diagnosis is not None:
            reason = report.diagnosis.headline()
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
        Prefill() as prefill,  # left first: a failed import waits for its install
    ):
        with step("fetch") as note:
            source = fetch(options.src, workspace=workspace, ref=options.ref, limits=options.limits)
            note.append(source.url + (f" @ {source.commit[:12]}" if source.commit else ""))
        with step("inspect") as note:
            inspection = inspect_source(source, config=options.config, graph=options.graph)
            note.append(inspected(inspection))
            need = needed_for(inspection)
            if need is not None:
                note.append(need.describe())
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
        strategy = check_strategy(options.strategy, inspection, screens.graph_id)
        declared, checked = (
            check_proposals(inspection.dependencies)
            if options.approve_deps
            else (inspection.dependencies, [])
        )
        dependencies = check_dependencies(declared)
        decision = None
        environment = need.elsewhere(_not_isolated(options)) if need else None
        if _may_isolate(options):  # agent.json records it: decided before rendering
            with step("environment") as note:
                decision = decide(
                    root, options.plugin_id, dependencies.lines(), inspection=inspection
                )
                note.append(decision.note)
                if decision.lock is None and dependencies.missing:  # uv beside Copier
                    scratch = workspace.folder("install-")
                    prefill.start(root, options.plugin_id, dependencies.lines(), scratch)
        with step("render") as note:
            note.extend(checked)
            plugin = plugin_data(
                screens,
                inspection,
                strategy=strategy,
                requirements=dependencies.lines(),
                environment=decision.environment if decision else environment,
            )
            rendered = render(plugin, screens=screens_of(screens), template=template, dest=s.folder)
            vendored = vendor(source, s.folder / SOURCE_FOLDER, max_bytes=options.limits.max_bytes)
            note.extend(write_proposed(inspection, s.folder / SOURCE_FOLDER))
            note.append(f"{strategy}: {len(rendered.files)} files from the template")
            note.append(_settings_summary(plugin))
            note.extend(f"proposed {line}" for line in plugin.proposed_settings)
            note.extend(f"needs a value: {line}" for line in plugin.answers.unset_settings)
            note.append(
                f"{SOURCE_FOLDER}/: {len(vendored.files)} files, {vendored.bytes / 1024:.0f} kB"
            )
            note.extend(f"left out {skipped}" for skipped in vendored.skipped)
            if template.dirty:
                note.append(f"template has uncommitted changes; used {template.commit[:12]}")
        rendering = Rendering(
            design=screens, template=template, inspection=inspection, plugin=plugin
        )
        staged = Staged(
            root=root,
            folder=s.folder,
            environment=plugin.agent.environment,
            dependencies=dependencies,
            local_packages=inspection.local_packages,
            lock=decision.lock if decision is not None else None,
            rendering=rendering,
        )
        asked = Asked(
            approve_deps=options.approve_deps,
            dry_run=options.dry_run,
            shared_env=options.shared_env,
        )
        outcome = validate_staged(job.dependencies(staged, step, asked, prefill), step, asked)
        staged = outcome.installed.staged
        plugin = (staged.rendering or rendering).plugin
        dependencies = with_lock(staged.dependencies, s.folder)
        report = explained(outcome.report.reviewing(plugin.left_for_review), options.design_options)
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
            commit = job.commit(root, options.branch, s.target, import_message(plugin), step)
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
        *_environment_lines(agent.environment),
        *(["Tool servers: " + "; ".join(agent.tool_servers)] if agent.tool_servers else []),
        f"Screens: {', '.join(answers.screens)} (designed by {designer})",
    ]
    if agent.validated_without_sandbox:
        lines.append(f"Validated WITHOUT the sandbox ({UNCONFINED})")
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


def _environment_lines(environment: EnvironmentSpec) -> list[str]:
    """An environment of its own, for the reviewer: why, and the lock to read; or the Python
    the project asks for, when it was validated on another."""
    if environment.kind == "shared":
        return [f"Python: {environment.reason}"] if environment.asked_python else []
    return [
        f"Environment: isolated, Python {environment.python}, because {environment.reason} "
        f"(pinned in {REQUIREMENTS_LOCK})"
    ]


def _may_isolate(options: ImportOptions) -> bool:
    """Whether the import may give the agent an environment of its own: its requirements are
    approved for installing (not a dry run, which installs nothing) and not ``--shared-env``."""
    return options.approve_deps and not options.dry_run and not options.shared_env


def _not_isolated(options: ImportOptions) -> str:
    """Why an import that may not isolate validates on the runtime's Python."""
    if options.dry_run:
        return "a dry run installs nothing"
    if options.shared_env:
        return "--shared-env keeps it in the runtime's environment"
    return "an environment of its own on that Python needs --approve-deps"


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
