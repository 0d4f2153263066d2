"""Device tools over the WebSocket, with lost_card's ``get_location``, over a real uvicorn.

The turn waits for ``client.tool.result`` while the connection keeps reading frames; an unanswered
call fails after the (short, here) timeout, a disconnect cancels it, a wrong or repeated id
changes nothing, and one connection's tools never reach another session.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

import pytest

from runtime.serving.app import create_app
from runtime.serving.launch import serve_in_thread
from runtime.settings import Settings
from runtime.testing.client import RuntimeClient
from tests.runtime.plugins.turns import voice

AGENT = "lost_card"
TIMEOUT_S = 0.5
GET_LOCATION = {"name": "get_location", "description": "Where the device is.", "parameters": {}}
LIVERPOOL = {"lat": 53.4084, "lon": -2.9916}
ASK_TOWN = "Which town or postcode are you near? I'll find your nearest branch."


@contextmanager
def serving(timeout_s: float) -> Iterator[str]:
    """The project's plugins; device tools time out after ``timeout_s``."""
    settings = Settings(port=0, client_tool_timeout_s=timeout_s)
    with serve_in_thread(create_app(settings, callbacks=[]), settings) as address:
        yield address


@pytest.fixture
def server() -> Iterator[str]:
    with serving(TIMEOUT_S) as address:
        yield address


@contextmanager
def connected(server: str, *tools: dict[str, Any]) -> Iterator[RuntimeClient]:
    """A new lost_card session past its welcome turn, with ``tools`` registered."""
    with RuntimeClient(server, agent=AGENT) as client:
        client.receive_turn()
        client.send("client.tools.register", tools=list(tools))
        yield client


def ask_for_a_branch(client: RuntimeClient) -> dict[str, Any]:
    """Ask for the nearest branch; the ``server.tool.call`` the turn waits on."""
    client.send("client.transcript.final", text="where's my nearest branch?")
    assert client.receive()["payload"] == {"thinking": True}
    call = client.receive()
    assert call["type"] == "server.tool.call"
    return call["payload"]


def errors(frames: list[dict[str, Any]]) -> list[str]:
    return [f["payload"]["code"] for f in frames if f["type"] == "server.error"]


def test_an_answered_call_names_the_nearest_branch(server: str) -> None:
    with connected(server, GET_LOCATION) as client:
        call = ask_for_a_branch(client)
        assert call["name"] == "get_location"
        assert call["args"] == {}
        client.send("client.tool.result", toolCallId=call["toolCallId"], content=LIVERPOOL)
        frames = client.receive_turn()
    assert voice(frames).startswith("Your nearest branch is Manchester King Street")
    assert errors(frames) == []


def test_an_unanswered_call_fails_after_the_timeout_and_releases_the_turn(server: str) -> None:
    with connected(server, GET_LOCATION) as client:
        call = ask_for_a_branch(client)
        frames = client.receive_turn()  # nothing sent: the timeout answers
        assert voice(frames) == f"I couldn't get your location. {ASK_TOWN}"
        client.send("client.tool.result", toolCallId=call["toolCallId"], content=LIVERPOOL)
        assert errors([client.receive()]) == ["unknown_tool_call"]  # too late: changes nothing
        assert voice(client.say("Leeds")).startswith("Your nearest branch is Leeds Briggate")


def test_a_wrong_or_repeated_id_gets_an_error_and_changes_nothing(server: str) -> None:
    with connected(server, GET_LOCATION) as client:
        call = ask_for_a_branch(client)
        client.send("client.tool.result", toolCallId="call_nobody_made", content={"lat": 0})
        assert errors([client.receive()]) == ["unknown_tool_call"]
        client.send("client.tool.result", toolCallId=call["toolCallId"], content=LIVERPOOL)
        frames = client.receive_turn()
        assert voice(frames).startswith("Your nearest branch is Manchester King Street")
        client.send("client.tool.result", toolCallId=call["toolCallId"], content={"lat": 51.5})
        assert errors([client.receive()]) == ["unknown_tool_call"]


def test_a_tool_error_is_handled_by_the_plugin(server: str) -> None:
    with connected(server, GET_LOCATION) as client:
        call = ask_for_a_branch(client)
        client.send("client.tool.result", toolCallId=call["toolCallId"], error="permission denied")
        assert voice(client.receive_turn()) == f"I couldn't get your location. {ASK_TOWN}"


def test_a_disconnect_cancels_the_call_and_the_session_goes_on() -> None:
    """The call fails when its device leaves; the turn goes on without it (asking for a town)
    and is kept, so the reconnected client is shown that question, and the session goes on."""
    with serving(timeout_s=60) as server:  # only the disconnect can release the turn in time
        with connected(server, GET_LOCATION) as client:
            ask_for_a_branch(client)
            session_id = client.session_id
        with RuntimeClient(server, agent=AGENT, session_id=session_id, timeout=5) as again:
            redraw = [again.receive()]
            again.timeout = 1
            with suppress(TimeoutError):
                while True:
                    redraw.append(again.receive())
            again.timeout = 5
            frames = again.say("Bristol")
    assert "server.tool.call" not in [f["type"] for f in redraw]
    assert ASK_TOWN in json.dumps(redraw)
    assert voice(frames).startswith("Your nearest branch is Bristol Corn Street")


def test_one_connections_tools_never_reach_another_session(server: str) -> None:
    with (
        connected(server, GET_LOCATION),
        RuntimeClient(server, agent=AGENT) as other,
    ):
        other.receive_turn()
        frames = other.say("where's my nearest branch?")
    assert "server.tool.call" not in [f["type"] for f in frames]
    assert voice(frames) == ASK_TOWN


def test_a_bad_registration_is_refused(server: str) -> None:
    with RuntimeClient(server, agent=AGENT) as client:
        client.receive_turn()
        client.send("client.tools.register", tools=[{"name": "no spaces allowed"}])
        assert errors([client.receive()]) == ["bad_payload"]
        client.send("client.tool.result", toolCallId="x", content=1, error="both")
        assert errors([client.receive()]) == ["bad_payload"]


CONFIRM_BIOMETRIC = {"name": "confirm_biometric", "description": "Fingerprint or face check."}
FRAUD = "there are payments on my card I didn't make"


def test_a_biometric_check_stands_in_for_the_card_digits(server: str) -> None:
    with connected(server, CONFIRM_BIOMETRIC) as client:
        client.send("client.transcript.final", text=FRAUD)
        client.receive()  # thinking
        call = client.receive()
        assert call["type"] == "server.tool.call"
        assert call["payload"]["name"] == "confirm_biometric"
        client.send("client.tool.result", toolCallId=call["payload"]["toolCallId"],
                    content={"verified": True})  # fmt: skip
        frames = client.receive_turn()
        assert "challenge_card" not in client.surfaces[AGENT].components
    assert "Thank you, that matches." in voice(frames)
    assert "Shall I freeze your card now?" in voice(frames)


def test_a_failed_biometric_check_falls_back_to_the_digits(server: str) -> None:
    with connected(server, CONFIRM_BIOMETRIC) as client:
        client.send("client.transcript.final", text=FRAUD)
        client.receive()  # thinking
        call = client.receive()["payload"]
        client.send(
            "client.tool.result", toolCallId=call["toolCallId"], content={"verified": False}
        )
        client.receive_turn()
        assert "challenge_card" in client.surfaces[AGENT].components
        done = client.say("4821")
    assert "Thank you, that matches." in voice(done)
