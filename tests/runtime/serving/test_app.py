"""The WebSocket session over a real uvicorn on 127.0.0.1."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any
from uuid import UUID

import httpx
import pytest
from langchain_core.callbacks import BaseCallbackHandler
from websockets.exceptions import ConnectionClosed

from runtime.a2ui import CATALOG_ID
from runtime.testing.client import RuntimeClient


def types(frames: list[dict[str, Any]]) -> list[str]:
    return [f["type"] for f in frames]


def errors(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [f["payload"] for f in frames if f["type"] == "server.error"]


def closed_with(client: RuntimeClient) -> tuple[int, str]:
    with pytest.raises(ConnectionClosed) as caught:
        client.receive()
    assert caught.value.rcvd is not None
    return caught.value.rcvd.code, caught.value.rcvd.reason


def test_a_new_session_gets_the_welcome_turn(server: str) -> None:
    with RuntimeClient(server, agent="echo") as client:
        frames = client.receive_turn()
    assert types(frames) == [
        "server.agent.thinking",
        "server.voice.say",
        "server.a2ui.patch",
        "server.a2ui.patch",
        "server.a2ui.patch",
        "server.transcript.final",
        "server.agent.thinking",
    ]
    assert frames[0]["payload"] == {"thinking": True}
    assert frames[1]["payload"] == {"text": "welcome turn 1"}
    assert frames[2]["payload"]["createSurface"] == {"surfaceId": "echo", "catalogId": CATALOG_ID}
    assert frames[-1]["payload"] == {"thinking": False}
    session_ids = {f["sessionId"] for f in frames}
    assert len(session_ids) == 1
    assert UUID(session_ids.pop())


def test_the_default_agent_is_used_without_a_query(server: str) -> None:
    with RuntimeClient(server) as client:
        assert client.receive_turn()[1]["payload"]["text"] == "welcome turn 1"


def test_a_turn_runs_the_graph_and_create_surface_is_sent_once(server: str) -> None:
    with RuntimeClient(server, agent="echo") as client:
        client.receive_turn()
        frames = client.say("hello there")
    assert types(frames).count("server.a2ui.patch") == 2
    assert all("createSurface" not in f["payload"] for f in frames)
    assert frames[1]["payload"] == {"text": "hello there turn 2"}
    assert client.surfaces["echo"].data == {"heard": "hello there", "turns": 2}


@pytest.mark.parametrize("agent", ["nope", "bad_import"])
def test_an_unknown_or_broken_agent_is_closed_with_4000_listing_the_agents(
    server: str, agent: str
) -> None:
    with RuntimeClient(server, agent=agent) as client:
        code, reason = closed_with(client)
    assert code == 4000
    assert reason == f"unknown agent {agent!r}; available: boom, echo"


@pytest.mark.parametrize(
    ("query", "fragment"),
    [({"session_id": "has space"}, "bad query: sessionId"), ({"mode": "loud"}, "bad query: mode")],
)
def test_a_bad_query_is_closed_with_4001(server: str, query: dict[str, str], fragment: str) -> None:
    with RuntimeClient(server, agent="echo", **query) as client:
        code, reason = closed_with(client)
    assert code == 4001
    assert reason.startswith(fragment)


@pytest.mark.parametrize(
    ("frame", "code", "fragment"),
    [
        ("{oops", "bad_json", "malformed JSON"),
        ('{"type": "client.sing", "payload": {}}', "unknown_type", "unknown message type"),
        ('{"type": "client.transcript.final", "payload": {}}', "bad_payload", "text: Field"),
        ('{"type": "client.transcript.final"}', "bad_payload", "text: Field required"),
        (
            json.dumps({"type": "client.transcript.final", "payload": {"text": "x" * 70_000}}),
            "too_large",
            "exceeds the limit of 65536",
        ),
        (
            '{"type": "client.transcript.final", "sessionId": "other", "payload": {"text": "x"}}',
            "session_mismatch",
            "'other' is not this connection's session",
        ),
    ],
)
def test_a_bad_frame_gets_an_error_and_the_session_goes_on(
    server: str, frame: str, code: str, fragment: str
) -> None:
    with RuntimeClient(server, agent="echo") as client:
        client.receive_turn()
        client.send_raw(frame)
        error = client.receive()
        assert error["type"] == "server.error"
        assert error["payload"]["code"] == code
        assert fragment in error["payload"]["message"]
        assert client.say("still here")[1]["payload"]["text"] == "still here turn 2"


def test_a_binary_frame_gets_an_error(server: str) -> None:
    with RuntimeClient(server, agent="echo") as client:
        client.receive_turn()
        client.connection.send(b"\x00\x01")
        assert client.receive()["payload"]["message"].startswith("binary frames are not supported")


def test_a_plugin_exception_is_an_error_without_details_and_the_session_goes_on(
    server: str, caplog: pytest.LogCaptureFixture
) -> None:
    with RuntimeClient(server, agent="boom") as client:
        client.receive_turn()
        frames = client.say("boom")
        assert types(frames) == [
            "server.agent.thinking",
            "server.error",
            "server.agent.thinking",
        ]
        assert errors(frames) == [
            {
                "message": "The Boom agent could not handle that. Please try again.",
                "code": "agent_error",
            }
        ]
        assert "4929" not in json.dumps(frames)
        assert client.say("again")[1]["payload"] == {"text": "ok: again"}
    failure = next(r for r in caplog.records if "agent 'boom' failed" in r.getMessage())
    assert failure.levelno == logging.ERROR
    assert failure.exc_info is not None


def test_text_mode_suppresses_voice(server: str) -> None:
    with RuntimeClient(server, agent="echo", mode="text") as client:
        assert "server.voice.say" not in types(client.receive_turn())
        client.send("client.mode.update", mode="voice", device="phone")
        assert "server.voice.say" in types(client.say("now speak"))
        client.send("client.mode.update", mode="text")
        assert "server.voice.say" not in types(client.say("quiet"))


def test_audit_events_go_to_the_audit_file_not_the_client(
    start_server: Any, tmp_path: Path
) -> None:
    audit_file = tmp_path / "audit" / "events.jsonl"
    with (
        start_server(audit_file=audit_file) as address,
        RuntimeClient(address, agent="echo") as client,
    ):
        frames = [*client.receive_turn(), *client.say("hi")]
    assert "server.audit.event" not in types(frames)
    entries = [json.loads(line) for line in audit_file.read_text().splitlines()]
    assert [e["event"] for e in entries] == [
        {"heard": "welcome", "turn": 1},
        {"heard": "hi", "turn": 2},
    ]
    assert {e["sessionId"] for e in entries} == {client.session_id}
    assert {e["agentId"] for e in entries} == {"echo"}


def test_a_click_becomes_the_pending_action(server: str) -> None:
    with RuntimeClient(server, agent="echo") as client:
        client.receive_turn()
        [button] = client.surfaces["echo"].clickables()
        frames = client.click(button)
    assert frames[1]["payload"]["text"] == "pressed echo.press {'turn': 1} turn 2"


def test_action_namespace_rules_over_the_wire(
    server: str, caplog: pytest.LogCaptureFixture
) -> None:
    with RuntimeClient(server, agent="echo") as client:
        client.receive_turn()
        client.send("client.ui.action", actionId="press", data={})
        assert client.receive_turn()[1]["payload"]["text"] == "pressed echo.press {} turn 2"
        client.send("client.ui.action", actionId="boom.press", data={})
        rejected = client.receive()
        client.send("client.ui.action", actionId="echo.fly", data={})
        unknown = client.receive()
    assert "deprecated bare action id 'press'" in caplog.text
    assert rejected["payload"] == {
        "message": "action 'boom.press' belongs to 'boom', not to agent 'echo'",
        "code": "action_rejected",
    }
    assert unknown["payload"]["message"] == "unknown action 'echo.fly' for agent 'echo'"


class RecordingHandler(BaseCallbackHandler):
    """A stand-in for a tracing handler: keeps the metadata of each top-level run."""

    def __init__(self) -> None:
        self.metadata: list[dict[str, Any]] = []

    def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
        if kwargs.get("parent_run_id") is None:
            self.metadata.append(kwargs.get("metadata") or {})


def test_runs_carry_session_and_agent_metadata_to_callbacks(start_server: Any) -> None:
    handler = RecordingHandler()
    with (
        start_server(callbacks=[handler]) as address,
        RuntimeClient(address, agent="echo") as client,
    ):
        client.receive_turn()
        client.say("hi")
    assert len(handler.metadata) == 2
    for metadata in handler.metadata:
        assert metadata["session_id"] == client.session_id
        assert metadata["agent_id"] == "echo"


def test_health_and_plugins(server: str) -> None:
    health = httpx.get(f"http://{server}/health").json()
    assert health == {
        "status": "ok",
        "plugins": ["boom", "echo"],
        "broken": ["bad_import", "bad_syntax", "wrong_id"],
    }
    plugins = httpx.get(f"http://{server}/plugins").json()
    assert plugins["plugins"]["echo"]["actions"] == ["echo.press"]
    assert plugins["broken"]["wrong_id"].startswith("plugin_id 'something_else'")


def test_two_connections_to_one_session_take_turns(server: str) -> None:
    with RuntimeClient(server, agent="echo") as first:
        first.receive_turn()
        with RuntimeClient(server, agent="echo", session_id=first.session_id) as second:
            [second.receive() for _ in range(3)]  # the redraw of the current screen
            first.send("client.transcript.final", text="slow one")
            second.send("client.transcript.final", text="slow two")
            said = [
                first.receive_turn()[1]["payload"]["text"],
                second.receive_turn()[1]["payload"]["text"],
            ]
    assert sorted(said) == ["slow one turn 2", "slow two turn 3"] or sorted(said) == [
        "slow one turn 3",
        "slow two turn 2",
    ]


def test_a_client_leaving_mid_turn_does_not_break_the_server_and_the_turn_is_kept(
    server: str, caplog: pytest.LogCaptureFixture
) -> None:
    with RuntimeClient(server, agent="echo") as client:
        client.receive_turn()
        client.send("client.transcript.final", text="slow goodbye")
        assert client.receive()["payload"] == {"thinking": True}  # the turn has started
    with RuntimeClient(server, agent="echo", session_id=client.session_id) as again:
        redraw = [again.receive() for _ in range(3)]
    # the turn finished without its client and was kept: the reconnected client is shown it
    assert redraw[2]["payload"]["updateDataModel"]["value"] == {
        "heard": "slow goodbye",
        "turns": 2,
    }
    assert not [
        r for r in caplog.records if r.levelno >= logging.ERROR and r.name != "runtime.discovery"
    ]
