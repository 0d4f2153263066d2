"""``reply``: the state update with which a plugin's graph answers a turn.

Every answer is the same four things, so plugins build it here rather than by hand: the screen's
A2UI patches, the line spoken (``server.voice.say``) and shown in the transcript pane
(``server.transcript.final``), the screen kept in ``state["ui"]`` so a resumed session can be
redrawn without running a turn (see ``runtime.outbox.resume_events``), and the line appended to
``messages``.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage

from runtime.a2ui import Screen, screen_events
from runtime.contracts import CommonState, event


def reply(
    state: CommonState,
    plugin_id: str,
    screen: Screen,
    line: str,
    data: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Show ``screen`` (bound to ``data``) on the plugin's surface and say ``line``."""
    shown = show_screen(state, plugin_id, screen, data)
    said = [event("server.voice.say", text=line), event("server.transcript.final", text=line)]
    return {**shown, "outbox": [*shown["outbox"], *said], "messages": [AIMessage(line)]}


def show_screen(
    state: CommonState, plugin_id: str, screen: Screen, data: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Only the screen: its patches, and the copy in ``state["ui"]`` a resume redraws from."""
    patches = screen_events(plugin_id, screen, data)
    return {
        "outbox": patches,
        "ui": {**(state.get("ui") or {}), plugin_id: [patch["payload"] for patch in patches]},
    }
