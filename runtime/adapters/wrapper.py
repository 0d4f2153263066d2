"""The wrapper strategy: a message-based agent runs untouched inside one node.

What the user says becomes a ``HumanMessage`` appended to the agent's own conversation (its
``input_field``, normally ``messages``), which the runtime's checkpointer keeps per session; the
last AI message is the answer. After a ``restart`` the agent's conversation is cleared first.
The client's results of frontend tools the agent called are appended as ``ToolMessage``s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from langchain_core.messages import BaseMessage, HumanMessage, RemoveMessage, ToolMessage
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from runtime.adapters.imported import AgentPlugin


class WrapperPlugin(AgentPlugin):
    """Base class of plugins that wrap a message-based agent."""

    reads_tool_results: ClassVar[bool] = True

    def agent_input(self, text: str, *, fresh: bool) -> Any:
        """The user's words as the graph takes them (``agent.json`` ``input_shape``): a human
        message under its input field, or, for a functional-API entrypoint, a bare list of
        messages or the text itself (its ``previous`` is its own to keep)."""
        said = HumanMessage(content=text)
        if self.agent.input_shape == "messages":
            return [said]
        if self.agent.input_shape == "text":
            return text
        messages: list[BaseMessage] = [RemoveMessage(id=REMOVE_ALL_MESSAGES)] if fresh else []
        return {**self.settled_inputs(fresh), self.agent.input_field: [*messages, said]}

    def tool_input(self, results: list[Mapping[str, Any]]) -> Any:
        messages = [
            ToolMessage(
                content=result["content"],
                tool_call_id=result["toolCallId"],
                id=f"tool-result-{result['toolCallId']}",
            )
            for result in results
        ]
        if self.agent.input_shape == "messages":
            return messages
        return {self.agent.input_field: messages}
