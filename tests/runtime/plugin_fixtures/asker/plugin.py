"""Asks before it acts, with ``interrupt()``: one question, or two at once ("both").

Each answer is recorded in the plugin's domain state (``answers``), so a test sees what the
graph received on resume, and which question it answered.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any

from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt

from runtime.contract.plugin import PluginBase
from runtime.contract.state import CommonState, event

PAYEE = {
    "question": "Add Alex Smith as a payee?",
    "details": {"Name": "Alex Smith", "Sort code": "12-34-56"},
}
LIMIT = {"question": "Raise the daily limit?", "options": ["To 500", "To 1000", "Keep it"]}


class AskerState(CommonState, total=False):
    answers: Annotated[list[Any], operator.add]


class AskerPlugin(PluginBase):
    plugin_id = "asker"
    title = "Asker"

    def initial_domain_state(self) -> dict[str, Any]:
        return {"payees": []}

    def build_graph(self) -> StateGraph[Any]:
        graph = StateGraph(AskerState)
        graph.add_node("payee", add_payee)
        graph.add_node("limit", raise_limit)
        graph.add_node("done", done)
        graph.add_conditional_edges(START, route, ["payee", "limit", "done"])
        graph.add_edge("payee", "done")
        graph.add_edge("limit", "done")
        graph.add_edge("done", END)
        return graph


def route(state: AskerState) -> list[str]:
    text = state.get("transcript", "")
    if text == "both":
        return ["payee", "limit"]
    if text in ("payee", "limit"):
        return [text]
    return ["done"]


def add_payee(state: AskerState) -> dict[str, Any]:
    answer = interrupt(PAYEE)
    payees = state["domain"]["asker"]["payees"]
    added = [*payees, "Alex Smith"] if answer is True else payees
    return {"answers": [["payee", answer]], "domain": {"asker": {"payees": added}}}


def raise_limit(state: AskerState) -> dict[str, Any]:
    return {"answers": [["limit", interrupt(LIMIT)]]}


def done(state: AskerState) -> dict[str, Any]:
    payees = state["domain"]["asker"]["payees"]
    line = f"Payees: {', '.join(payees) or 'none'}."
    return {"outbox": [event("server.voice.say", text=line)]}
