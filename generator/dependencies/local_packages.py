"""Local packages: folders of the repository that an agent depends on by path, never by name.

``langgraph.json`` lists local folders (``"."``, ``"../../libs/shared"``); their
``pyproject.toml`` can link more: uv sources (``{path = "..."}``, ``{workspace = true}`` resolved
through the ``[tool.uv.workspace]`` members of the enclosing workspace; a member also has the
workspace root's sources, as uv gives them) and Poetry path dependencies (``{path = "..."}``).
Every such folder is vendored with the agent and put on its import path; its project name, and
every other project name of the repository (the root's, the workspace members'), is recorded so
that a requirement with the same name is never installed from a package index (a public project
called ``shared`` is not the monorepo's).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from generator.errors import AgentImportError
from generator.models import Warning_
from generator.paths import is_inside, relative, resolved_inside, within

#: Most folders followed from one config (a guard against link cycles and huge monorepos).
MAX_LINKED = 50


def read_pyproject(folder: Path) -> dict[str, Any]:
    """The folder's ``pyproject.toml`` as a dict; empty when absent or not valid TOML."""
    path = folder / "pyproject.toml"
    if not path.is_file():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError):
        return {}


def table(data: dict[str, Any], *keys: str) -> dict[str, Any]:
    """``data[k1][k2]...``, or an empty dict where a level is missing or not a table."""
    for key in keys:
        value = data.get(key)
        data = value if isinstance(value, dict) else {}
    return data


def project_name(folder: Path) -> str | None:
    """The canonical ``[project].name`` (or Poetry's ``name``) of the folder's pyproject."""
    data = read_pyproject(folder)
    name = table(data, "project").get("name") or table(data, "tool", "poetry").get("name")
    return canonicalize_name(name) if isinstance(name, str) else None


def linked_folders(root: Path, folders: list[Path], warnings: list[Warning_]) -> list[Path]:
    """``folders`` and every folder their pyprojects link by path or workspace, transitively."""
    found: list[Path] = []
    queue = list(folders)
    while queue and len(found) < MAX_LINKED:
        folder = queue.pop(0)
        if folder in found or not folder.is_dir():
            continue
        found.append(folder)
        queue += _links(root, folder, warnings)
    return found


def own_projects(root: Path, folders: list[Path]) -> dict[str, Path]:
    """The repository's own projects by name, with their folders: ``folders``' (the agent's
    linked folders), the root's, and every member's of a uv workspace enclosing the root or one
    of ``folders``. A project is never its own requirement; the first folder of a name wins."""
    candidates = [*folders, root]
    for base in dict.fromkeys(_workspace_root(root, folder) for folder in [root, *folders]):
        if base is not None:
            candidates += _members(root, base)
    found: dict[str, Path] = {}
    for folder in candidates:
        name = project_name(folder)
        if name:
            found.setdefault(name, folder)
    return found


#: A Python project's ``src/`` layout (not a plugin's ``src/``,
#: ``runtime.contract.layout.SOURCE_FOLDER``).
SRC_LAYOUT = "src"


def package_root(folder: Path) -> Path:
    """Where a project folder's import packages are: its ``src/`` layout, else the folder."""
    return folder / SRC_LAYOUT if (folder / SRC_LAYOUT).is_dir() else folder


def workspace_member(root: Path, base: Path, name: str) -> Path | None:
    """The member of the uv workspace at ``base`` whose project is called ``name``."""
    wanted = canonicalize_name(name)
    return next((m for m in _members(root, base) if project_name(m) == wanted), None)


def _links(root: Path, folder: Path, warnings: list[Warning_]) -> list[Path]:
    data = read_pyproject(folder)
    origin = relative(root, folder / "pyproject.toml")
    links: list[Path] = []
    sources = _inherited_sources(root, folder, data)
    sources.update(
        (canonicalize_name(name), (folder, source))
        for name, source in table(data, "tool", "uv", "sources").items()
    )
    poetry = table(data, "tool", "poetry", "dependencies")
    entries = [
        *((name, base, source) for name, (base, source) in sources.items()),
        *((k, folder, v) for k, v in poetry.items() if isinstance(v, dict)),
    ]
    for name, base, source in entries:
        if not isinstance(source, dict):
            continue
        if isinstance(source.get("path"), str):
            target: Path | None = _inside(root, base, source["path"], origin, warnings)
        elif source.get("workspace") is True:
            target = _workspace_member(root, folder, name)
            if target is None:
                warnings.append(
                    Warning_(file=origin, message=f"workspace member {name!r} not found")
                )
        else:
            continue
        if target is not None and target.is_dir():
            links.append(target)
    return links


def _inherited_sources(
    root: Path, folder: Path, data: dict[str, Any]
) -> dict[str, tuple[Path, Any]]:
    """The workspace root's ``[tool.uv.sources]`` for the names this member depends on: uv
    applies them to every member (a member's own source for a name wins). Each with the folder
    its paths are relative to."""
    base = _workspace_root(root, folder.parent) if folder != root else None
    if base is None or folder not in _members(root, base):
        return {}
    declared = {_requirement_name(spec) for spec in table(data, "project").get("dependencies", [])}
    declared |= {canonicalize_name(name) for name in table(data, "tool", "poetry", "dependencies")}
    sources = table(read_pyproject(base), "tool", "uv", "sources")
    return {
        canonicalize_name(name): (base, source)
        for name, source in sources.items()
        if canonicalize_name(name) in declared
    }


def _requirement_name(spec: object) -> str | None:
    try:
        return canonicalize_name(Requirement(spec).name) if isinstance(spec, str) else None
    except InvalidRequirement:
        return None


def _inside(
    root: Path, folder: Path, path: str, origin: str, warnings: list[Warning_]
) -> Path | None:
    try:
        return within(root, folder.relative_to(root) / path, what="path dependency")
    except AgentImportError as exc:
        warnings.append(Warning_(file=origin, message=f"{exc}; not followed"))
        return None


def _workspace_member(root: Path, folder: Path, name: str) -> Path | None:
    """The member of the enclosing uv workspace whose project is called ``name``."""
    base = _workspace_root(root, folder)
    return None if base is None else workspace_member(root, base, name)


def _workspace_root(root: Path, folder: Path) -> Path | None:
    """The nearest folder from ``folder`` up to ``root`` that declares a uv workspace."""
    for candidate in (folder, *folder.parents):
        if not is_inside(root, candidate):
            return None
        if table(read_pyproject(candidate), "tool", "uv", "workspace"):
            return candidate
    return None


def _members(root: Path, base: Path) -> list[Path]:
    """The member folders of the uv workspace declared at ``base``, inside ``root``."""
    workspace = table(read_pyproject(base), "tool", "uv", "workspace")
    excluded = {
        path
        for pattern in workspace.get("exclude", [])
        if isinstance(pattern, str)
        for path in base.glob(pattern)
    }
    found: list[Path] = []
    for pattern in workspace.get("members", []):
        if isinstance(pattern, str):
            for path in sorted(base.glob(pattern)):
                inside = resolved_inside(root, path)
                if inside and path not in excluded and inside.is_dir() and inside not in found:
                    found.append(inside)
    return found
