"""``langgraph.json``: find it, validate it, and turn each graph spec into a file in the tree.

LangGraph projects declare their graphs in ``langgraph.json`` as ``"./path/file.py:variable"``
(also written without ``./``) or as ``"package.module:variable"``, which the LangGraph server
imports from the folders listed in ``dependencies`` (or the uv workspace member the ``source``
form names) and the folders their ``pyproject.toml`` links by path or uv workspace
(``local_packages``). This module resolves both forms statically, refuses specs that leave
the source tree, and rejects JavaScript/TypeScript graphs clearly.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Literal

from packaging.utils import canonicalize_name
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from generator.dependencies.local_packages import (
    SRC_LAYOUT,
    linked_folders,
    own_projects,
    package_root,
    project_name,
    workspace_member,
)
from generator.errors import AgentImportError
from generator.models import Warning_
from generator.paths import find_module, is_inside, is_searched_folder, relative, within
from runtime.serving.quotes import excerpt

CONFIG_NAME = "langgraph.json"
_SURROGATE = re.compile("[\ud800-\udfff]")
_JS_SUFFIXES = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx")
#: Keys of langgraph-cli's config schema that this generator reads or knowingly ignores.
KNOWN_KEYS = frozenset(
    {
        "$schema", "graphs", "dependencies", "env", "python_version", "node_version",
        "api_version", "base_image", "image_distro", "pip_config_file", "pip_installer",
        "dockerfile_lines", "store", "checkpointer", "auth", "encryption", "http", "webhooks",
        "ui", "ui_config", "keep_pkg_tools", "_INTERNAL_docker_tag",
    }
)  # fmt: skip


class GraphDef(BaseModel):
    """The object form of a graph entry: ``{"path": "...", "description": "..."}``."""

    model_config = ConfigDict(extra="allow")

    path: str
    description: str | None = None


class UvSource(BaseModel):
    """The ``source`` form: ``{"kind": "uv", "root": "../..", "package": "agent"}``, a uv
    project (or workspace) at ``root``, relative to the config's folder, and its member
    ``package``; LangGraph's server installs that member with its workspace dependencies."""

    model_config = ConfigDict(extra="allow")

    kind: Literal["uv"]
    root: str = "."
    package: str | None = None


class LanggraphJson(BaseModel):
    """The parts of ``langgraph.json`` the generator reads; every other key is kept as extra."""

    model_config = ConfigDict(extra="allow")

    graphs: dict[str, str | GraphDef] = Field(min_length=1)
    dependencies: list[str] = Field(default_factory=list)
    source: UvSource | None = None
    env: dict[str, Any] | str | None = None
    python_version: str | None = None
    node_version: str | None = None

    @property
    def extra_keys(self) -> list[str]:
        return sorted(set(self.model_extra or {}) - KNOWN_KEYS)


class GraphSpec(BaseModel):
    """One Python graph of the config, resolved to a file inside the source tree."""

    model_config = ConfigDict(extra="forbid")

    graph_id: str
    spec: str = Field(description="The entry as written in langgraph.json.")
    file: str = Field(description="Graph file, relative to the langgraph.json folder.")
    path: str = Field(description="Graph file, relative to the source root.")
    export: str = Field(description="The variable or function the spec names.")
    description: str | None = None


class ProjectConfig(BaseModel):
    """A validated ``langgraph.json`` with its Python graphs resolved."""

    model_config = ConfigDict(extra="forbid")

    config_file: str = Field(description="Relative to the source root.")
    folder: str = Field(description="The config's folder, relative to the source root.")
    graphs: list[GraphSpec]
    dependencies: list[str] = Field(description="langgraph.json dependencies, as written.")
    local_dependencies: list[str] = Field(
        default_factory=list, description="The local ones, resolved, relative to the root."
    )
    local_packages: list[str] = Field(
        default_factory=list,
        description="The repository's own project names (local folders, the root, workspace "
        "members): never installed from a package index.",
    )
    local_package_folders: dict[str, str] = Field(
        default_factory=dict, description="The folder of each local package, relative to the root."
    )
    import_roots: list[str] = Field(description="Folders on sys.path, relative to the root.")
    extra_keys: list[str] = Field(default_factory=list)
    python_version: str | None = None
    env: str | dict[str, str] | None = None
    warnings: list[Warning_] = Field(default_factory=list)


