"""Local packages: folders of the repository that an agent depends on by path, never by name.

``langgraph.json`` lists local folders (``"."``, ``"../../libs/shared"``); their
``pyproject.toml`` can link more: uv sources (``{path = "..."}``, ``{workspace = true}`` resolved
through the ``[tool.uv.workspace]`` members of the enclosing workspace) and Poetry path
dependencies (``{path = "..."}``). Every such folder is vendored with the agent and put on its
import path; its project name is recorded so that a requirement with the same name is never
installed from a package index (a public project called ``shared`` is not the monorepo's).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

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


def _links(root: Path, folder: Path, warnings: list[Warning_]) -> list[Path]:
    data = read_pyproject(folder)
    origin = relative(root, folder / "pyproject.toml")
    links: list[Path] = []
    sources = table(data, "tool", "uv", "sources")
    poetry = table(data, "tool", "poetry", "dependencies")
    entries = [*sources.items(), *((k, v) for k, v in poetry.items() if isinstance(v, dict))]
    for name, source in entries:
        if not isinstance(source, dict):
            continue
        if isinstance(source.get("path"), str):
            target: Path | None = _inside(root, folder, source["path"], origin, warnings)
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
    wanted = canonicalize_name(name)
    for candidate in (folder, *folder.parents):
        if not is_inside(root, candidate):
            return None
        workspace = table(read_pyproject(candidate), "tool", "uv", "workspace")
        if workspace:
            return _member(root, candidate, workspace, wanted)
    return None


def _member(root: Path, base: Path, workspace: dict[str, Any], wanted: str) -> Path | None:
    members = [m for m in workspace.get("members", []) if isinstance(m, str)]
    excluded = {
        path
        for pattern in workspace.get("exclude", [])
        if isinstance(pattern, str)
        for path in base.glob(pattern)
    }
    for pattern in members:
        for path in sorted(base.glob(pattern)):
            inside = resolved_inside(root, path)
            if inside and path not in excluded and project_name(path) == wanted:
                return inside
    return None
