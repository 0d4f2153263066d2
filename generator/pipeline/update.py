"""``update_plugin``: bring an imported plugin up to date, as a diff a reviewer reads in a PR.

check → fetch → inspect → design → render → validate → commit:

* **check**: the plugin exists, was imported (``.copier-answers.yml``), and its folder is
  committed, since the update merges into what git has and restores it if anything fails;
* **fetch** the source recorded in the answers at the new ref (default: the recorded one, that
  is the branch it was imported from) and **inspect** it again;
* **design** again only when the agent's state fields or nodes changed; otherwise the recorded
  design is kept, so an upstream bug fix never reshuffles reviewed screens;
* **render**: ``copier update`` with the new answers (a 3-way merge that keeps hand edits in
  every file the template renders); the screens, which the generator writes, are merged by
  component id (``screen_merge``) against the ones last generated, which git keeps by the blob
  ids the answers record (``screen_files``); the vendored ``src/`` is replaced;
* **validate** the result offline, as an import does;
* **commit** (``branch``): one commit of the plugin folder, whose message summarises the change.

A conflict (Copier's conflicting lines, or the same property of the same component changed on
both sides) leaves the markers in the working tree, is reported file by file, and nothing is
committed. ``template_only`` skips fetch, inspect and design: it is ``copier update --defaults``
with the same checks, what a template improvement needs.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import warnings
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from generator import gitops
from generator.design import Design, DesignOptions, Provenance
from generator.design.facts import select_graph
from generator.errors import AgentImportError
from generator.fetch import FetchLimits, Workspace, fetch, is_git_url
from generator.inspect import inspect_source
from generator.models import Inspection
from generator.pipeline.importer import check_strategy, design_screens
from generator.pipeline.steps import Progress, Step, Steps, designed, inspected
from generator.render.screen_files import Screen, generated_screens, screens_of
from generator.render.screens import ScreenMerge, format_screen, merge_screen
from generator.render.template import (
    PluginAnswers,
    Template,
    agent_shape,
    find_template,
    plugin_answers,
    read_answers,
)
from generator.render.template_repo import copier_source, replayed_from
from generator.render.vendor import vendor
from generator.repository import plugin_folder
from generator.validate.environment import check_dependencies, env_python
from generator.validate.plugin import Report, validate
from runtime.a2ui import InvalidScreenError, load_screens
from runtime.a2ui.validate import ValidationIssue
from runtime.layout import ANSWERS_FILE, PLUGINS_FOLDER, SCREENS_FOLDER, SOURCE_FOLDER

#: What ``copier update`` leaves to ``screen_merge`` (relative to the plugin folder).
SCREEN_FILES = f"{SCREENS_FOLDER}/*.json"

Status = Literal["updated", "up_to_date", "conflicts", "invalid"]


class UpdateOptions(BaseModel):
    """What ``agent-import update`` was asked to do for one plugin."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    plugin_id: str
    ref: str | None = Field(default=None, description="None: the ref recorded at import.")
    template_only: bool = Field(default=False, description="Re-render; leave the agent as is.")
    branch: str | None = Field(default=None, description="Commit the update on this branch.")
    design_file: Path | None = None
    design_options: DesignOptions = DesignOptions()
    limits: FetchLimits = FetchLimits()


