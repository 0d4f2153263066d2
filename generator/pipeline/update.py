"""``update_plugin``: bring an imported plugin up to date, as a diff a reviewer reads in a PR.

check → fetch → inspect → design → render → dependencies → validate → write → commit:

* **check**: the plugin exists, was imported (``.copier-answers.yml``), and its folder is
  committed, since the update merges into what git has;
* **fetch** the source recorded in the answers at the new ref (default: the recorded one, that
  is the branch it was imported from) and **inspect** it again;
* **design** again only when the agent's state fields or nodes changed; otherwise the recorded
  design is kept, so an upstream bug fix never reshuffles reviewed screens;
* **render**: ``copier update`` with the new answers (a 3-way merge that keeps hand edits in
  every file the template renders); the screens and ``agent.json``, which the generator writes,
  are merged (by component id, by key) against the ones last generated, which git keeps by the
  blob ids the answers record (``render.screen_files``, ``render.agent_file``); the vendored
  ``src/`` is replaced;
* **dependencies**, **validate**, **commit**: the staged job an import runs (``job.py``), with a
  hinted requirement added in place; the folder is **written** from the worktree in between,
  only when the checks passed. ``commit`` (``branch``) makes one commit of the plugin folder,
  whose message summarises the change.

The render and the checks run on a staged copy: a worktree of the repository at HEAD (Copier
merges in a git repository), so the plugin's folder changes only once the update has passed, and
a failure at any step leaves it as it was. A conflict (Copier's conflicting lines, or the same
property of the same component changed on both sides) is the exception: the folder is written
with the markers, the files recorded as unmerged in git, reported file by file, and nothing is
committed. ``template_only`` skips fetch, inspect and design: it is ``copier update --defaults``
with the same checks, what a template improvement needs.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from generator import gitops
from generator.dependencies.environment import check_dependencies, check_requirements_file
from generator.design import Design, DesignOptions, Provenance
from generator.design.facts import select_graph
from generator.errors import AgentImportError
from generator.fetch import FetchLimits, Workspace, fetch, is_git_url
from generator.inspect import inspect_source
from generator.models import Inspection
from generator.pipeline import job
from generator.pipeline.changes import Changes, shape_changes, short, source_label
from generator.pipeline.importer import check_strategy, design_screens
from generator.pipeline.job import Asked, Staged, validate_staged
from generator.pipeline.steps import Progress, Step, Steps, designed, inspected
from generator.render import template as copier_template
from generator.render.agent_file import merge_agent, read_agent
from generator.render.claim import Claim
from generator.render.proposed_files import write_proposed
from generator.render.screen_files import (
    MergedFile,
    generated_file,
    generated_screens,
    invalid_screens,
    merge_screen_files,
    parse_screen,
    screens_of,
)
from generator.render.screens import Screen
from generator.render.staging import replace_with
from generator.render.template import (
    PluginAnswers,
    PluginData,
    Template,
    agent_shape,
    find_template,
    plugin_data,
    read_answers,
)
from generator.render.template_repo import replayed_from
from generator.render.vendor import vendor
from generator.repository import plugin_folder
from generator.validate import warm
from generator.validate.plugin import Report
from runtime.a2ui.validate import ValidationIssue
from runtime.contract.agent import AgentSpec
from runtime.contract.layout import (
    ANSWERS_FILE,
    PLUGINS_FOLDER,
    REQUIREMENTS_FILE,
    SCREENS_FOLDER,
    SOURCE_FOLDER,
)

Status = Literal["updated", "up_to_date", "conflicts", "invalid"]


class UpdateOptions(BaseModel):
    """What ``agent-import update`` was asked to do for one plugin."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    plugin_id: str
    ref: str | None = Field(default=None, description="None: the ref recorded at import.")
    template_only: bool = Field(default=False, description="Re-render; leave the agent as is.")
    branch: str | None = Field(default=None, description="Commit the update on this branch.")
    approve_deps: bool = Field(
        default=False,
        description="Install the requirements into the plugin's validation environment first, "
        "and retry once with a requirement an ImportError names (as import does).",
    )
    design_file: Path | None = None
    design_options: DesignOptions = DesignOptions()
    limits: FetchLimits = FetchLimits()


