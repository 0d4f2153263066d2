"""Dependencies the agent declares, shown to the user before anything is installed.

Read from ``langgraph.json`` (package names written straight into ``dependencies``) and from the
folders it lists as local dependencies, plus the config's own folder: PEP 621 and Poetry
``pyproject.toml`` and ``requirements.txt`` (following ``-r`` includes inside the tree). Nothing
is resolved or installed here (docs/architecture.md).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from generator.errors import AgentImportError
from generator.inspect.config import ProjectConfig, is_local_dependency
from generator.inspect.modules import Project
from generator.models import Dependency
from generator.paths import relative, within

_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_EGG = re.compile(r"#egg=([A-Za-z0-9][A-Za-z0-9._-]*)")
_MAX_INCLUDES = 5


def dependencies(project: Project, config: ProjectConfig) -> list[Dependency]:
    """Every declared dependency once (by normalised name), first declaration kept."""
    root = project.root
    found = [
        Dependency(name=_name(spec), spec=spec, origin=config.config_file)
        for spec in config.dependencies
        if not is_local_dependency(spec)
    ]
    local = [root / path for path in config.local_dependencies]
    for path in dict.fromkeys([*local, root / config.folder]):
        if path.is_file():  # "./requirements.txt" written straight into the config
            found += _requirements(project, path, _MAX_INCLUDES)
        else:
            found += _pyproject(project, path / "pyproject.toml")
            found += _requirements(project, path / "requirements.txt", _MAX_INCLUDES)
    unique: dict[str, Dependency] = {}
    for dependency in found:
        unique.setdefault(re.sub(r"[-_.]+", "-", dependency.name).lower(), dependency)
    return list(unique.values())


def _name(spec: str) -> str:
    """The distribution name of a requirement (``name[extra]>=1``, ``git+...#egg=name``)."""
    egg = _EGG.search(spec)
    if egg:
        return egg.group(1)
    if "://" in spec and "@" not in spec.split("://")[0]:
        return spec.rstrip("/").rpartition("/")[2].removesuffix(".git").partition("@")[0]
    match = _NAME.match(spec)
    return match.group(1) if match else spec.strip()


def _pyproject(project: Project, path: Path) -> list[Dependency]:
    text = project.read_optional(path)
    if text is None:
        return []
    origin = relative(project.root, path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        project.warn(origin, None, f"invalid TOML ({exc}); its dependencies are not listed")
        return []
    listed = _table(data, "project").get("dependencies", [])
    found = [
        Dependency(name=_name(spec), spec=spec, origin=origin)
        for spec in listed
        if isinstance(spec, str)
    ]
    poetry = _table(_table(_table(data, "tool"), "poetry"), "dependencies")
    for name, constraint in poetry.items():
        if name.lower() != "python":
            found.append(Dependency(name=name, spec=_poetry_spec(name, constraint), origin=origin))
    return found


def _table(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def _poetry_spec(name: str, constraint: object) -> str:
    if isinstance(constraint, dict):
        constraint = constraint.get("version") or next(
            (f"({kind})" for kind in ("git", "path", "url") if kind in constraint), "*"
        )
    return f"{name} {constraint}"


def _requirements(project: Project, path: Path, includes: int) -> list[Dependency]:
    text = project.read_optional(path)
    if text is None:
        return []
    origin = relative(project.root, path)
    found = []
    for raw in text.splitlines():
        line = re.sub(r"(^|\s)#.*$", "", raw).strip()
        if line.startswith(("-r ", "--requirement ")) and includes > 0:
            included = line.split(maxsplit=1)[1]
            try:
                target = within(
                    project.root, path.parent.relative_to(project.root) / included, what="file"
                )
            except AgentImportError as exc:
                project.warn(origin, None, f"{exc}; skipped")
                continue
            found += _requirements(project, target, includes - 1)
        elif line and not line.startswith("-"):
            found.append(Dependency(name=_name(line), spec=line, origin=origin))
    return found
