"""Render: a ``Design`` plus what was inspected → one plugin folder, through the Copier template.

The template is this repository's own (``copier.yml`` at the root, ``_subdirectory:
copier-template``) at the last commit that touched it, rendered from its own small repository
(``template_repo``), from the repository root: that is what gets recorded in the plugin's
``.copier-answers.yml``, so a plain ``copier update runtime/plugins/<id> --defaults`` from the root
works later. ``PluginAnswers`` is exactly the template's questions; every answer is data (JSON
types), never code. ``agent.json`` and the screens are the generator's own files, written after
Copier and recorded in the answers by git blob id only (``agent_file.py``, ``screen_files.py``),
so no value is recorded twice.

``render`` writes into a folder the caller chose (a staging folder: see ``staging.py``); it never
touches ``runtime/plugins/`` itself.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import warnings
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field

from generator import gitops
from generator.design import Design
from generator.design.facts import select_graph
from generator.errors import AgentImportError
from generator.models import Graph, Inspection
from generator.render.agent_file import agent_file_id, agent_spec, write_agent
from generator.render.screen_files import SCREEN_FILES, screen_ids, screens_of, write_screens
from generator.render.screens import Screen
from generator.render.settings import plugin_settings
from generator.render.template_repo import (
    TEMPLATE_CONFIG,
    TEMPLATE_FOLDER,
    TemplateSource,
    copier_source,
)
from runtime.contract.agent import AgentSpec, EnvironmentSpec
from runtime.contract.layout import AGENT_FILE, ANSWERS_FILE, Strategy

#: What ``copier update`` leaves to the generator (relative to the plugin folder).
GENERATED_FILES = [AGENT_FILE, SCREEN_FILES]


class Template(BaseModel):
    """The plugin template of one repository, pinned to a commit."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    root: Path = Field(description="The repository root, holding copier.yml.")
    commit: str = Field(description="Last commit that touched copier.yml or copier-template/.")
    dirty: bool = Field(default=False, description="The template has uncommitted changes.")


class PluginAnswers(BaseModel):
    """The answers to ``copier.yml``'s questions: what Copier renders a plugin folder from."""

    model_config = ConfigDict(extra="forbid")

    plugin_id: str
    title: str
    description: str
    strategy: Strategy
    source_url: str
    source_ref: str = ""
    source_commit: str = ""
    source_dirty: bool = False
    export_kind: str
    optional_env: list[str] = Field(default_factory=list)
    unset_settings: list[str] = Field(default_factory=list)
    agent_file: str = Field(description="agent.json as generated: its git blob id.")
    screens: dict[str, str] = Field(
        description="The screens as generated: each file's git blob id (screen_files.py)."
    )
    requirements: list[str]
    agent_shape: dict[str, Any]
    inspection_digest: str
    design_provenance: dict[str, Any]


class PluginData(BaseModel):
    """What a plugin folder is made from besides its screens: Copier's answers, and
    ``agent.json`` (whose blob id the answers record)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    answers: PluginAnswers
    agent: AgentSpec
    proposed_settings: list[str] = Field(
        default_factory=list, description="Values the import proposed in agent.json, for review."
    )
    left_for_review: list[str] = Field(
        default_factory=list, description="Fields the agent needs that only a reviewer can set."
    )


class RenderResult(BaseModel):
    """What ``render`` wrote."""

    model_config = ConfigDict(extra="forbid")

    folder: Path
    files: list[str] = Field(description="Rendered files, relative to the plugin folder.")
    template_commit: str


def find_template(root: Path) -> Template:
    """The template of the repository at ``root``, pinned to its last commit.

    Copier renders the committed template only (it clones the repository at that commit), so a
    template that was never committed is an error, and uncommitted edits are reported as dirty.
    """
    root = root.resolve()
    if not (root / TEMPLATE_CONFIG).is_file() or not (root / TEMPLATE_FOLDER).is_dir():
        raise AgentImportError(f"{root} has no {TEMPLATE_CONFIG} and {TEMPLATE_FOLDER}/")
    paths = ["--", TEMPLATE_CONFIG, TEMPLATE_FOLDER]
    commit = gitops.query(root, "log", "-1", "--format=%H", *paths)
    if not commit:
        raise AgentImportError(
            f"{TEMPLATE_CONFIG} and {TEMPLATE_FOLDER}/ are not committed in {root}: "
            "Copier renders the template from git, so commit it first"
        )
    return Template(
        root=root, commit=commit, dirty=bool(gitops.query(root, "status", "--porcelain", *paths))
    )


def plugin_data(
    design: Design,
    inspection: Inspection,
    *,
    strategy: Strategy,
    requirements: list[str],
    environment: EnvironmentSpec | None = None,
) -> PluginData:
    """The template's answers and ``agent.json`` for ``design`` of the graph ``design.graph_id``,
    whose agent runs in ``environment`` (default: the runtime's own)."""
    graph = select_graph(inspection, design.graph_id)
    source = inspection.source
    settings = plugin_settings(
        inspection, graph, plugin_id=design.plugin_id, input_field=design.input_field
    )
    agent = agent_spec(design, inspection, graph, settings, environment)
    answers = PluginAnswers(
        plugin_id=design.plugin_id,
        title=" ".join(design.title.split()),
        description=" ".join(design.description.split()),
        strategy=strategy,
        source_url=source.url,
        source_ref=source.ref or "",
        source_commit=source.commit or "",
        source_dirty=source.dirty,
        export_kind=graph.export_kind,
        optional_env=settings.optional_env,
        unset_settings=[unset.how for unset in settings.unset],
        agent_file=agent_file_id(agent),
        screens=screen_ids(screens_of(design)),
        requirements=requirements,
        agent_shape=agent_shape(graph, inspection.config_file),
        inspection_digest=inspection_digest(inspection),
        design_provenance=design.provenance.model_dump(mode="json", exclude_defaults=True),
    )
    return PluginData(
        answers=answers,
        agent=agent,
        proposed_settings=settings.proposed,
        left_for_review=[unset.name for unset in settings.unset],
    )


def render(
    plugin: PluginData, *, screens: dict[str, Screen], template: Template, dest: Path
) -> RenderResult:
    """Render the plugin folder into ``dest`` (which must not exist yet) with Copier, and write
    its ``agent.json`` and ``screens`` (the ones the answers record)."""
    from copier import run_copy  # imported here: it costs most of a second

    if dest.exists():
        raise AgentImportError(f"{dest} already exists")
    source = copier_source(template.root, template.commit)
    # Copier records src_path as given and resolves it against the working directory later, so
    # it runs from the repository root, as `copier update` will.
    with _copier(template.root):
        run_copy(
            source.src_path,
            str(dest),
            data=plugin.answers.model_dump(mode="json"),
            vcs_ref=source.commit,
            defaults=True,
            quiet=True,
        )
    write_agent(dest, plugin.agent)
    write_screens(dest, screens)
    _check_answers_file(dest, template.root, source)
    files = sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file())
    return RenderResult(folder=dest, files=files, template_commit=template.commit)


