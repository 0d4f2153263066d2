"""The WebSocket's client frames: ``Envelope`` and the payload of each client event type.

``runtime.serving.websocket.wire`` parses a client's JSON frame into these, and writes the
server's frames in the same envelope.
"""

from __future__ import annotations

import time
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from runtime.contract.state import Mode


class Envelope(BaseModel):
    """A WebSocket frame ``{type, ts, sessionId, payload}``; clients may omit ts and sessionId."""

    model_config = ConfigDict(extra="forbid")

    type: str
    ts: float = Field(default_factory=time.time)
    sessionId: str | None = None
    payload: dict[str, Any] = Field(default_factory=dict)


class TranscriptFinal(BaseModel):
    """Payload of ``client.transcript.final``: what the user said or typed."""

    model_config = ConfigDict(extra="forbid")

    text: Annotated[str, Field(min_length=1, max_length=4000)]


class UiAction(BaseModel):
    """Payload of ``client.ui.action``: a button click, ``actionId`` namespaced by plugin."""

    model_config = ConfigDict(extra="forbid")

    actionId: Annotated[str, Field(min_length=1, max_length=200)]
    data: dict[str, Any] = Field(default_factory=dict)


class ModeUpdate(BaseModel):
    """Payload of ``client.mode.update``: voice or text, and the device the user is on."""

    model_config = ConfigDict(extra="forbid")

    mode: Mode
    device: str = "web"


class ClientTool(BaseModel):
    """A tool the client runs itself (a device tool), as it describes it to the agent."""

    model_config = ConfigDict(extra="forbid")

    name: Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$")]
    description: Annotated[str, Field(max_length=1000)] = ""
    #: The JSON Schema of the tool's arguments.
    parameters: dict[str, Any] = Field(default_factory=dict)


class ToolsRegister(BaseModel):
    """Payload of ``client.tools.register``: the connection's device tools (replaces the set)."""

    model_config = ConfigDict(extra="forbid")

    tools: Annotated[list[ClientTool], Field(max_length=32)]


class ToolResult(BaseModel):
    """Payload of ``client.tool.result``: a ``server.tool.call``'s ``content``, or its ``error``."""

    model_config = ConfigDict(extra="forbid")

    toolCallId: Annotated[str, Field(min_length=1, max_length=200)]
    content: Any = None
    error: Annotated[str, Field(min_length=1, max_length=1000)] | None = None

    @model_validator(mode="after")
    def _content_or_error(self) -> ToolResult:
        if ("content" in self.model_fields_set) == (self.error is not None):
            raise ValueError("send either content or error")
        return self


CLIENT_PAYLOADS: dict[str, type[BaseModel]] = {
    "client.transcript.final": TranscriptFinal,
    "client.ui.action": UiAction,
    "client.mode.update": ModeUpdate,
    "client.tools.register": ToolsRegister,
    "client.tool.result": ToolResult,
}
