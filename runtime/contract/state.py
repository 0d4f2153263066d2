"""The state a plugin's graph runs on, and the events its nodes write for the client.

* ``CommonState`` is the LangGraph state every plugin graph runs on. A plugin keeps its own fields
  under ``state["domain"][plugin_id]`` so two plugins never collide.
* ``ServerEventDict`` (built by ``event()``) is what a graph node appends to ``outbox``; the
  runtime delivers the outbox to the client after the run (see ``runtime.turns.outbox``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, cast, get_args

from langchain_core.messages import AnyMessage
from langgraph.graph.message import Messages, add_messages

# pydantic builds models of these only from typing_extensions' TypedDict before Python 3.12 (AG-UI
# servers such as ag-ui-langgraph derive schemas from a graph's state).
from typing_extensions import TypedDict

Mode = Literal["voice", "text"]

ServerEventType = Literal[
    "server.a2ui.patch",
    "server.voice.say",
    "server.transcript.final",
    "server.agent.thinking",
    "server.error",
    "server.audit.event",
    "server.tool.call",
]
SERVER_EVENT_TYPES: tuple[str, ...] = get_args(ServerEventType)


class ServerEventDict(TypedDict):
    """A server event as it sits in the graph state (plain data, checkpointer friendly)."""

    type: str
    payload: dict[str, Any]


def merge_outbox(
    left: list[ServerEventDict] | None, right: list[ServerEventDict] | None
) -> list[ServerEventDict]:
    """Reducer for ``outbox``: nodes append; writing ``None`` clears it (the runtime, per turn)."""
    if right is None:
        return []
    return [*(left or []), *right]


#: Messages a session keeps in ``CommonState.messages``, the latest ones: the log is for the
#: plugin's own use, and a checkpoint that grew by a message or two every turn made each turn of a
#: long session slower than the last (a mortgage turn took 8 ms at turn 10, 36 ms at turn 400).
MAX_MESSAGES = 100


def recent_messages(left: Messages, right: Messages) -> list[AnyMessage]:
    """Reducer for ``messages``: ``add_messages`` (ids, updates, removals), then the latest
    ``MAX_MESSAGES`` only."""
    merged = cast(list[AnyMessage], add_messages(left, right))
    return merged[-MAX_MESSAGES:]


class PendingAction(TypedDict):
    """A button click waiting for the graph: ``id`` is always ``<plugin_id>.<action>``."""

    id: str
    data: dict[str, Any]


class CommonState(TypedDict, total=False):
    """The state every plugin graph runs on; the runtime's checkpointer keeps it per session."""

    mode: Mode
    device: str
    transcript: str
    messages: Annotated[list[AnyMessage], recent_messages]
    ui: dict[str, Any]
    errors: list[str]
    pendingAction: PendingAction | None
    outbox: Annotated[list[ServerEventDict], merge_outbox]
    meta: dict[str, Any]
    #: What the session has spent, kept by the runtime: ``{"tokens": n}`` (see RunPolicy).
    usage: dict[str, int]
    domain: dict[str, dict[str, Any]]
    state_version: int


def plugin_domain(state: CommonState, plugin_id: str) -> dict[str, Any]:
    """A copy of ``plugin_id``'s own fields (``state["domain"][plugin_id]``)."""
    return dict((state.get("domain") or {}).get(plugin_id) or {})


def with_plugin_domain(
    state: CommonState, plugin_id: str, fields: dict[str, Any]
) -> dict[str, Any]:
    """The state update storing ``fields`` as ``plugin_id``'s, next to other plugins' fields."""
    return {"domain": {**(state.get("domain") or {}), plugin_id: fields}}


def event(type_: ServerEventType, **payload: Any) -> ServerEventDict:
    """Build an outbox entry; nodes return ``{"outbox": [event(...), ...]}``."""
    return {"type": type_, "payload": payload}
