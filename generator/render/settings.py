"""A plugin's settings, recorded at import and reviewed in its PR (the seed's OQ5).

``agent.json`` gets the run-context values (each ``context_schema`` field whose default is a
literal, shown so the reviewer can edit it), the names of the environment variables the agent
needs (never values: the runtime reads them from its own environment) and the values of its
other required input fields. A value the inspection proposed (a context field's ``Literal``,
enum or model name; an input field's value by its type) is recorded too and named in the
import's output, for review. What has no value yet (a dataclass or pydantic context field with
no default and nothing to propose) is named with how to set it, in the import's output and the
plugin README. A TypedDict context key needs nothing: LangGraph's server leaves it absent.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from generator.design.facts import takes_text
from generator.inspect.defaults import NO_VALUE, literal_default
from generator.models import Graph, Inspection, RequiredField
from runtime.contract.layout import AGENT_FILE, PLUGINS_FOLDER


class Unset(BaseModel):
    """A value the plugin still needs: its field, and the line that says how to set it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    how: str


class PluginSettings(BaseModel):
    """A plugin's settings as the import found them (not the runtime's ``runtime.settings``)."""

    model_config = ConfigDict(extra="forbid")

    context: dict[str, Any] = Field(default_factory=dict)
    env: list[str] = Field(default_factory=list, description="Required variables, by name.")
    optional_env: list[str] = Field(default_factory=list)
    inputs: dict[str, Any] = Field(default_factory=dict)
    proposed: list[str] = Field(
        default_factory=list, description="One line per value the import proposed, for review."
    )
    unset: list[Unset] = Field(default_factory=list, description="The values still needed.")


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
        if value is not NO_VALUE:
            settings.context[field.name] = value
    for required in graph.required_context:
        _settle(settings.context, required, "context", where, settings)
    for required in graph.required_inputs:
        if required.name != input_field:
            _settle(settings.inputs, required, "inputs", where, settings)
    return settings


def _settle(
    values: dict[str, Any], field: RequiredField, key: str, where: str, settings: PluginSettings
) -> None:
    """Record the proposed value of ``field`` under ``key``, or name it as still needed."""
    what = "context field" if key == "context" else "input field"
    if field.because is None:
        structured = key == "inputs" and not takes_text(field.name, field.type)
        why = f"takes structured input ({field.type}) and " if structured else ""
        how = f'{what} {field.name!r} {why}has no default: set it under "{key}" in {where}'
        settings.unset.append(Unset(name=field.name, how=how))
        return
    values[field.name] = field.proposed
    settings.proposed.append(
        f"{what} {field.name!r} = {field.proposed!r} ({field.because}): review it under "
        f'"{key}" in {where}'
    )