class UpdateResult(BaseModel):
    """What an update did: its status, the changes, conflicts, validation and commit."""

    model_config = ConfigDict(extra="forbid")

    plugin_id: str
    folder: str
    status: Status
    changes: Changes
    message: str = Field(description="The summary; the commit message with a branch.")
    files: list[str] = Field(description="Files changed under the plugin folder.")
    conflicts: list[ValidationIssue] = Field(
        default_factory=list, description="Conflicts (or invalid merged screens) to resolve."
    )
    validation: Report | None = None
    branch: str | None = None
    commit: str | None = None
    steps: list[Step]

    @property
    def ok(self) -> bool:
        return self.status in ("updated", "up_to_date")


def update_plugin(
    options: UpdateOptions, *, root: Path, progress: Progress | None = None
) -> UpdateResult:
    """Update one imported plugin; refusals and failures raise ``AgentImportError``.

    The update is staged in a worktree: a failure, or a failed validation, leaves the folder as
    it was. Conflicts and a failed validation are results, not errors; conflicts are written for
    the reviewer to resolve, and nothing is committed. The plugin id's claim is held
    throughout: an import or update of the same plugin elsewhere is refused meanwhile.
    """
    root = root.resolve()
    folder = plugin_folder(root, options.plugin_id)
    with Claim(root / PLUGINS_FOLDER, options.plugin_id):
        return _update(options, root, folder, progress)


def _update(
    options: UpdateOptions, root: Path, folder: Path, progress: Progress | None
) -> UpdateResult:
    if options.branch is not None:
        gitops.check_branch_commit(root, options.branch)
    if changed := gitops.changed_files(root, folder):
        raise AgentImportError(
            f"{folder.relative_to(root)} has uncommitted changes ({_first(changed)}): commit or "
            "stash them first; the update merges into the committed plugin"
        )
    recorded = read_answers(folder)
    template = find_template(root)
    step = Steps(progress)

    def result(
        status: Status, changes: Changes, files: list[str] | None = None, **done: Any
    ) -> UpdateResult:
        if status == "up_to_date":
            message = changes.up_to_date_message(options.plugin_id)
        else:
            message = changes.message(options.plugin_id)
        return UpdateResult(
            plugin_id=options.plugin_id,
            folder=str(folder),
            status=status,
            changes=changes,
            message=message,
            files=files or [],
            steps=step.done,
            **done,
        )

    with Workspace() as workspace:
        if options.template_only:
            plan = _template_plan(recorded, template, root)
        else:
            plan = _agent_plan(options, recorded, template, root, workspace, step)
        if plan.up_to_date:
            return result("up_to_date", plan.changes)
        with gitops.worktree(root, folder) as tree:
            warm.start()  # the check interpreter imports its libraries while Copier renders
            staged = tree / folder.relative_to(root)
            with step("render") as note:
                conflicts, hand_edited = _apply(plan, tree, staged, template)
                files = gitops.changed_files(tree, staged)
                note.append(f"{len(files)} files changed")
                if conflicts:
                    note.append(f"{len(conflicts)} conflicts")
                if template.dirty:
                    note.append(f"template has uncommitted changes; used {template.commit[:12]}")
            changes = plan.changes.model_copy(update={"screens_hand_edited": hand_edited})
            if conflicts:  # written with their markers, for the reviewer to resolve
                with step("write") as note:
                    replace_with(folder, staged)
                    gitops.record_unmerged(root, gitops.unmerged(tree, staged))
                    note.append(f"{folder.relative_to(root)}, with {len(conflicts)} conflicts")
                return result("conflicts", changes, files=files, conflicts=conflicts)
            if invalid := invalid_screens(staged):
                return result("invalid", changes, files=files, conflicts=invalid)
            environment = read_agent(staged).environment
            relock = bool(changes.requirements_added or changes.requirements_removed)
            staging = Staged(
                root=root,
                folder=staged,
                environment=environment,
                dependencies=check_requirements_file(staged / REQUIREMENTS_FILE),
                local_packages=plan.local_packages,
                relock=relock,
            )
            # The environment is the import's decision, reviewed: a conflict refuses, as with
            # --shared-env, rather than deciding it again.
            asked = Asked(approve_deps=options.approve_deps, shared_env=True)
            outcome = validate_staged(job.dependencies(staging, step, asked), step, asked)
            report = outcome.report
            files = gitops.changed_files(tree, staged)  # a lock or hinted requirement written
            if report.ok:
                with step("write") as note:
                    replace_with(folder, staged)
                    note.append(str(folder.relative_to(root)))
    commit = None
    if report.ok and options.branch is not None and files:
        commit = job.commit(root, options.branch, folder, changes.message(options.plugin_id), step)
    return result(
        "updated" if report.ok else "invalid",
        changes,
        files=files,
        validation=report,
        commit=commit,
        branch=options.branch if commit else None,
    )


