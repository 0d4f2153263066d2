"""A plugin's settings, recorded at import and reviewed in its PR (the seed's OQ5).

``agent.json`` gets the run-context values (each ``context_schema`` field whose default is a
literal, shown so the reviewer can edit it), the names of the environment variables the agent
needs (never values: the runtime reads them from its own environment) and the values of its
other required input fields. What has no value yet (a context field or an input field with no
default) is named with how to set it, in the import's output and the plugin README.
"""

from __future__ import annotations

import ast
import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from generator.models import Graph, Inspection, StateField, StateSchema
from runtime.layout import AGENT_FILE, PLUGINS_FOLDER

#: Calls whose ``default=`` (or first argument) is the field's default: dataclasses and pydantic.
_DEFAULT_CALLS = frozenset({"field", "Field", "dataclasses.field", "pydantic.Field"})
#: Input schemas whose fields without a default must be given (TypedDict keys never must).
_STRICT_STYLES = frozenset({"dataclass", "pydantic"})


class PluginSettings(BaseModel):
    """A plugin's settings as the import found them (not the runtime's ``runtime.settings``)."""

    model_config = ConfigDict(extra="forbid")

    context: dict[str, Any] = Field(default_factory=dict)
    env: list[str] = Field(default_factory=list, description="Required variables, by name.")
    optional_env: list[str] = Field(default_factory=list)
    inputs: dict[str, Any] = Field(default_factory=dict)
    unset: list[str] = Field(
        default_factory=list, description="One line per value still needed, with how to set it."
    )


def plugin_settings(
    inspection: Inspection, graph: Graph, *, plugin_id: str, input_field: str
) -> PluginSettings:
    """The settings of ``graph`` when imported as ``plugin_id``."""
    where = f"{PLUGINS_FOLDER}/{plugin_id}/{AGENT_FILE}"
    settings = PluginSettings(
        env=[var.name for var in inspection.environment if var.required],
        optional_env=[var.name for var in inspection.environment if not var.required],
    )
    for field in graph.context_schema.fields if graph.context_schema else []:
        value = literal_default(field)
        if value is not _NO_VALUE:
            settings.context[field.name] = value
        elif not has_default(field):
            settings.unset.append(
                f'context field {field.name!r} has no default: set it under "context" in {where}'
            )
    for field in _required_inputs(graph, input_field):
        settings.unset.append(
            f"input field {field.name!r} is required and has no default: set it under "
            f'"inputs" in {where}'
        )
    return settings


_NO_VALUE = object()


def literal_default(field: StateField) -> Any:
    """The field's default when it is a JSON literal (``5``, ``"x"``, ``field(default="x")``)."""
    expr = _default_expr(field)
    if expr is None:
        return _NO_VALUE
    try:
        value = ast.literal_eval(expr)
        json.dumps(value)
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return _NO_VALUE
    return value


def has_default(field: StateField) -> bool:
    """False for a field that must be given: no default, or ``Field(description=...)`` alone."""
    if field.default is None:
        return False
    call = _parsed(field.default)
    if isinstance(call, ast.Call) and ast.unparse(call.func) in _DEFAULT_CALLS:
        given = {k.arg for k in call.keywords} & {"default", "default_factory"}
        positional = call.args[:1]
        return bool(given) or (bool(positional) and ast.unparse(positional[0]) != "...")
    return True


def _default_expr(field: StateField) -> ast.expr | None:
    """The default's expression, unwrapped from ``field(default=...)``/``Field(...)``."""
    tree = _parsed(field.default) if field.default is not None else None
    if isinstance(tree, ast.Call) and ast.unparse(tree.func) in _DEFAULT_CALLS:
        given = [k.value for k in tree.keywords if k.arg == "default"] or tree.args[:1]
        return given[0] if given else None
    return tree


def _parsed(text: str) -> ast.expr | None:
    try:
        return ast.parse(text, mode="eval").body
    except SyntaxError:
        return None


def _required_inputs(graph: Graph, input_field: str) -> list[StateField]:
    schema: StateSchema | None = graph.input_schema or graph.state
    if schema is None or schema.style not in _STRICT_STYLES:
        return []
    return [f for f in schema.fields if f.name != input_field and not has_default(f)]