class Changes(BaseModel):
    """What an update changes, as the commit message and the pull request describe it."""

    model_config = ConfigDict(extra="forbid")

    source: str
    commits: tuple[str, str] = Field(description="The recorded and the new upstream commit.")
    template: tuple[str, str] = Field(description="The recorded and the new template commit.")
    fields_added: list[str] = Field(default_factory=list)
    fields_removed: list[str] = Field(default_factory=list)
    fields_changed: list[str] = Field(default_factory=list, description="Type or reducer.")
    nodes_added: list[str] = Field(default_factory=list)
    nodes_removed: list[str] = Field(default_factory=list)
    requirements_added: list[str] = Field(default_factory=list)
    requirements_removed: list[str] = Field(default_factory=list)
    screens_redesigned: list[str] = Field(default_factory=list)
    screens_kept: list[str] = Field(default_factory=list)
    screens_hand_edited: list[str] = Field(
        default_factory=list, description="Screens whose edits in the repository were merged."
    )

    @property
    def agent_changed(self) -> bool:
        """The state fields or nodes changed: the screens were designed again."""
        shape = (self.fields_added, self.fields_removed, self.fields_changed)
        return any(shape) or bool(self.nodes_added or self.nodes_removed)

    def message(self, plugin_id: str) -> str:
        """The commit message: a subject line, then one line per kind of change."""
        upstream, template = _range(self.commits), _range(self.template)
        if self.commits[0] != self.commits[1]:
            subject = f"Update plugin {plugin_id}: upstream {upstream}"
        elif self.template[0] != self.template[1]:
            subject = f"Update plugin {plugin_id}: template {template}"
        else:
            subject = f"Update plugin {plugin_id}"
        body = [
            f"Source: {self.source}",
            f"Upstream commits: {upstream}",
            f"Template: {template}",
            _listed("State fields added", self.fields_added),
            _listed("State fields removed", self.fields_removed),
            _listed("State fields changed", self.fields_changed),
            _listed("Nodes added", self.nodes_added),
            _listed("Nodes removed", self.nodes_removed),
            "" if self.agent_changed else "State fields and nodes: unchanged",
            _listed("Dependencies added", self.requirements_added),
            _listed("Dependencies removed", self.requirements_removed),
            ""
            if self.requirements_added or self.requirements_removed
            else "Dependencies: unchanged",
            _listed("Screens re-designed", self.screens_redesigned),
            _listed(
                "Screens the new design left as they were"
                if self.agent_changed
                else "Screens kept",
                self.screens_kept,
            ),
            _listed("Hand edits merged in screens", self.screens_hand_edited),
        ]
        return "\n".join([subject, "", *(line for line in body if line)]) + "\n"


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

    A failure before Copier runs leaves the folder untouched; one while it writes restores the
    folder from git. Conflicts and a failed validation are results, not errors: the working tree
    shows them to the reviewer, and nothing is committed.
    """
    root = root.resolve()
    folder = plugin_folder(root, options.plugin_id)
    if options.branch is not None:
        gitops.check_new_branch(root, options.branch)
    if changed := gitops.changed_files(root, folder):
        raise AgentImportError(
            f"{folder.relative_to(root)} has uncommitted changes ({_first(changed)}): commit or "
            "stash them first; the update merges into the committed plugin"
        )
    recorded = read_answers(folder)
    template = find_template(root)
    step = Steps(progress)
    with Workspace() as workspace:
        if options.template_only:
            plan = _template_plan(recorded, template, root)
        else:
            plan = _agent_plan(options, recorded, template, root, workspace, step)
        if plan.up_to_date:
            return _result(options, folder, "up_to_date", plan, [], step)
        with step("render") as note:
            try:
                conflicts = _apply(plan, root, folder, template)
            except BaseException:
                gitops.restore(root, folder)
                raise
            files = gitops.changed_files(root, folder)
            note.append(f"{len(files)} files changed")
            if conflicts:
                note.append(f"{len(conflicts)} conflicts")
            if template.dirty:
                note.append(f"template has uncommitted changes; used {template.commit[:12]}")
    if conflicts:
        return _result(options, folder, "conflicts", plan, files, step, conflicts)
    if invalid := _invalid_screens(folder):
        return _result(options, folder, "invalid", plan, files, step, invalid)
    with step("validate") as note:
        report = validate(folder, python=env_python(root, options.plugin_id))
        note.append("passed" if report.ok else "FAILED")
    result = _result(options, folder, "updated" if report.ok else "invalid", plan, files, step)
    result.validation = report
    if report.ok and options.branch is not None and files:
        with step("commit") as note:
            result.commit = gitops.commit_on_branch(root, options.branch, folder, result.message)
            result.branch = options.branch
            note.append(f"{result.commit[:12]} on {options.branch}")
    return result


class _Plan(BaseModel):
    """What to render: Copier's data (None: the recorded answers), the screens, the new src/."""

    model_config = ConfigDict(extra="forbid")

    data: dict[str, Any] | None
    base_screens: dict[str, dict[str, Any]] = Field(default_factory=dict)
    new_screens: dict[str, dict[str, Any]] = Field(default_factory=dict)
    vendored: Path | None = None
    changes: Changes
    up_to_date: bool


