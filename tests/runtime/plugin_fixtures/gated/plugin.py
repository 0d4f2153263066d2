"""Prepares a payment, then sends it: the policy stops before ``send_payment`` for approval."""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from runtime.contract.plugin import PluginBase
from runtime.contract.policy import RunPolicy
from runtime.contract.state import CommonState, event


class GatedPlugin(PluginBase):
    plugin_id = "gated"
    title = "Gated"
    run_policy = RunPolicy(interrupt_before=("send_payment",))

    def initial_domain_state(self) -> dict[str, Any]:
        return {"sent": 0}

    def build_graph(self) -> StateGraph[Any]:
        graph = StateGraph(CommonState)
        graph.add_node("prepare", prepare)
        graph.add_node("send_payment", send_payment)
        graph.add_conditional_edges(START, lambda s: "prepare" if s.get("transcript") else END)
        graph.add_edge("prepare", "send_payment")
        graph.add_edge("send_payment", END)
        return graph


def prepare(state: CommonState) -> dict[str, Any]:
    return {"outbox": [event("server.voice.say", text="Payment ready.")]}


def send_payment(state: CommonState) -> dict[str, Any]:
    sent = state["domain"]["gated"]["sent"] + 1
    return {
        "domain": {"gated": {"sent": sent}},
        "outbox": [event("server.voice.say", text=f"Payments sent: {sent}.")],
    }
