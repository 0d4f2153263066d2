"""Answers every turn with two voice lines, an audit event, a screen and a transcript."""

from __future__ import annotations

import time
from typing import Any

from langgraph.graph import END, START, StateGraph

from runtime.contract.plugin import PluginBase
from runtime.contract.state import CommonState, ServerEventDict, event

from .screen import screen_messages


class EchoPlugin(PluginBase):
    plugin_id = "echo"
    title = "Echo"
    description = "Repeats what it hears."
    actions = ("press",)

    def initial_domain_state(self) -> dict[str, Any]:
        return {"turns": 0, "heard": []}

    def build_graph(self) -> StateGraph[Any]:
        graph = StateGraph(CommonState)
        graph.add_node("respond", respond)
        graph.add_edge(START, "respond")
        graph.add_edge("respond", END)
        return graph


def respond(state: CommonState) -> dict[str, Any]:
    domain = state["domain"]["echo"]
    turns = domain["turns"] + 1
    action = state.get("pendingAction")
    if action:
        heard = f"pressed {action['id']} {action['data']}"
    else:
        heard = state.get("transcript") or "welcome"
    if heard.startswith("slow"):
        time.sleep(0.2)  # long enough for a concurrent turn to overlap, were turns not serialised
    messages = screen_messages(heard, turns)
    outbox: list[ServerEventDict] = [
        event("server.voice.say", text=heard),
        event("server.audit.event", heard=heard, turn=turns),
        event("server.voice.say", text=f"turn {turns}"),
        *(event("server.a2ui.patch", **message) for message in messages),
        event("server.transcript.final", text=heard),
    ]
    return {
        "domain": {"echo": {"turns": turns, "heard": [*domain["heard"], heard]}},
        "ui": {"echo": messages},
        "outbox": outbox,
    }