def _template_plan(recorded: dict[str, Any], template: Template, root: Path) -> _Plan:
    """Re-render with the recorded answers: Copier merges every file it renders (the screens
    are the generator's, left as they are)."""
    previous = _template_commit(recorded, root, template)
    commit = str(recorded.get("source_commit", ""))
    changes = Changes(
        source=_source_label(str(recorded.get("source_url", "")), recorded.get("source_ref")),
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
    """Fetch, inspect and (if the agent's shape changed) design: the new answers and src/."""
    old = _recorded_answers(recorded)
    with step("fetch") as note:
        source = fetch(
            _location(old.source_url, root),
            workspace=workspace,
            ref=options.ref or old.source_ref or None,
            limits=options.limits,
        )
        note.append(f"{old.source_url} @ {_short(source.commit or '') or 'no commit'}")
    with step("inspect") as note:
        inspection = inspect_source(source, config=old.config_file, graph=old.graph_id)
        note.append(inspected(inspection))
    graph = select_graph(inspection, old.graph_id)
    shape = _shape_changes(old.agent_shape, agent_shape(graph))
    base = generated_screens(root, old.screens)
    with step("design") as note:
        if shape:
            design = design_screens(
                inspection,
                plugin_id=old.plugin_id,
                graph_id=old.graph_id,
                design_file=options.design_file,
                options=options.design_options,
            )
            note.append(designed(design))
        else:
            design = _recorded_design(old, base, root / PLUGINS_FOLDER / old.plugin_id)
            note.append("state fields and nodes unchanged: screens kept")
    new = _new_answers(old, design, inspection)
    new_screens = screens_of(design) if shape else base
    if not shape:  # the recorded design: its screens are the ones generated last time
        new = new.model_copy(update={"screens": old.screens})
    previous = _template_commit(recorded, root, template)
    up_to_date = new == old and previous == template.commit and not source.dirty
    vendored = None
    if not up_to_date:  # copying the agent is the costly part of a no-op `update --all`
        vendored = workspace.folder("src-") / SOURCE_FOLDER
        vendor(source, vendored, max_bytes=options.limits.max_bytes)
    redesigned = sorted(n for n in new.screens if new.screens[n] != old.screens.get(n))
    changes = Changes(
        source=_source_label(new.source_url, new.source_ref),
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
        vendored=vendored,
        changes=changes,
        up_to_date=up_to_date,
    )


def _apply(plan: _Plan, root: Path, folder: Path, template: Template) -> list[ValidationIssue]:
    """Render the plan into ``folder``; the conflicts left in it, file by file."""
    merges = _merge_screens(plan, root, folder)
    _copier_update(root, folder, template, data=plan.data)
    conflicts = [
        ValidationIssue(file=path, message="conflicting lines: resolve the <<<<<<< markers")
        for path in gitops.conflicted_files(root, folder)
    ]
    for merge in merges:
        conflicts += merge.write(root)
    if plan.vendored is not None:
        shutil.rmtree(folder / SOURCE_FOLDER, ignore_errors=True)
        shutil.move(plan.vendored, folder / SOURCE_FOLDER)
    return conflicts


class _ScreenFile(BaseModel):
    """One screen file's three versions and their merge, written after Copier has run."""

    model_config = ConfigDict(extra="forbid")

    path: Path
    base: dict[str, Any] | None
    ours: str | None = Field(description="The file's text in the repository.")
    theirs: dict[str, Any] | None
    merge: ScreenMerge

    def write(self, root: Path) -> list[ValidationIssue]:
        """Write the merge where it differs from the file (formatting alone is left alone)."""
        text = self.merge.text
        if text is None:
            self.path.unlink(missing_ok=True)
        elif self.merge.conflicts or self.ours is None or json.loads(self.ours) != json.loads(text):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(text, encoding="utf-8")
        if self.merge.conflicts:
            gitops.mark_conflicted(
                root,
                self.path,
                base=_text(self.base),
                ours=self.ours or "",
                theirs=_text(self.theirs),
            )
        return self.merge.conflicts


def _merge_screens(plan: _Plan, root: Path, folder: Path) -> list[_ScreenFile]:
    """Merge every generated screen (none for a template-only update: Copier merges them).

    Runs before Copier writes anything, so an unreadable screen stops the update untouched.
    """
    if plan.data is None:
        return []
    merges: list[_ScreenFile] = []
    for name in sorted({*plan.base_screens, *plan.new_screens}):
        path = folder / SCREENS_FOLDER / f"{name}.json"
        file = path.relative_to(root).as_posix()
        ours = path.read_text(encoding="utf-8") if path.is_file() else None
        ours_screen = _parse_screen(ours, file) if ours is not None else None
        base, theirs = plan.base_screens.get(name), plan.new_screens.get(name)
        if ours_screen != base and theirs != base:
            plan.changes.screens_hand_edited.append(name)
        merge = merge_screen(base, ours_screen, theirs, file=file)
        merges.append(_ScreenFile(path=path, base=base, ours=ours, theirs=theirs, merge=merge))
    return merges


def _copier_update(
    root: Path,
    folder: Path,
    template: Template,
    *,
    data: dict[str, Any] | None,
) -> None:
    """``copier update`` of ``folder`` to ``template``, from the root as Copier recorded it.

    The screen files are excluded: the generator writes them (``screen_files``) and merges them
    (``screen_merge``); Copier neither renders, merges nor deletes them.
    """
    from copier import run_update  # imported here: it costs most of a second
    from copier.errors import UserMessageError

    # The template's own repository, recorded in the answers as _src_path (template_repo.py).
    source = copier_source(root, template.commit)
    try:
        with contextlib.chdir(root), warnings.catch_warnings():
            # Copier warns about a dirty template; find_template reports it in one line.
            warnings.simplefilter("ignore")
            run_update(
                str(folder.relative_to(root)),
                data=data,
                vcs_ref=source.commit,
                defaults=True,
                overwrite=True,
                conflict="inline",
                quiet=True,
                exclude=[SCREEN_FILES],
            )
    except UserMessageError as exc:
        raise AgentImportError(f"copier update refused: {exc}") from None
    except ValueError as exc:  # a validator of copier.yml refused an answer
        raise AgentImportError(f"the plugin template refused an answer: {exc}") from None


def _invalid_screens(folder: Path) -> list[ValidationIssue]:
    """The issues of the first invalid screen file, if any (a merge can leave a dangling id)."""
    try:
        load_screens(folder / SCREENS_FOLDER, plugin_id=folder.name)
    except InvalidScreenError as exc:
        return exc.issues
    return []


def _result(
    options: UpdateOptions,
    folder: Path,
    status: Status,
    plan: _Plan,
    files: list[str],
    step: Steps,
    conflicts: list[ValidationIssue] | None = None,
) -> UpdateResult:
    if status == "up_to_date":
        message = (
            f"{options.plugin_id} is up to date: upstream {_short(plan.changes.commits[1])}, "
            f"template {_short(plan.changes.template[1])}\n"
        )
    else:
        message = plan.changes.message(options.plugin_id)
    return UpdateResult(
        plugin_id=options.plugin_id,
        folder=str(folder),
        status=status,
        changes=plan.changes,
        message=message,
        files=files,
        conflicts=conflicts or [],
        steps=step.done,
    )


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


def _recorded_design(old: PluginAnswers, base: dict[str, Screen], folder: Path) -> Design:
    """The design the plugin was last rendered from: its answers, and the screens as generated
    (a screen git no longer has is taken from the folder)."""
    screens = {
        name: base[name] if name in base else _current_screen(folder, name) for name in old.screens
    }
    try:
        return Design.model_validate(
            {
                **screens,
                "plugin_id": old.plugin_id,
                "graph_id": old.graph_id,
                "title": old.title,
                "description": old.description,
                "input_field": old.input_field,
                "output_field": old.output_field,
                "initial_domain_state": old.initial_domain_state,
                "reasoning": "Kept from the last import: the agent's state and nodes are the same.",
                "provenance": Provenance.model_validate(old.design_provenance),
            }
        )
    except ValidationError as exc:
        raise AgentImportError(
            f"{ANSWERS_FILE} does not record a complete design ({exc.errors()[0]['msg']})"
        ) from None


def _new_answers(old: PluginAnswers, design: Design, inspection: Inspection) -> PluginAnswers:
    """The answers for the new inspection, with the recorded strategy and source location."""
    answers = plugin_answers(
        design,
        inspection,
        strategy=check_strategy(old.strategy, inspection, old.graph_id),
        requirements=check_dependencies(inspection.dependencies).lines(),
    )
    # The location as recorded (a relative path stays relative), not where it was checked out.
    return answers.model_copy(update={"source_url": old.source_url})


def _shape_changes(old: dict[str, Any], new: dict[str, Any]) -> dict[str, list[str]]:
    """State fields and nodes added, removed or changed; empty when the design still fits."""

    def fields(shape: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
        return {f["name"]: (f.get("type"), f.get("reducer")) for f in shape.get("state") or []}

    def nodes(shape: dict[str, Any]) -> list[str]:
        return [n["name"] for n in shape.get("nodes") or []]

    old_fields, new_fields = fields(old), fields(new)
    changes = {
        "fields_added": [name for name in new_fields if name not in old_fields],
        "fields_removed": [name for name in old_fields if name not in new_fields],
        "fields_changed": [
            name
            for name in new_fields
            if name in old_fields and new_fields[name] != old_fields[name]
        ],
        "nodes_added": [name for name in nodes(new) if name not in nodes(old)],
        "nodes_removed": [name for name in nodes(old) if name not in nodes(new)],
    }
    return {key: names for key, names in changes.items() if names}


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
    return _parse_screen(text, str(path))


def _parse_screen(text: str, file: str) -> dict[str, Any]:
    try:
        screen = json.loads(text)
    except json.JSONDecodeError as exc:
        raise AgentImportError(
            f"not valid JSON ({exc.msg}): resolve it (a conflict left unresolved?) first",
            file=file,
            line=exc.lineno,
        ) from None
    if not isinstance(screen, dict):
        raise AgentImportError("a screen file holds a JSON object", file=file)
    return screen


def _source_label(url: str, ref: object) -> str:
    return f"{url} (ref {ref})" if ref else url


def _text(screen: dict[str, Any] | None) -> str:
    return "" if screen is None else format_screen(screen)


def _short(commit: str) -> str:
    return commit[:12] or "none"


def _range(commits: tuple[str, str]) -> str:
    old, new = (_short(commit) for commit in commits)
    return f"{old}..{new}" if old != new else f"{new} (unchanged)"


def _listed(label: str, names: list[str]) -> str:
    return f"{label}: {', '.join(names)}" if names else ""


def _first(files: list[str]) -> str:
    more = f" and {len(files) - 1} more" if len(files) > 1 else ""
    return files[0] + more