def update(folder: Path, *, template: Template, data: dict[str, Any] | None) -> None:
    """``copier update`` of a plugin folder (in the repository or a worktree of it) to
    ``template``: a 3-way merge that keeps hand edits, conflicts left inline. ``data`` None
    re-renders with the recorded answers; the generator's own files (``GENERATED_FILES``) are
    neither rendered nor merged."""
    from copier import run_update  # imported here: it costs most of a second

    # Copier takes the template from the _src_path the answers record (template_repo.py).
    source = copier_source(template.root, template.commit)
    with _copier(template.root), warnings.catch_warnings():
        # Copier warns about a dirty template; find_template reports it in one line.
        warnings.simplefilter("ignore")
        run_update(
            str(folder),
            data=data,
            vcs_ref=source.commit,
            defaults=True,
            overwrite=True,
            conflict="inline",
            quiet=True,
            exclude=GENERATED_FILES,
        )


@contextlib.contextmanager
def _copier(root: Path) -> Iterator[None]:
    """Run Copier from the repository root, its git with ``gitops.copier_env`` (Copier starts
    git through plumbum, whose environment is its own copy), its refusals as one-line
    ``AgentImportError``s."""
    from copier.errors import UserMessageError
    from plumbum import local

    try:
        with contextlib.chdir(root), local.env(**gitops.copier_env(local.env.getdict())):
            yield
    except UserMessageError as exc:
        raise AgentImportError(f"copier refused: {exc}") from None
    except ValueError as exc:  # a validator of copier.yml refused an answer
        raise AgentImportError(f"the plugin template refused an answer: {exc}") from None


def agent_shape(graph: Graph, config_file: str) -> dict[str, Any]:
    """What the README and PORTING.md list of the agent: its file (relative to ``src/``; the
    graph's own is relative to ``config_file``'s folder), state fields, nodes, edges."""
    state = graph.state
    return {
        "graph_file": (PurePosixPath(config_file).parent / graph.file).as_posix(),
        "strategy_reason": graph.strategy_reason,
        "state": [
            field.model_dump(include={"name", "type", "reducer"}, exclude_none=True)
            for field in (state.fields if state else [])
        ],
        "nodes": [
            node.model_dump(include={"name", "target", "target_name", "line"}, exclude_none=True)
            for node in graph.nodes or []
        ],
        "edges": [
            f"{edge.source} -> {edge.target}" + (" (conditional)" if edge.conditional else "")
            for edge in graph.edges
        ],
    }


def inspection_digest(inspection: Inspection) -> str:
    """sha256 of the inspection, without where the source happened to be checked out."""
    data = inspection.model_dump(mode="json", exclude={"source": {"path"}})
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def read_answers(folder: Path) -> dict[str, Any]:
    """A plugin folder's recorded answers (Copier's private keys included)."""
    path = folder / ANSWERS_FILE
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise AgentImportError(f"cannot read {ANSWERS_FILE}: {exc}", file=str(path)) from None
    if not isinstance(data, dict):
        raise AgentImportError(f"{ANSWERS_FILE} is not a mapping", file=str(path))
    return data


def _check_answers_file(dest: Path, root: Path, source: TemplateSource) -> None:
    """The recorded template location and version must resolve from the root, as
    ``copier update`` will resolve them; otherwise every later update would fail."""
    answers = read_answers(dest)
    src_path, commit = str(answers.get("_src_path", "")), str(answers.get("_commit", ""))
    resolved = gitops.resolve_commit(root / src_path, commit) if src_path else None
    if src_path != source.src_path or resolved != source.commit:
        raise AgentImportError(
            f"{ANSWERS_FILE} records _src_path={src_path!r} _commit={commit!r}, "
            f"which do not resolve to the template at {source.commit[:12]}"
        )
