"""What one client receives from a graph's outbox: pure functions, no I/O.

The rules, applied in this order:

1. ``server.audit.event`` never reaches the client; it is handed back separately for the audit log.
2. In text mode ``server.voice.say`` is dropped.
3. Consecutive ``server.voice.say`` events become one (texts joined by a space).
4. Before the first ``server.a2ui.patch`` for a surface on a connection, a ``createSurface`` for
   that surface is inserted (unless the plugin sent one itself).
5. After a graph run, ``server.agent.thinking`` false closes the batch, so a client knows the turn's
   events are complete (the session sends ``thinking`` true before the run).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from runtime.a2ui import create_surface_message
from runtime.a2ui.models import PROTOCOL_VERSION
from runtime.contract.state import Mode, ServerEventDict, event

AUDIT: Final = "server.audit.event"
VOICE: Final = "server.voice.say"
PATCH: Final = "server.a2ui.patch"


@dataclass(frozen=True)
class Delivery:
    """One batch: events for the client (in order), events for the audit log, open surfaces."""

    client: list[ServerEventDict]
    audit: list[ServerEventDict]
    surfaces: frozenset[str]


def thinking(on: bool) -> ServerEventDict:
    """The event bracketing a graph run."""
    return event("server.agent.thinking", thinking=on)


def prepare(events: Iterable[ServerEventDict], *, mode: Mode, surfaces: frozenset[str]) -> Delivery:
    """Apply rules 1-4 to ``events``; ``surfaces`` are those already created on the connection."""
    events = list(events)
    client = [e for e in events if e["type"] != AUDIT]
    if mode == "text":
        client = [e for e in client if e["type"] != VOICE]
    client, surfaces = open_surfaces(merge_voice(client), surfaces)
    return Delivery(client, [e for e in events if e["type"] == AUDIT], surfaces)


def turn_delivery(
    events: Iterable[ServerEventDict], *, mode: Mode, surfaces: frozenset[str]
) -> Delivery:
    """``prepare`` for the outbox of a graph run, closed by ``thinking`` false (rule 5)."""
    delivery = prepare(events, mode=mode, surfaces=surfaces)
    return Delivery([*delivery.client, thinking(False)], delivery.audit, delivery.surfaces)


def merge_voice(events: Iterable[ServerEventDict]) -> list[ServerEventDict]:
    """Join runs of consecutive voice events into one, keeping the first one's other fields."""
    merged: list[ServerEventDict] = []
    for item in events:
        previous = merged[-1] if merged else None
        if item["type"] == VOICE and previous is not None and previous["type"] == VOICE:
            text = f"{previous['payload'].get('text', '')} {item['payload'].get('text', '')}"
            merged[-1] = event(VOICE, **{**previous["payload"], "text": text.strip()})
        else:
            merged.append(item)
    return merged


def open_surfaces(
    events: Iterable[ServerEventDict], surfaces: frozenset[str]
) -> tuple[list[ServerEventDict], frozenset[str]]:
    """Insert ``createSurface`` before a surface's first patch; return the events and open set."""
    out: list[ServerEventDict] = []
    for item in events:
        if item["type"] == PATCH:
            kind, surface_id = patch_target(item["payload"])
            if kind == "createSurface":
                surfaces |= {surface_id}
            elif kind == "deleteSurface":
                surfaces -= {surface_id}
            elif surface_id and surface_id not in surfaces:
                out.append(event(PATCH, **create_surface_message(surface_id)))
                surfaces |= {surface_id}
        out.append(item)
    return out, surfaces


def resume_events(ui: Any) -> list[ServerEventDict]:
    """The patches that redraw the screens a plugin kept in ``state["ui"]``.

    The convention: ``state["ui"]`` maps a surface id to the list of A2UI v0.9 messages that draw
    its current screen (``updateComponents``, ``updateDataModel``). Anything else is ignored.
    """
    if not isinstance(ui, Mapping):
        return []
    return [
        event(PATCH, **message)
        for messages in ui.values()
        if isinstance(messages, list)
        for message in messages
        if isinstance(message, dict) and message.get("version") == PROTOCOL_VERSION
    ]


def patch_target(message: dict[str, Any]) -> tuple[str, str]:
    """The message kind (``updateComponents``, ...) and its surface id; empty when unreadable."""
    for kind, body in message.items():
        if kind != "version" and isinstance(body, dict):
            surface_id = body.get("surfaceId")
            return kind, surface_id if isinstance(surface_id, str) else ""
    return "", ""
