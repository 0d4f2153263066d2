"""Environment variables the agent reads: names only, never values.

From ``langgraph.json``'s ``env`` (the names of an object, or the names a committed env file
declares, e.g. ``.env.example`` beside a ``.env`` that is not committed) and from literal reads
in the agent's code: ``os.environ["NAME"]`` (required: it raises when unset),
``os.environ.get("NAME")`` and ``os.getenv("NAME")`` (optional: the code handles a missing one).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import libcst as cst
import libcst.matchers as m

from generator.inspect.config import ProjectConfig
from generator.inspect.imports import reachable_modules
from generator.inspect.modules import Project
from generator.models import EnvVar

_NAME = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=")
_ENVIRON = m.Attribute(value=m.Name("os"), attr=m.Name("environ")) | m.Name("environ")
_GETENV = m.Attribute(value=m.Name("os"), attr=m.Name("getenv")) | m.Name("getenv")
_GET = m.Attribute(value=_ENVIRON, attr=m.Name("get"))
_LITERAL = m.SimpleString()


def environment_variables(
    project: Project, config: ProjectConfig, entry_files: list[Path]
) -> list[EnvVar]:
    """Every variable once: required wins over optional, the first place seen is kept."""
    found: dict[str, EnvVar] = {}
    for name in _config_names(project, config):
        found.setdefault(name, EnvVar(name=name, required=True, origin=config.config_file))
    for module in reachable_modules(project, entry_files):
        for node in m.findall(module.tree, m.Subscript(value=_ENVIRON) | m.Call()):
            read = _read(node)
            if read is None:
                continue
            name, required = read
            if not name:
                continue
            where = f"{module.rel}:{module.line(node)}"
            known = found.get(name)
            if known is None or (required and not known.required):
                found[name] = EnvVar(name=name, required=required, origin=where)
    return sorted(found.values(), key=lambda var: (not var.required, var.name))


def _read(node: cst.CSTNode) -> tuple[str, bool] | None:
    """``(name, required)`` for a literal environment read, else None."""
    if isinstance(node, cst.Subscript) and len(node.slice) == 1:
        index = node.slice[0].slice
        if isinstance(index, cst.Index) and m.matches(index.value, _LITERAL):
            return _literal(index.value), True
    if isinstance(node, cst.Call) and m.matches(node.func, _GETENV | _GET) and node.args:
        first = node.args[0].value
        if m.matches(first, _LITERAL):
            return _literal(first), False
    return None


def _literal(node: cst.BaseExpression) -> str:
    value = node.evaluated_value if isinstance(node, cst.SimpleString) else None
    return value if isinstance(value, str) else ""


def _config_names(project: Project, config: ProjectConfig) -> list[str]:
    """Names from ``env``: an object's keys, or an env file's (its committed example)."""
    if isinstance(config.env, dict):
        return list(config.env)
    if not isinstance(config.env, str):
        return []
    folder = project.root / config.folder
    for candidate in (config.env, f"{config.env}.example", ".env.example", ".env.sample"):
        path = Path(os.path.normpath(folder / candidate))
        text = project.read_optional(path) if path.is_relative_to(project.root) else None
        if text is not None:
            return [match.group(1) for line in text.splitlines() if (match := _NAME.match(line))]
    return []
