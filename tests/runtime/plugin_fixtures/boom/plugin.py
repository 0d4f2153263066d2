"""A plugin whose graph raises when the user says "boom", and keeps no screen in ``state["ui"]``."""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from runtime.contract.plugin import PluginBase
from runtime.contract.state import CommonState, event


class BoomPlugin(PluginBase):
    plugin_id = "boom"
    title = "Boom"

    def build_graph(self) -> StateGraph[Any]:
        graph = StateGraph(CommonState)
        graph.add_node("respond", respond)
        graph.add_edge(START, "respond")
        graph.add_edge("respond", END)
        return graph


def respond(state: CommonState) -> dict[str, Any]:
    transcript = state.get("transcript", "")
    if transcript == "boom":
        raise RuntimeError("secret internal detail 4929123412341234")
    return {"outbox": [event("server.voice.say", text=f"ok: {transcript or 'ready'}")]}
