"""Drive a real plugin graph turn by turn as the runtime does, checking every screen it emits."""

from __future__ import annotations

import copy
import uuid
from functools import cache
from typing import Any

from a2ui.core import Catalog
from a2ui.utils import validate_payload
from langgraph.checkpoint.memory import InMemorySaver

from runtime.a2ui import create_surface_message, load_catalog, validate_components, validate_message
from runtime.a2ui.validate import MAX_VOICE_WORDS
from runtime.contract.plugin import PluginBase
from runtime.contract.state import ServerEventDict


@cache
def official_catalog() -> Any:
    """Our catalog as the official ``a2ui-agent-sdk`` reads it (a test-time check only)."""
    return Catalog.from_json(copy.deepcopy(load_catalog()))


def check_events(plugin_id: str, events: list[ServerEventDict]) -> None:
    """Every A2UI message valid (ours: schema, integrity, house rules; and the official validator
    on what a fresh connection would receive), every line short enough."""
    patches = [e["payload"] for e in events if e["type"] == "server.a2ui.patch"]
    validate_payload([official_catalog()], [create_surface_message(plugin_id), *patches])
    for item in events:
        check_event(plugin_id, item)


def check_frames(plugin_id: str, frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What a client received over the WebSocket: each event valid, never an audit event."""
    for frame in frames:
        assert frame["type"] != "server.audit.event"
        check_event(plugin_id, frame)
    return frames


def check_event(plugin_id: str, item: ServerEventDict | dict[str, Any]) -> None:
    """One event: valid A2UI (schema, integrity, house rules), or a line short enough to say."""
    payload = item["payload"]
    if item["type"] == "server.a2ui.patch":
        assert validate_message(payload) == [], payload
        if "updateComponents" in payload:
            components = payload["updateComponents"]["components"]
            assert validate_components(components, plugin_id=plugin_id) == []
    elif item["type"] in ("server.voice.say", "server.transcript.final"):
        assert 0 < len(payload["text"].split()) < MAX_VOICE_WORDS, payload["text"]


class Turns:
    """One session of ``plugin``: its graph compiled with an in-memory checkpointer."""

    def __init__(self, plugin: PluginBase) -> None:
        self.plugin = plugin
        self.graph = plugin.build_graph().compile(checkpointer=InMemorySaver())
        self.config: Any = {"configurable": {"thread_id": str(uuid.uuid4())}}
        self.state: dict[str, Any] = {}

    def run(self, update: dict[str, Any]) -> list[ServerEventDict]:
        """One turn as the runtime starts it (outbox cleared); returns the checked outbox."""
        self.state = self.graph.invoke({**update, "outbox": None}, self.config)
        assert self.state["pendingAction"] is None
        events: list[ServerEventDict] = self.state["outbox"]
        check_events(self.plugin.plugin_id, events)
        return events

    def start(self) -> list[ServerEventDict]:
        return self.run(dict(self.plugin.create_initial_state()))

    def say(self, text: str) -> list[ServerEventDict]:
        return self.run({"transcript": text, "pendingAction": None})

    def click(self, action: str, **data: Any) -> list[ServerEventDict]:
        action_id = self.plugin.action_id(action)
        assert self.plugin.validate_action(action_id, data) is None
        return self.run({"transcript": "", "pendingAction": {"id": action_id, "data": data}})

    @property
    def domain(self) -> dict[str, Any]:
        domain: dict[str, Any] = self.state["domain"][self.plugin.plugin_id]
        return domain


def voice(events: list[ServerEventDict] | list[dict[str, Any]]) -> str:
    """The one voice line of a turn."""
    (line,) = [e["payload"]["text"] for e in events if e["type"] == "server.voice.say"]
    return line


def screen_ids(events: list[ServerEventDict]) -> set[str]:
    """The component ids drawn this turn (a screen is known by its ids)."""
    return {
        component["id"]
        for e in events
        if e["type"] == "server.a2ui.patch" and "updateComponents" in e["payload"]
        for component in e["payload"]["updateComponents"]["components"]
    }


def data_model(events: list[ServerEventDict]) -> dict[str, Any]:
    """The data model sent this turn (``{}`` when the screen binds none)."""
    for e in events:
        if e["type"] == "server.a2ui.patch" and "updateDataModel" in e["payload"]:
            value: dict[str, Any] = e["payload"]["updateDataModel"]["value"]
            return value
    return {}