def load_config(
    root: Path, *, config: str | None = None, graph: str | None = None
) -> ProjectConfig:
    """Find and read the config of the project at ``root``; keep only ``graph`` if given."""
    root = root.resolve()
    path = _locate(root, config)
    rel = relative(root, path)
    raw = _read_json(path, rel)
    try:
        parsed = LanggraphJson.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(part) for part in err["loc"]) or "top level"
        raise AgentImportError(f"invalid {CONFIG_NAME}: {where}: {err['msg']}", file=rel) from None
    folder = path.parent
    warnings = [
        Warning_(file=rel, message=f"unknown key {key!r} in {CONFIG_NAME} (kept, not used)")
        for key in parsed.extra_keys
    ]
    local = _local_dependencies(root, folder, parsed.dependencies, rel)
    if parsed.source is not None:
        local.append(_source_project(root, folder, parsed.source, rel))
    linked = linked_folders(root, [*local, folder], warnings)
    local += [path for path in linked if path not in local and path != folder]
    roots = _import_roots(root, folder, local)
    graphs = _python_graphs(root, folder, rel, parsed, roots, graph, warnings)
    projects = own_projects(root, linked)
    return ProjectConfig(
        config_file=rel,
        folder=relative(root, folder) if folder != root else "",
        graphs=graphs,
        dependencies=parsed.dependencies,
        local_dependencies=[relative(root, path) for path in local],
        local_packages=sorted(projects),
        local_package_folders={name: relative(root, path) for name, path in projects.items()},
        import_roots=[relative(root, r) for r in roots],
        extra_keys=parsed.extra_keys,
        python_version=parsed.python_version,
        env=_redacted_env(parsed.env),
        warnings=warnings,
    )


def _locate(root: Path, config: str | None) -> Path:
    if config is not None:
        path = within(root, config, what="--config")
        if path.is_dir():
            path = path / CONFIG_NAME
        if not path.is_file():
            raise AgentImportError(f"--config {config}: no such file in the source tree")
        return path
    at_root = root / CONFIG_NAME
    if at_root.is_symlink() or at_root.is_file():  # the root's config wins: no need to walk
        return within(root, CONFIG_NAME, what=CONFIG_NAME)
    found = sorted(_find_configs(root), key=lambda p: (len(p.parts), p))
    if not found:
        raise AgentImportError(
            f"no {CONFIG_NAME} found in the source: a LangGraph project declares its graphs there"
        )
    if len(found) > 1:
        listed = ", ".join(relative(root, p) for p in found)
        raise AgentImportError(
            f"several {CONFIG_NAME} files found ({listed}); choose one with --config PATH"
        )
    return within(root, relative(root, found[0]), what=CONFIG_NAME)


def _find_configs(root: Path) -> list[Path]:
    found = []
    for folder, dirs, files in os.walk(root):  # never follows symlinked folders
        dirs[:] = [d for d in dirs if is_searched_folder(d)]
        if CONFIG_NAME in files:
            found.append(Path(folder) / CONFIG_NAME)
    return found


def _read_json(path: Path, rel: str) -> object:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise AgentImportError("not UTF-8 text", file=rel) from None
    except json.JSONDecodeError as exc:
        raise AgentImportError(f"invalid JSON: {exc.msg}", file=rel, line=exc.lineno) from None
    except RecursionError:
        raise AgentImportError("invalid JSON: nested too deep", file=rel) from None
    if (bad := _with_lone_surrogate(data)) is not None:
        raise AgentImportError(
            f"{excerpt(bad)} holds a lone surrogate (an unpaired \\uD800-\\uDFFF escape), "
            "which is not text",
            file=rel,
        )
    return data


def _with_lone_surrogate(data: object) -> str | None:
    """A string of ``data`` (keys too) holding a lone surrogate, if any.

    JSON's ``\\ud800`` escape decodes to one; no file name, UTF-8 output or JSON answer can
    hold it (``UnicodeEncodeError``), and every string of the config ends up in one of those.
    """
    pending = [data]
    while pending:  # not recursive: json.loads nests as deep as the recursion limit allows
        item = pending.pop()
        if isinstance(item, str) and _SURROGATE.search(item):
            return item
        if isinstance(item, dict):
            pending += [*item, *item.values()]
        elif isinstance(item, list):
            pending += item
    return None


def is_local_dependency(spec: str) -> bool:
    """A ``dependencies`` entry naming a folder or file of the project, not a package."""
    return spec.startswith((".", "/"))


def _local_dependencies(root: Path, folder: Path, dependencies: list[str], rel: str) -> list[Path]:
    """The local entries of ``dependencies``, resolved inside the source tree."""
    local = []
    for dep in filter(is_local_dependency, dependencies):
        path = within(root, folder.relative_to(root) / dep, what="dependency", file=rel)
        if not path.exists():
            raise AgentImportError(f"dependency {dep!r} does not exist", file=rel)
        local.append(path)
    return local


def _source_project(root: Path, folder: Path, source: UvSource, rel: str) -> Path:
    """The folder of the project ``source`` names: its uv root, or that workspace's member."""
    base = within(root, folder.relative_to(root) / source.root, what="source root", file=rel)
    if not (base / "pyproject.toml").is_file():
        raise AgentImportError(f"source root {source.root!r} has no pyproject.toml", file=rel)
    if source.package is None or project_name(base) == canonicalize_name(source.package):
        return base
    member = workspace_member(root, base, source.package)
    if member is None:
        raise AgentImportError(
            f"source package {source.package!r} is not a member of the uv workspace at "
            f"{source.root!r}",
            file=rel,
        )
    return member


