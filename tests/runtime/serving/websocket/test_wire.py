"""Client frames: every way a frame can be wrong gets a precise, one-line message."""

from __future__ import annotations

import json

import pytest

from runtime.contract.state import event
from runtime.serving.websocket.frames import ModeUpdate, TranscriptFinal, UiAction
from runtime.serving.websocket.wire import (
    CLOSE_REASON_MAX_BYTES,
    ProtocolError,
    close_reason,
    encode,
    parse_client_frame,
)


def frame(type_: str, **payload: object) -> str:
    return json.dumps({"type": type_, "payload": payload})


@pytest.mark.parametrize(
    ("text", "model"),
    [
        (frame("client.transcript.final", text="hi"), TranscriptFinal),
        (frame("client.ui.action", actionId="a.b", data={"x": 1}), UiAction),
        (frame("client.mode.update", mode="text", device="watch"), ModeUpdate),
    ],
)
def test_valid_frames_parse_to_their_payload_model(text: str, model: type) -> None:
    message = parse_client_frame(text, max_bytes=10_000)
    assert isinstance(message.payload, model)
    assert message.session_id is None


@pytest.mark.parametrize(
    ("text", "code", "fragment"),
    [
        ("{not json", "bad_json", "malformed JSON at line 1 column 2"),
        ("[1, 2]", "bad_envelope", "must be a JSON object"),
        ('{"payload": {}}', "bad_envelope", "type: Field required"),
        ('{"type": "x", "extra": 1}', "bad_envelope", "extra: Extra inputs are not permitted"),
        (frame("client.dance"), "unknown_type", "unknown message type 'client.dance'"),
        (frame("client.transcript.final"), "bad_payload", "text: Field required"),
        (frame("client.mode.update", mode="telepathy"), "bad_payload", "mode: Input should be"),
        ("x" * 2_000, "too_large", "message of 2000 bytes exceeds the limit of 1000"),
    ],
)
def test_bad_frames_say_what_is_wrong(text: str, code: str, fragment: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_client_frame(text, max_bytes=1000)
    assert caught.value.code == code
    assert fragment in str(caught.value)


def test_the_size_limit_counts_utf8_bytes() -> None:
    text = json.dumps(
        {"type": "client.transcript.final", "payload": {"text": "é" * 400}}, ensure_ascii=False
    )
    with pytest.raises(ProtocolError, match="exceeds"):
        parse_client_frame(text, max_bytes=len(text) + 10)


def test_encode_writes_the_envelope() -> None:
    frame_ = json.loads(encode(event("server.voice.say", text="hé"), "s1"))
    assert frame_["type"] == "server.voice.say"
    assert frame_["sessionId"] == "s1"
    assert frame_["payload"] == {"text": "hé"}
    assert isinstance(frame_["ts"], float)


def test_close_reasons_fit_a_close_frame() -> None:
    assert close_reason("short") == "short"
    long = close_reason("agent " + "é" * 200)
    assert len(long.encode()) <= CLOSE_REASON_MAX_BYTES
    assert long.endswith("…")
