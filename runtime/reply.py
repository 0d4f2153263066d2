"""``reply``: the state update with which a plugin's graph answers a turn.

Every answer is the same four things, so plugins build it here rather than by hand: the screen's
A2UI patches, the line spoken (``server.voice.say``) and shown in the transcript pane
(``server.transcript.final``), the screen kept in ``state["ui"]`` so a resumed session can be
redrawn without running a turn (see ``runtime.turns.outbox.resume_events``), and the line appended
to ``messages``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage

from runtime.a2ui import Screen, load_screen, screen_events
from runtime.contract.state import CommonState, event


@dataclass(frozen=True)
class View:
    """What a plugin's view decides: a screen by name, the data model it binds to, and the
    fields its voice template (the screen's ``voice_text`` with ``{placeholders}``) is filled with.
    """

    screen: str
    data: dict[str, Any] | None = None
    voice: dict[str, str] = field(default_factory=dict)


def spoken_screen(
    screens: Path, plugin_id: str, view: View, notice: str | None = None
) -> tuple[Screen, str]:
    """The view's screen and its line: the voice template filled in, after a pending notice."""
    screen = load_screen(screens / f"{view.screen}.json", plugin_id=plugin_id)
    line = screen.voice_text.format_map(view.voice)
    return screen, f"{notice} {line}" if notice else line


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
