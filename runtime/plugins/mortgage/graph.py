"""The mortgage agent as a LangGraph graph: listen (or act), then respond.

``START`` routes a button click to ``act`` and anything else to ``listen``; both update the
``Conversation`` and hand over to ``respond``, which draws the screen, speaks, and closes the
turn (``pendingAction`` and ``transcript`` cleared). The runtime compiles the graph with its
checkpointer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from langchain_core.messages import HumanMessage
from langgraph.graph import END, START, StateGraph

from runtime.contract.state import CommonState, plugin_domain, with_plugin_domain
from runtime.plugins.mortgage import PLUGIN_ID
from runtime.plugins.mortgage.dialogue import Conversation, act, hear
from runtime.plugins.mortgage.views import present
from runtime.reply import reply, spoken_screen

SCREENS = Path(__file__).with_name("screens")


def conversation_of(state: CommonState) -> Conversation:
    return Conversation.model_validate(plugin_domain(state, PLUGIN_ID))


def _with_conversation(state: CommonState, conversation: Conversation) -> dict[str, Any]:
    """The ``domain`` update storing ``conversation`` next to other plugins' fields."""
    return with_plugin_domain(state, PLUGIN_ID, conversation.model_dump(mode="json"))


def route(state: CommonState) -> Literal["act", "listen"]:
    return "act" if state.get("pendingAction") else "listen"


def listen_node(state: CommonState) -> dict[str, Any]:
    """Understand what the customer said this turn (nothing on a silent first turn)."""
    text = state.get("transcript") or ""
    if not text.strip():
        return {}
    update = _with_conversation(state, hear(conversation_of(state), text))
    return {**update, "messages": [HumanMessage(text)]}


def act_node(state: CommonState) -> dict[str, Any]:
    """Apply the button click the runtime has already checked with ``validate_action``."""
    action = state.get("pendingAction")
    assert action is not None, "route() only sends a pending action here"
    return _with_conversation(state, act(conversation_of(state), action))


def respond_node(state: CommonState) -> dict[str, Any]:
    """Draw the screen that answers the conversation, say its line, and close the turn."""
    conversation = conversation_of(state)
    view = present(conversation)
    screen, line = spoken_screen(SCREENS, PLUGIN_ID, view, conversation.notice)
    return {
        **reply(state, PLUGIN_ID, screen, line, view.data),
        **_with_conversation(state, conversation.model_copy(update={"notice": None})),
        "pendingAction": None,
        "transcript": "",
    }


def build_graph() -> StateGraph[Any]:
    """The uncompiled graph over ``CommonState``."""
    graph = StateGraph(CommonState)
    graph.add_node("listen", listen_node)
    graph.add_node("act", act_node)
    graph.add_node("respond", respond_node)
    graph.add_conditional_edges(START, route, ["act", "listen"])
    graph.add_edge("listen", "respond")
    graph.add_edge("act", "respond")
    graph.add_edge("respond", END)
    return graph
