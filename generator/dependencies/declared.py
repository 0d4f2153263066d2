"""Dependencies the agent declares, shown to the user before anything is installed.

Read from ``langgraph.json`` (package names written straight into ``dependencies``) and from the
folders it lists as local dependencies (and the ones they link), or the config's own folder when
it lists none:
PEP 621 and Poetry ``pyproject.toml`` (Poetry constraints translated to PEP 508, or a warning)
and ``requirements.txt`` (following ``-r`` includes inside the tree). A requirement naming one
of the repository's own local packages is left out with a warning: it is vendored, never
fetched by name (the folder providing it goes on the import path, ``config.with_vendored``), as
is one naming LangGraph's server (``server_packages``), which the runtime replaces. Nothing is
resolved or installed here (docs/architecture.md).
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import NamedTuple

from packaging.utils import canonicalize_name

from generator.dependencies.local_packages import table
from generator.dependencies.poetry import Untranslatable, translate
from generator.dependencies.server_packages import server_note
from generator.errors import AgentImportError
from generator.inspect.config import ProjectConfig, is_local_dependency
from generator.inspect.modules import Project
from generator.models import Dependency
from generator.paths import relative, within

_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_EGG = re.compile(r"#egg=([A-Za-z0-9][A-Za-z0-9._-]*)")
_MAX_INCLUDES = 5


class Declared(NamedTuple):
    """The requirements to install, and the local package names left out (vendored)."""

    requirements: list[Dependency]
    vendored: set[str]


def dependencies(project: Project, config: ProjectConfig) -> Declared:
    """Every declared dependency once (by normalised name), first declaration kept; the
    repository's own packages and LangGraph's server packages are left out, with a note."""
    root = project.root
    found = [
        Dependency(name=_name(spec), spec=spec, origin=config.config_file)
        for spec in config.dependencies
        if not is_local_dependency(spec)
    ]
    # The folders langgraph.json lists, as LangGraph's server installs them; the config's own
    # folder only when it lists none (a requirements file beside it is then all there is).
    local = [root / path for path in config.local_dependencies] or [root / config.folder]
    for path in dict.fromkeys(local):
        if path.is_file():  # "./requirements.txt" written straight into the config
            found += _requirements(project, path, _MAX_INCLUDES)
        else:
            found += _pyproject(project, path / "pyproject.toml")
            found += _requirements(project, path / "requirements.txt", _MAX_INCLUDES)
    unique: dict[str, Dependency] = {}
    vendored: set[str] = set()
    for dependency in found:
        name = canonicalize_name(dependency.name)
        note = server_note(dependency.name)
        if note is not None:
            project.warn(dependency.origin, None, note)
        elif name in config.local_packages:
            vendored.add(name)
            project.warn(
                dependency.origin,
                None,
                f"{dependency.spec} is a folder of this repository: used from the vendored copy, "
                "never installed from a package index",
            )
        else:
            unique.setdefault(name, dependency)
    return Declared(list(unique.values()), vendored)


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
    listed = table(data, "project").get("dependencies", [])
    found = [
        Dependency(name=_name(spec), spec=spec, origin=origin)
        for spec in listed
        if isinstance(spec, str)
    ]
    poetry = table(data, "tool", "poetry", "dependencies")
    for name, constraint in poetry.items():
        if name.lower() == "python":
            continue
        translated = translate(name, constraint)
        if isinstance(translated, Untranslatable):
            shown = f"{name} = {json.dumps(constraint)}"
            project.warn(origin, None, f"{shown}: {translated.reason}; not installed")
        elif isinstance(translated, str):  # a Local path dependency is a linked folder
            found.append(Dependency(name=name, spec=translated, origin=origin))
    return found


def requirements_file(project: Project, path: Path) -> list[Dependency]:
    """The requirements of one ``requirements.txt`` (and the files it includes)."""
    return _requirements(project, path, _MAX_INCLUDES)


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