def with_vendored(root: Path, config: ProjectConfig, names: set[str]) -> ProjectConfig:
    """``config`` with the folders providing the local packages ``names`` on the import path.

    A requirement left out because the repository provides it (``langgraph-swarm`` required by
    an example in a subfolder of the ``langgraph-swarm`` repository) is imported from the
    vendored copy, so its project folder (or ``src/`` layout) comes after the config's roots.
    """
    roots = list(config.import_roots)
    for name in sorted(names):
        folder = config.local_package_folders.get(name)
        if folder is not None:
            provider = relative(root, package_root(root / folder))
            roots += [provider] if provider not in roots else []
    return config.model_copy(update={"import_roots": roots})


def _import_roots(root: Path, folder: Path, local: list[Path]) -> list[Path]:
    """Folders the LangGraph server would put on ``sys.path`` for this config.

    Local dependencies are installed (packages at their top or under ``src/``) or, without
    packaging metadata, mounted as a package whose parent is on the path; the config folder and
    its ``src/`` come last.
    """
    candidates = [p for dep in local for p in (dep / SRC_LAYOUT, dep)]
    candidates += [folder / SRC_LAYOUT, folder]
    candidates += [dep.parent for dep in local if is_inside(root, dep.parent)]
    roots: list[Path] = []
    for candidate in candidates:
        if candidate.is_dir() and candidate not in roots and not _package_named_src(candidate):
            roots.append(candidate)
    return roots


def _other_case(path: Path) -> str | None:
    """The name of a file beside ``path`` that differs from it only in case (``agent.py`` for
    ``Agent.py``: a path written on a case-insensitive file system)."""
    try:
        siblings = list(path.parent.iterdir())
    except OSError:
        return None
    wanted = path.name.lower()
    return next((p.name for p in siblings if p.name.lower() == wanted and p.is_file()), None)


def _package_named_src(candidate: Path) -> bool:
    """A ``src/`` with an ``__init__.py`` is a package (``src.agent.graph``), not a src layout:
    its folders are ``src.<name>``, and never hide installed packages of their names (a
    ``src/langgraph/`` beside the real LangGraph)."""
    return candidate.name == SRC_LAYOUT and (candidate / "__init__.py").is_file()


def _python_graphs(
    root: Path,
    folder: Path,
    rel: str,
    parsed: LanggraphJson,
    roots: list[Path],
    wanted: str | None,
    warnings: list[Warning_],
) -> list[GraphSpec]:
    entries = {
        gid: (entry if isinstance(entry, GraphDef) else GraphDef(path=entry))
        for gid, entry in parsed.graphs.items()
    }
    if wanted is not None:
        if wanted not in entries:
            known = ", ".join(repr(g) for g in entries)
            raise AgentImportError(f"no graph {wanted!r} in {CONFIG_NAME} (it has {known})")
        entries = {wanted: entries[wanted]}
    js = [gid for gid, entry in entries.items() if _is_js(entry.path)]
    if len(js) == len(entries):
        raise AgentImportError(
            "this is a JavaScript/TypeScript LangGraph project "
            f"({', '.join(entries[g].path for g in js)}); only Python graphs can be imported",
            file=rel,
        )
    warnings.extend(
        Warning_(file=rel, message=f"graph {gid!r} is JavaScript/TypeScript; skipped") for gid in js
    )
    return [
        _resolve(root, folder, rel, gid, entry, roots)
        for gid, entry in entries.items()
        if gid not in js
    ]


def _is_js(spec: str) -> bool:
    return spec.rpartition(":")[0].lower().endswith(_JS_SUFFIXES)


def _resolve(
    root: Path, folder: Path, rel: str, gid: str, entry: GraphDef, roots: list[Path]
) -> GraphSpec:
    target, _, export = entry.path.rpartition(":")
    if not target or not export.isidentifier():
        raise AgentImportError(
            f"graph {gid!r}: {entry.path!r} is not 'path/to/file.py:variable' "
            "or 'package.module:variable'",
            file=rel,
        )
    if "/" in target or "\\" in target or target.endswith(".py"):
        path = within(root, folder.relative_to(root) / target, what=f"graph {gid!r} file", file=rel)
        if not path.is_file():
            hint = _other_case(path)
            also = (
                f" (there is {hint}: names are case-sensitive here, as on LangGraph's server)"
                if hint
                else ""
            )
            raise AgentImportError(f"graph {gid!r}: {target} does not exist{also}", file=rel)
    else:
        if not all(part.isidentifier() for part in target.split(".")):
            raise AgentImportError(f"graph {gid!r}: {target!r} is not a module name", file=rel)
        found = find_module(root, roots, target)
        if found is None or found.is_dir():
            looked = ", ".join(relative(root, r) for r in roots)
            raise AgentImportError(
                f"graph {gid!r}: cannot find module {target} (looked in {looked})", file=rel
            )
        path = found
    return GraphSpec(
        graph_id=gid,
        spec=entry.path,
        file=os.path.relpath(path, folder).replace(os.sep, "/"),
        path=relative(root, path),
        export=export,
        description=entry.description,
    )


def _redacted_env(env: dict[str, Any] | str | None) -> str | dict[str, str] | None:
    """A dict env keeps its names only: values may be secrets and are never copied."""
    if isinstance(env, dict):
        return dict.fromkeys(env, "***")
    return env
