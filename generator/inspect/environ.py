"""Environment variables the agent reads: names only, never values.

From ``langgraph.json``'s ``env`` (the names of an object, or the names a committed env file
declares, e.g. ``.env.example`` beside a ``.env`` that is not committed) and from literal reads
in the agent's code: ``os.environ["NAME"]`` (required: it raises when unset),
``os.environ.get("NAME")`` and ``os.getenv("NAME")`` (optional: the code handles a missing one),
and the fields of pydantic-settings classes (``class Settings(BaseSettings)``: each field is the
variable of its name, after the class's ``env_prefix``; required when it has no default).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import libcst as cst

from generator.inspect.config import ProjectConfig
from generator.inspect.modules import Module, Project, find_nodes
from generator.models import EnvVar
from generator.paths import is_inside

_NAME = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=")


def environment_variables(
    project: Project, config: ProjectConfig, modules: list[Module]
) -> list[EnvVar]:
    """Every variable once: required wins over optional, the first place seen is kept."""
    found: dict[str, EnvVar] = {}
    for name in _config_names(project, config):
        found.setdefault(name, EnvVar(name=name, required=True, origin=config.config_file))
    for module in modules:
        reads: list[tuple[cst.CSTNode, tuple[str, bool]]] = [
            (node, read)
            for node in find_nodes(module.tree, cst.Subscript, cst.Call)
            if (read := _read(node)) is not None
        ]
        reads += [
            (node, read)
            for node in find_nodes(module.tree, cst.ClassDef)
            for read in _settings_fields(node)
        ]
        for node, (name, required) in reads:
            if not name:
                continue
            where = f"{module.rel}:{module.line(node)}"
            known = found.get(name)
            if known is None or (required and not known.required):
                found[name] = EnvVar(name=name, required=required, origin=where)
    return sorted(found.values(), key=lambda var: (not var.required, var.name))


def _read(node: cst.CSTNode) -> tuple[str, bool] | None:
    """``(name, required)`` for a literal environment read, else None."""
    if isinstance(node, cst.Subscript) and _environ(node.value) and len(node.slice) == 1:
        index = node.slice[0].slice
        if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString):
            return _literal(index.value), True
    if isinstance(node, cst.Call) and node.args:
        func = node.func
        getenv = _name(func, "getenv") or _attribute(func, "os", "getenv")
        get = isinstance(func, cst.Attribute) and _environ(func.value) and _name(func.attr, "get")
        first = node.args[0].value
        if (getenv or get) and isinstance(first, cst.SimpleString):
            return _literal(first), False
    return None


def _settings_fields(node: cst.CSTNode) -> list[tuple[str, bool]]:
    """``(NAME, required)`` for each field of a pydantic-settings class, named as the variable
    it reads (upper case, after its ``env_prefix``)."""
    if not isinstance(node, cst.ClassDef) or not any(
        _name(base.value, "BaseSettings") or _dotted_end(base.value, "BaseSettings")
        for base in node.bases
    ):
        return []
    statements = [
        small
        for line in node.body.body
        if isinstance(line, cst.SimpleStatementLine)
        for small in line.body
    ]
    prefix = next((found for s in statements if (found := _env_prefix(s)) is not None), "")
    return [
        ((prefix + small.target.value).upper(), small.value is None)
        for small in statements
        if isinstance(small, cst.AnnAssign)
        and isinstance(small.target, cst.Name)
        and small.target.value != "model_config"
        and not small.target.value.startswith("_")
    ]


def _env_prefix(statement: cst.BaseSmallStatement) -> str | None:
    """The ``env_prefix`` of ``model_config = SettingsConfigDict(env_prefix="X_")``."""
    if not isinstance(statement, cst.Assign | cst.AnnAssign):
        return None
    value = statement.value
    if not isinstance(value, cst.Call):
        return None
    for arg in value.args:
        if arg.keyword is not None and arg.keyword.value == "env_prefix":
            return _literal(arg.value)
    return None


def _dotted_end(node: cst.BaseExpression, name: str) -> bool:
    return isinstance(node, cst.Attribute) and node.attr.value == name


def _environ(node: cst.BaseExpression) -> bool:
    """``os.environ`` or ``environ``."""
    return _name(node, "environ") or _attribute(node, "os", "environ")


def _attribute(node: cst.BaseExpression, owner: str, name: str) -> bool:
    return isinstance(node, cst.Attribute) and _name(node.value, owner) and _name(node.attr, name)


def _name(node: cst.BaseExpression, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


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
        text = project.read_optional(path) if is_inside(project.root, path) else None
        if text is not None:
            return [match.group(1) for line in text.splitlines() if (match := _NAME.match(line))]
    return []
