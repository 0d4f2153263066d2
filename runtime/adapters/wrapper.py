"""The wrapper strategy: a message-based agent runs untouched inside one node.

What the user says becomes a ``HumanMessage`` appended to the agent's own conversation (its
``input_field``, normally ``messages``), which the runtime's checkpointer keeps per session; the
last AI message is the answer. After a ``restart`` the agent's conversation is cleared first.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, RemoveMessage
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from runtime.adapters.imported import AgentPlugin


class WrapperPlugin(AgentPlugin):
    """Base class of plugins that wrap a message-based agent."""

    def agent_input(self, text: str, *, fresh: bool) -> dict[str, Any]:
        messages: list[BaseMessage] = [RemoveMessage(id=REMOVE_ALL_MESSAGES)] if fresh else []
        return {
            **self.settled_inputs(fresh),
            self.agent.input_field: [*messages, HumanMessage(content=text)],
        }
