"""Tools the client runs itself (an AG-UI frontend tool, a device tool over the WebSocket).

A plugin node asks whether the client offers a tool (``offered``) and calls it
(``call_client_tool``). The call is a LangGraph ``interrupt`` whose value is a ``ClientToolCall``:
the turn stops there, the transport hands the call to its client and resumes the interrupt with
the client's answer, and ``call_client_tool`` returns it. So the plugin is written once and each
transport decides how the answer comes back: the WebSocket waits for ``client.tool.result``
inside the turn; AG-UI ends the run with the call pending and continues on the next run that
carries the tool's result message. Like every LangGraph interrupt, the node runs again from its
start when resumed: do nothing before the call that must not happen twice.

A call that fails (the client reports an error, does not answer in time, or goes away) raises
``ClientToolError`` in the node, which handles it like any tool failure.
"""

from __future__ import annotations

import json
import uuid
from typing import Any, Literal

from langgraph.config import get_config
from langgraph.types import interrupt
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from runtime.turns import PendingInterrupt, run_extras
from runtime.turns.events import CLIENT_TOOL, is_client_tool_call


class ClientToolError(Exception):
    """The client could not run the tool; the message says why."""


class ClientToolCall(BaseModel):
    """The value of a client tool call's interrupt."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["client_tool"] = CLIENT_TOOL
    toolCallId: str = Field(default_factory=lambda: f"call_{uuid.uuid4().hex}")
    name: str
    args: dict[str, Any] = Field(default_factory=dict)


class ClientToolAnswer(BaseModel):
    """What resumes a client tool call: the tool's ``content``, or why it failed."""

    model_config = ConfigDict(extra="forbid")

    content: Any = None
    error: str | None = None


def offered(name: str) -> bool:
    """Whether the client of this run offers the tool ``name`` (call from inside a node)."""
    tools = run_extras(get_config()).client_tools
    return any(tool.get("name") == name for tool in tools)


def call_client_tool(name: str, args: dict[str, Any] | None = None) -> Any:
    """Run the client's tool ``name`` with ``args`` and return its result (JSON text decoded);
    ``ClientToolError`` when it fails. Call from inside a node."""
    call = ClientToolCall(name=name, args=args or {})
    answer = ClientToolAnswer.model_validate(interrupt(call.model_dump()))
    if answer.error is not None:
        raise ClientToolError(answer.error)
    return decoded(answer.content)


def decoded(content: Any) -> Any:
    """A tool result as sent: JSON text becomes its value, anything else is kept as it is."""
    if isinstance(content, str):
        try:
            return json.loads(content)
        except json.JSONDecodeError:
            return content
    return content


def client_tool_call(pending: PendingInterrupt) -> ClientToolCall | None:
    """The client tool call an interrupt stands for, or ``None`` for the plugin's own."""
    if not is_client_tool_call(pending):
        return None
    try:
        return ClientToolCall.model_validate(pending.value)
    except ValidationError:
        return None
