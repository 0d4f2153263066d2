"""``LostCardPlugin``: a placeholder that says the agent is coming soon, with one valid screen."""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from runtime.a2ui import load_screen, screen_events
from runtime.contracts import CommonState, event
from runtime.plugin import PluginBase
from runtime.plugins.lost_card import DESCRIPTION, PLUGIN_ID, TITLE


class LostCardPlugin(PluginBase):
    plugin_id = PLUGIN_ID
    title = TITLE
    description = DESCRIPTION

    def build_graph(self) -> StateGraph[Any]:
        screen = load_screen(self.folder / "screens" / "coming_soon.json", plugin_id=PLUGIN_ID)

        def respond(state: CommonState) -> dict[str, Any]:
            patches = screen_events(PLUGIN_ID, screen)
            return {
                "outbox": [
                    *patches,
                    event("server.voice.say", text=screen.voice_text),
                    event("server.transcript.final", text=screen.voice_text),
                ],
                "ui": {PLUGIN_ID: [patch["payload"] for patch in patches]},
                "pendingAction": None,
                "transcript": "",
            }

        graph = StateGraph(CommonState)
        graph.add_node("respond", respond)
        graph.add_edge(START, "respond")
        graph.add_edge("respond", END)
        return graph
