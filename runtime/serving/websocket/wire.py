"""The WebSocket frames: parsing what a client sends, encoding what the server sends.

Every problem with a client frame becomes a ``ProtocolError`` with a machine-readable ``code`` and a
message that says exactly what was wrong; the session answers it with ``server.error`` and goes on.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from enum import IntEnum

from pydantic import BaseModel, ValidationError

from runtime.contract.state import ServerEventDict
from runtime.redaction import dumps_redacted
from runtime.serving.quotes import describe
from runtime.serving.websocket.frames import CLIENT_PAYLOADS, Envelope

CLOSE_REASON_MAX_BYTES = 123  # RFC 6455: a close frame's reason fits in 123 bytes


class CloseCode(IntEnum):
    """Why the server closes a WebSocket (always after accepting it)."""

    UNKNOWN_AGENT = 4000
    BAD_QUERY = 4001
    OTHER_AGENTS_SESSION = 4002
    AGENT_UNAVAILABLE = 1011


class ProtocolError(Exception):
    """A client frame the server cannot use; ``code`` goes into ``server.error``."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class ClientMessage:
    """A validated client frame: its type, the session id it names (if any), its payload model."""

    type: str
    session_id: str | None
    payload: BaseModel


def parse_client_frame(text: str, *, max_bytes: int) -> ClientMessage:
    """Decode and validate one text frame; raise ``ProtocolError`` saying what is wrong."""
    size = len(text.encode("utf-8"))
    if size > max_bytes:
        raise ProtocolError(
            f"message of {size} bytes exceeds the limit of {max_bytes}", "too_large"
        )
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProtocolError(
            f"malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}", "bad_json"
        ) from None
    if not isinstance(data, dict):
        raise ProtocolError("a message must be a JSON object {type, payload}", "bad_envelope")
    try:
        envelope = Envelope.model_validate(data)
    except ValidationError as exc:
        raise ProtocolError(f"invalid envelope: {describe(exc)}", "bad_envelope") from None
    model = CLIENT_PAYLOADS.get(envelope.type)
    if model is None:
        expected = ", ".join(sorted(CLIENT_PAYLOADS))
        raise ProtocolError(
            f"unknown message type {envelope.type!r}; expected one of: {expected}", "unknown_type"
        )
    try:
        payload = model.model_validate(envelope.payload)
    except ValidationError as exc:
        raise ProtocolError(
            f"invalid payload for {envelope.type}: {describe(exc)}", "bad_payload"
        ) from None
    return ClientMessage(envelope.type, envelope.sessionId, payload)


def encode(item: ServerEventDict, session_id: str) -> str:
    """The JSON frame of one server event, its payload's card numbers masked
    (``runtime.redaction``): ``{"type", "ts", "sessionId", "payload"}``. The payload is encoded
    on its own, so the scan for card numbers reads the event's text, not the frame's timestamp."""
    kind, session, payload = json.dumps(item["type"]), json.dumps(session_id), item["payload"]
    ts = repr(time.time())  # as JSON writes a float
    return f'{{"type":{kind},"ts":{ts},"sessionId":{session},"payload":{dumps_redacted(payload)}}}'


def close_reason(text: str) -> str:
    """``text`` cut to fit a close frame (123 bytes of UTF-8), ending in an ellipsis if cut."""
    if len(text.encode("utf-8")) <= CLOSE_REASON_MAX_BYTES:
        return text
    budget = CLOSE_REASON_MAX_BYTES - len("…".encode())
    return text.encode("utf-8")[:budget].decode("utf-8", errors="ignore") + "…"
