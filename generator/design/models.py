"""``Design``: what the design step hands to the import step (the contract of ``design --json``).

A design holds four A2UI screens, the field mapping between the user and the agent's state, the
plugin's initial domain state, and where it all came from. ``DESIGN_VERSION`` changes when a key
changes meaning; new keys may be added.

The screens and the data model they bind to are the plugin contract's
(``runtime.contract.screens``). ``initial_domain_state`` holds exactly the data model's keys, and
every binding in every screen must resolve in it, so a screen never waits for data the plugin will
not send.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from runtime.a2ui.catalog import component_specs
from runtime.a2ui.models import Screen
from runtime.contract.screens import DATA_MODEL_TEXT_KEYS, SCREEN_NAMES, STATE_KEY, ScreenName

DESIGN_VERSION = 1

DesignMode = Literal["bedrock", "fallback", "file"]
MappingMode = Literal["bedrock", "heuristic", "file"]


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ModelCall(Model):
    """One answer received from a model, valid or not (what was paid for)."""

    purpose: Literal["mapping", "design"]
    model_id: str
    input_tokens: int
    output_tokens: int
    latency_ms: int
    valid: bool


class Provenance(Model):
    """How the design was made, for the review of the pull request and the cost estimate."""

    mode: DesignMode
    design_model: str | None = None
    mapping_model: str | None = None
    mapping: MappingMode = "heuristic"
    mapping_reason: str | None = Field(
        default=None, description="Why the heuristic mapping was used, when a model was asked."
    )
    output_mode: Literal["structured_output", "tool_use"] | None = None
    attempts: int = Field(default=0, description="Design answers requested from the model.")
    input_tokens: int = 0
    output_tokens: int = 0
    latency_ms: int = 0
    prompt_sha256: str | None = None
    cached: bool = Field(default=False, description="The design came from the answer cache.")
    fallback_reason: str | None = None
    calls: list[ModelCall] = Field(default_factory=list)


class DesignContent(Model):
    """What a designer decides: the four screens, the field mapping and the data model."""

    welcome: Screen
    collecting: Screen
    result: Screen
    error: Screen
    input_field: str = Field(description="State field that receives the user's request.")
    output_field: str = Field(description="State field that holds the agent's answer.")
    initial_domain_state: dict[str, Any]
    reasoning: str = Field(description="Why the screens look the way they do.")

    def screens(self) -> dict[ScreenName, Screen]:
        """The screens by name, in display order."""
        return {name: getattr(self, name) for name in SCREEN_NAMES}


class DesignHeader(Model):
    """Which plugin and graph a design is for (set by the design step, never by a designer)."""

    version: int = DESIGN_VERSION
    plugin_id: str
    graph_id: str
    title: str = Field(description="The agent's display name.")
    description: str = Field(description="One sentence on what the agent does.")


class Design(DesignContent, DesignHeader):
    """Four validated screens for one graph of one agent, what they bind to, and their origin.

    Serialised in this order: the header, the content, then ``provenance``.
    """

    provenance: Provenance

    def actions(self) -> list[str]:
        """Short names of the actions the screens' buttons send (``restart``, ``retry``...)."""
        prefix = f"{self.plugin_id}."
        names = {
            name.removeprefix(prefix)
            for screen in self.screens().values()
            for _, _, name in actions_in(screen.components)
        }
        return sorted(names)


def actions_in(components: list[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], str, str]]:
    """``(component, prop, action name)`` for every action any component sends."""
    specs = component_specs()
    for component in components:
        spec = specs.get(component.get("component", ""))
        for prop in spec.action_props if spec else ():
            action = component.get(prop)
            event = action.get("event") if isinstance(action, dict) else None
            name = event.get("name") if isinstance(event, dict) else None
            if isinstance(name, str):
                yield component, prop, name


def initial_domain_state(state_fields: dict[str, Any]) -> dict[str, Any]:
    """The data model a plugin starts from, with the given agent state fields under ``state``."""
    return {**dict.fromkeys(DATA_MODEL_TEXT_KEYS, ""), STATE_KEY: state_fields}
