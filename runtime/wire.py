"""The WebSocket frames: parsing what a client sends, encoding what the server sends.

Every problem with a client frame becomes a ``ProtocolError`` with a machine-readable ``code`` and a
message that says exactly what was wrong; the session answers it with ``server.error`` and goes on.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from pydantic import BaseModel, ValidationError

from runtime.contracts import CLIENT_PAYLOADS, Envelope, ServerEventDict
from runtime.redaction import redact_values

CLOSE_REASON_MAX_BYTES = 123  # RFC 6455: a close frame's reason fits in 123 bytes
#: How much of a client's text an error message quotes (see ``excerpt``).
EXCERPT_CHARS = 40


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
    """The JSON frame of one server event, card numbers masked (``runtime.redaction``)."""
    frame: dict[str, Any] = {
        "type": item["type"],
        "ts": time.time(),
        "sessionId": session_id,
        "payload": redact_values(item["payload"]),
    }
    return json.dumps(frame, separators=(",", ":"), ensure_ascii=False)


def describe(exc: ValidationError, limit: int = 3) -> str:
    """Pydantic errors as ``field: problem; ...`` (the first few).

    A key the client made up (an extra field, a dict's key) shows as it is when short and
    printable, else as an ``excerpt``.
    """
    parts = [
        f"{'.'.join(map(_field, err['loc'])) or '(root)'}: {err['msg']}"
        for err in exc.errors()[:limit]
    ]
    return "; ".join(parts)


def excerpt(text: str) -> str:
    """``text`` as a one-line error quotes what a client sent: ``repr``-escaped (no newline or
    control character gets through), its first ``EXCERPT_CHARS`` characters, "…" if cut."""
    return repr(text[:EXCERPT_CHARS]) + ("…" if len(text) > EXCERPT_CHARS else "")


def _field(part: int | str) -> str:
    if isinstance(part, int) or (part.isprintable() and len(part) <= EXCERPT_CHARS):
        return str(part)
    return excerpt(part)


def close_reason(text: str) -> str:
    """``text`` cut to fit a close frame (123 bytes of UTF-8), ending in an ellipsis if cut."""
    if len(text.encode("utf-8")) <= CLOSE_REASON_MAX_BYTES:
        return text
    budget = CLOSE_REASON_MAX_BYTES - len("…".encode())
    return text.encode("utf-8")[:budget].decode("utf-8", errors="ignore") + "…"