class _Plan(BaseModel):
    """What to render: Copier's data (None: the recorded answers), the screens and agent.json
    (as last generated, and new), the new src/."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    data: dict[str, Any] | None
    base_screens: dict[str, dict[str, Any]] = Field(default_factory=dict)
    new_screens: dict[str, dict[str, Any]] = Field(default_factory=dict)
    base_agent: dict[str, Any] | None = None
    new_agent: AgentSpec | None = None
    vendored: Path | None = None
    local_packages: list[str] = Field(
        default_factory=list, description="Never fetched by name when the lock is written again."
    )
    changes: Changes
    up_to_date: bool


def _template_plan(recorded: dict[str, Any], template: Template, root: Path) -> _Plan:
    """Re-render with the recorded answers: Copier merges every file it renders (the screens
    are the generator's, left as they are)."""
    previous = _template_commit(recorded, root, template)
    commit = str(recorded.get("source_commit", ""))
    changes = Changes(
        source=source_label(str(recorded.get("source_url", "")), recorded.get("source_ref")),
        commits=(commit, commit),
        template=(previous, template.commit),
        screens_kept=sorted(recorded.get("screens") or {}),
    )
    return _Plan(data=None, changes=changes, up_to_date=previous == template.commit)


def _agent_plan(
    options: UpdateOptions,
    recorded: dict[str, Any],
    template: Template,
    root: Path,
    workspace: Workspace,
    step: Steps,
) -> _Plan:
    """Fetch, inspect and (if the agent's shape changed) design: the new answers, agent.json
    and src/. Which graph of which config is the plugin's says its agent.json, reviewed."""
    old = _recorded_answers(recorded)
    folder = root / PLUGINS_FOLDER / old.plugin_id
    agent = read_agent(folder)
    base_agent = generated_file(root, old.agent_file)
    with step("fetch") as note:
        fetched = fetch(
            _location(old.source_url, root),
            workspace=workspace,
            ref=options.ref or old.source_ref or None,
            limits=options.limits,
        )
        # The location as recorded (a relative path stays relative), not where it was found.
        source = fetched.model_copy(update={"url": old.source_url})
        note.append(f"{old.source_url} @ {short(source.commit or '')}")
    with step("inspect") as note:
        inspection = inspect_source(source, config=agent.config_file, graph=agent.graph_id)
        note.append(inspected(inspection))
    graph = select_graph(inspection, agent.graph_id)
    shape = shape_changes(old.agent_shape, agent_shape(graph, inspection.config_file))
    base = generated_screens(root, old.screens)
    with step("design") as note:
        if shape:
            design = design_screens(
                inspection,
                plugin_id=old.plugin_id,
                graph_id=agent.graph_id,
                design_file=options.design_file,
                options=options.design_options,
            )
            note.append(designed(design))
        else:
            design = _recorded_design(old, _as_generated(base_agent) or agent, base, folder)
            note.append("state fields and nodes unchanged: screens kept")
    plugin = _new_plugin(old, agent, design, inspection)
    new = plugin.answers
    new_screens = screens_of(design) if shape else base
    if not shape:  # the recorded design: its screens are the ones generated last time
        new = new.model_copy(update={"screens": old.screens})
    previous = _template_commit(recorded, root, template)
    # agent.json as generated is the same when its blob id is: the answers' equality covers it.
    up_to_date = new == old and previous == template.commit and not source.dirty
    vendored = None
    if not up_to_date:  # copying the agent is the costly part of a no-op `update --all`
        vendored = workspace.folder("src-") / SOURCE_FOLDER
        vendor(source, vendored, max_bytes=options.limits.max_bytes)
        write_proposed(inspection, vendored, kept=folder / SOURCE_FOLDER)
    redesigned = sorted(n for n in new.screens if new.screens[n] != old.screens.get(n))
    changes = Changes(
        source=source_label(new.source_url, new.source_ref),
        commits=(old.source_commit, new.source_commit),
        template=(previous, template.commit),
        **shape,
        requirements_added=[r for r in new.requirements if r not in old.requirements],
        requirements_removed=[r for r in old.requirements if r not in new.requirements],
        screens_redesigned=redesigned,
        screens_kept=sorted(set(new.screens) - set(redesigned)),
    )
    return _Plan(
        data=new.model_dump(mode="json"),
        base_screens=base,
        new_screens=new_screens,
        base_agent=base_agent,
        new_agent=plugin.agent,
        vendored=vendored,
        local_packages=inspection.local_packages,
        changes=changes,
        up_to_date=up_to_date,
    )


def _apply(
    plan: _Plan, root: Path, folder: Path, template: Template
) -> tuple[list[ValidationIssue], list[str]]:
    """Render the plan into ``folder``: the conflicts left in it, file by file, and the screens
    whose hand edits were merged. Copier never touches the screens or agent.json: the generator
    writes them."""
    screens: list[MergedFile] = []
    merges: list[MergedFile] = []
    if plan.new_agent is not None:  # before Copier writes: an unreadable file stops it untouched
        screens = merge_screen_files(root, folder, plan.base_screens, plan.new_screens)
        merges = [*screens, merge_agent(root, folder, plan.base_agent, plan.new_agent)]
    copier_template.update(folder, template=template, data=plan.data)
    conflicts = [
        ValidationIssue(file=path, message="conflicting lines: resolve the <<<<<<< markers")
        for path in gitops.conflicted_files(root, folder)
    ]
    for merge in merges:
        conflicts += merge.write(root)
    if plan.vendored is not None:
        shutil.rmtree(folder / SOURCE_FOLDER, ignore_errors=True)
        shutil.move(plan.vendored, folder / SOURCE_FOLDER)
    return conflicts, [merge.path.stem for merge in screens if merge.hand_edited]


def _recorded_answers(recorded: dict[str, Any]) -> PluginAnswers:
    try:
        return PluginAnswers.model_validate(
            {key: value for key, value in recorded.items() if not key.startswith("_")}
        )
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"])
        raise AgentImportError(
            f"{ANSWERS_FILE} does not hold this template's answers ({where}: {error['msg']}); "
            "run `agent-import update --template-only` first"
        ) from None


def _recorded_design(
    old: PluginAnswers, agent: AgentSpec, base: dict[str, Screen], folder: Path
) -> Design:
    """The design the plugin was last rendered from: its answers, its agent.json and the
    screens as generated (a file git no longer has is taken from the folder)."""
    screens = {
        name: base[name] if name in base else _current_screen(folder, name) for name in old.screens
    }
    try:
        return Design.model_validate(
            {
                **screens,
                "plugin_id": old.plugin_id,
                "graph_id": agent.graph_id,
                "title": old.title,
                "description": old.description,
                "input_field": agent.input_field,
                "output_field": agent.output_field,
                "initial_domain_state": agent.initial_domain_state,
                "reasoning": "Kept from the last import: the agent's state and nodes are the same.",
                "provenance": Provenance.model_validate(old.design_provenance),
            }
        )
    except ValidationError as exc:
        raise AgentImportError(
            f"{ANSWERS_FILE} does not record a complete design ({exc.errors()[0]['msg']})"
        ) from None


def _as_generated(agent: dict[str, Any] | None) -> AgentSpec | None:
    """agent.json as last generated, if git has it and it still reads as one."""
    try:
        return None if agent is None else AgentSpec.model_validate(agent)
    except ValidationError:
        return None


def _new_plugin(
    old: PluginAnswers, agent: AgentSpec, design: Design, inspection: Inspection
) -> PluginData:
    """The answers and agent.json for the new inspection, with the recorded strategy and the
    environment the plugin's agent.json has (an import's decision, reviewed)."""
    return plugin_data(
        design,
        inspection,
        strategy=check_strategy(old.strategy, inspection, agent.graph_id),
        requirements=check_dependencies(inspection.dependencies).lines(),
        environment=agent.environment,
    )


def _location(url: str, root: Path) -> str:
    """Where to fetch from: a URL as it is, a relative folder from the repository root."""
    if is_git_url(url) or Path(url).is_absolute():
        return url
    return str(root / url)


def _template_commit(recorded: dict[str, Any], root: Path, template: Template) -> str:
    """The commit here whose template the plugin was last rendered from (Copier records the
    template repository's commit, abbreviated)."""
    commit = str(recorded.get("_commit", ""))
    return replayed_from(root, commit, current=template.commit) or commit


def _current_screen(folder: Path, name: str) -> Screen:
    path = folder / SCREENS_FOLDER / f"{name}.json"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise AgentImportError(f"cannot read the screen: {exc.strerror}", file=str(path)) from None
    return parse_screen(text, str(path))


def _first(files: list[str]) -> str:
    more = f" and {len(files) - 1} more" if len(files) > 1 else ""
    return files[0] + more
