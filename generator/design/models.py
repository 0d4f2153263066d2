"""``Design``: what the design step hands to the import step (the contract of ``design --json``).

A design holds four A2UI screens, the field mapping between the user and the agent's state, the
plugin's initial domain state, and where it all came from. ``DESIGN_VERSION`` changes when a key
changes meaning; new keys may be added.

The data model contract: an imported plugin publishes its domain state
(``state["domain"][plugin_id]``) as the surface's A2UI data model, so screens bind to its keys:

* ``/question``: what the user last asked (text of the input field);
* ``/answer``: the agent's answer (text of the output field; the last AI message for agents that
  speak in messages);
* ``/error``: what went wrong, on the error screen;
* ``/state/<field>``: a field of the agent's state as the agent last returned it.

``initial_domain_state`` holds exactly those keys, and every binding in every screen must resolve
in it, so a screen never waits for data the plugin will not send.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from runtime.a2ui.catalog import component_specs
from runtime.a2ui.models import Screen

DESIGN_VERSION = 1

ScreenName = Literal["welcome", "collecting", "result", "error"]
SCREEN_NAMES: tuple[ScreenName, ...] = ("welcome", "collecting", "result", "error")

#: What each screen is for (told to the model, shown in ``--help``-like summaries).
SCREEN_PURPOSES: dict[ScreenName, str] = {
    "welcome": "first turn: who the agent is, what it does, what the user can say",
    "collecting": "while the agent works on the user's request",
    "result": "the agent's answer, bound to /answer, with useful state fields",
    "error": "the agent failed; bound to /error, offers to try again",
}

#: The only actions an imported plugin handles; screens may use them as ``<plugin_id>.<name>``.
STANDARD_ACTIONS: dict[str, str] = {
    "restart": "start again from the welcome screen",
    "retry": "run the user's last request again",
}

#: Top-level keys of the data model (see the module docstring), with their initial values.
DATA_MODEL_TEXT_KEYS = ("question", "answer", "error")
STATE_KEY = "state"

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
