"""What a turn reports while it runs: typed engine events, read off LangGraph's stream.

The engine streams its graph with ``stream_mode=["messages", "updates", "values"]`` and
``subgraphs=True``; ``Translator`` turns the ``messages`` part into these events:

* ``TextDelta``: a piece of an assistant message (a model's token chunk, or a whole message a
  node wrote to ``messages`` when it was not streamed token by token);
* ``ToolCallStarted``, ``ToolCallArgs`` (the arguments' JSON text, in pieces), ``ToolCallEnded``:
  a tool call as the model writes it;
* ``ToolCallResult``: the tool's answer (a ``ToolMessage``);
* ``NodeFinished``: one node (of the plugin's graph or of a subgraph) has finished a step.

The last event of a turn is always ``TurnFinished`` carrying the ``TurnResult``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolMessage
from langgraph.types import Interrupt

if TYPE_CHECKING:
    from runtime.turns.engine import TurnResult


@dataclass(frozen=True)
class PendingInterrupt:
    """A LangGraph ``interrupt()`` (or a breakpoint) waiting for an answer: resume it by ``id``."""

    id: str
    value: Any


#: The ``kind`` of an interrupt's value that calls a tool the client runs
#: (``runtime.client_tools``): the transport answers it with the client's result, never a person.
CLIENT_TOOL: Final = "client_tool"


def is_client_tool_call(pending: PendingInterrupt) -> bool:
    return isinstance(pending.value, Mapping) and pending.value.get("kind") == CLIENT_TOOL


def pending(interrupts: Iterable[Interrupt]) -> tuple[PendingInterrupt, ...]:
    return tuple(PendingInterrupt(i.id, i.value) for i in interrupts)


@dataclass(frozen=True)
class TextDelta:
    message_id: str
    delta: str


@dataclass(frozen=True)
class ToolCallStarted:
    call_id: str
    name: str
    message_id: str


@dataclass(frozen=True)
class ToolCallArgs:
    call_id: str
    delta: str


@dataclass(frozen=True)
class ToolCallEnded:
    call_id: str


@dataclass(frozen=True)
class ToolCallResult:
    call_id: str
    content: str
    message_id: str


@dataclass(frozen=True)
class NodeFinished:
    node: str
    #: Where the node ran: ``()`` for the plugin's graph, else the subgraph's namespace.
    namespace: tuple[str, ...]


@dataclass(frozen=True)
class TurnFinished:
    result: TurnResult


EngineEvent = (
    TextDelta
    | ToolCallStarted
    | ToolCallArgs
    | ToolCallEnded
    | ToolCallResult
    | NodeFinished
    | TurnFinished
)


@dataclass
class Translator:
    """Turns one turn's ``messages`` stream into engine events (it keeps which calls are open)."""

    #: (message id, chunk index) -> tool call id: only a call's first chunk carries its id.
    _calls: dict[tuple[str, int], str] = field(default_factory=dict)
    _open: dict[str, None] = field(default_factory=dict)

    def message(self, message: BaseMessage) -> list[EngineEvent]:
        if isinstance(message, AIMessageChunk):
            return self._chunk(message)
        if isinstance(message, AIMessage):
            return self._whole(message)
        if isinstance(message, ToolMessage):
            ended = self._end(message.tool_call_id)
            content = str(message.text)
            return [*ended, ToolCallResult(message.tool_call_id, content, message.id or "")]
        return []

    def node_finished(self, node: str, namespace: tuple[str, ...]) -> list[EngineEvent]:
        """A finished node ends the tool calls its model left open."""
        return [*self._end(*self._open), NodeFinished(node, namespace)]

    def _chunk(self, chunk: AIMessageChunk) -> list[EngineEvent]:
        message_id = chunk.id or ""
        out: list[EngineEvent] = []
        if text := str(chunk.text):
            out.append(TextDelta(message_id, text))
        for part in chunk.tool_call_chunks:
            key = (message_id, part.get("index") or 0)
            call_id = self._calls.get(key)
            if call_id is None:
                call_id = part.get("id")
                if not call_id:
                    continue
                self._calls[key] = call_id
                self._open[call_id] = None
                out.append(ToolCallStarted(call_id, part.get("name") or "", message_id))
            if args := part.get("args"):
                out.append(ToolCallArgs(call_id, args))
        if chunk.chunk_position == "last":
            calls = [c for (m, _), c in self._calls.items() if m == message_id]
            out.extend(self._end(*calls))
        return out

    def _whole(self, message: AIMessage) -> list[EngineEvent]:
        message_id = message.id or ""
        out: list[EngineEvent] = []
        if text := str(message.text):
            out.append(TextDelta(message_id, text))
        for call in message.tool_calls:
            call_id = call.get("id") or ""
            out.append(ToolCallStarted(call_id, call["name"], message_id))
            out.append(ToolCallArgs(call_id, json.dumps(call["args"], default=str)))
            out.append(ToolCallEnded(call_id))
        return out

    def _end(self, *call_ids: str) -> list[EngineEvent]:
        ended = [call_id for call_id in call_ids if call_id in self._open]
        for call_id in ended:
            del self._open[call_id]
        return [ToolCallEnded(call_id) for call_id in ended]
