"""The official-client harness itself: it must fail where the client would let a bug through.

A tiny server replays canned event streams (real uvicorn on 127.0.0.1), so each failure the AG-UI
tests rely on is shown to be caught: a stream that just stops, an event the client warns about,
an HTTP error.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.responses import Response, StreamingResponse

from runtime.serving.launch import serve_in_thread
from runtime.settings import Settings
from tests.runtime.serving.agui.official_client import AguiClient

STARTED = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
FINISHED = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
TEXT = [
    {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hello"},
    {"type": "TEXT_MESSAGE_END", "messageId": "m"},
]
STREAMS: dict[str, list[dict[str, Any]]] = {
    "good": [STARTED, *TEXT, FINISHED],
    "cut": [STARTED, *TEXT],
    "unknown_field": [STARTED, {**TEXT[0], "colour": "red"}, *TEXT[1:], FINISHED],
    "content_before_start": [STARTED, TEXT[1], FINISHED],
}


@pytest.fixture(scope="module")
def canned() -> Iterator[str]:
    app = FastAPI()

    @app.post("/{name}")
    async def replay(name: str) -> Response:
        if name not in STREAMS:
            return Response(status_code=404)
        body = "".join(f"data: {json.dumps(item)}\n\n" for item in STREAMS[name])
        return StreamingResponse(iter([body]), media_type="text/event-stream")

    settings = Settings(port=0, log_level="WARNING")
    with serve_in_thread(app, settings) as address:
        yield f"http://{address}"


def scenario(url: str) -> dict[str, Any]:
    return {"url": url, "threadId": "t", "steps": [{"say": "hi"}]}


def test_a_well_formed_run_is_reported(canned: str, agui_client: AguiClient) -> None:
    report = agui_client(scenario(f"{canned}/good"))
    (run,) = report["runs"]
    assert [e["type"] for e in run["events"]] == [e["type"] for e in STREAMS["good"]]
    assert report["messages"][-1] == {"id": "m", "role": "assistant", "content": "hello"}


@pytest.mark.parametrize(
    ("stream", "complaint"),
    [
        ("cut", "stream ended without RUN_FINISHED or RUN_ERROR"),
        ("unknown_field", "client warning"),
        ("content_before_start", "rejected"),
        ("missing", "rejected: HTTP 404"),
    ],
)
def test_what_the_client_lets_through_fails(
    canned: str, agui_client: AguiClient, stream: str, complaint: str
) -> None:
    with pytest.raises(AssertionError, match=complaint):
        agui_client(scenario(f"{canned}/{stream}"))
