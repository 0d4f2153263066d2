"""Resuming a session by id: across a server restart with SQLite, and what is re-sent."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from runtime.testing.client import RuntimeClient


def test_a_sqlite_session_survives_a_restart(start_server: Any, tmp_path: Path) -> None:
    checkpointer = f"sqlite:{tmp_path / 'sessions.sqlite'}"
    with start_server(storage=checkpointer) as address:
        with RuntimeClient(address, agent="echo") as client:
            client.receive_turn()
            client.say("remember me")
        session_id = client.session_id
    with (
        start_server(storage=checkpointer) as address,
        RuntimeClient(address, agent="echo", session_id=session_id) as resumed,
    ):
        redraw = [resumed.receive() for _ in range(3)]
        frames = resumed.say("and now")
    kinds = [next(k for k in f["payload"] if k != "version") for f in redraw]
    assert kinds == ["createSurface", "updateComponents", "updateDataModel"]
    assert redraw[2]["payload"]["updateDataModel"]["value"] == {"heard": "remember me", "turns": 2}
    assert frames[1]["payload"]["text"] == "and now turn 3"
    assert {f["sessionId"] for f in [*redraw, *frames]} == {session_id}


def test_a_session_stored_by_an_older_state_version_starts_afresh(
    start_server: Any, plugins_dir: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    checkpointer = f"sqlite:{tmp_path / 'sessions.sqlite'}"
    with (
        start_server(storage=checkpointer) as address,
        RuntimeClient(address, agent="echo") as client,
    ):
        client.receive_turn()
        client.say("remember me")
    # The upgraded plugin lives in another folder: one process imports a plugin folder once.
    upgraded = Path(shutil.copytree(plugins_dir, tmp_path / "upgraded"))
    plugin = upgraded / "echo" / "plugin.py"
    source = plugin.read_text()
    plugin.write_text(
        source.replace('plugin_id = "echo"\n', 'plugin_id = "echo"\n    state_version = 2\n', 1)
    )
    assert plugin.read_text() != source

    with (
        start_server(storage=checkpointer, plugins_dir=upgraded) as address,
        RuntimeClient(address, agent="echo", session_id=client.session_id) as again,
    ):
        first = again.receive()  # a redraw would start with createSurface
        assert (first["type"], first["payload"]) == ("server.agent.thinking", {"thinking": True})
        frames = again.receive_turn()

    assert [f["payload"]["text"] for f in frames if f["type"] == "server.voice.say"] == [
        "welcome turn 1"
    ]
    assert "stored with state_version 1, the plugin is now at 2" in caplog.text


def test_the_memory_checkpointer_forgets_on_restart(start_server: Any) -> None:
    with start_server() as address, RuntimeClient(address, agent="echo") as client:
        client.receive_turn()
    with (
        start_server() as address,
        RuntimeClient(address, agent="echo", session_id=client.session_id) as again,
    ):
        assert again.receive_turn()[1]["payload"]["text"] == "welcome turn 1"


def test_a_plugin_without_a_kept_screen_redraws_with_an_empty_turn(server: str) -> None:
    with RuntimeClient(server, agent="boom") as client:
        client.receive_turn()
        client.say("first")
    with RuntimeClient(server, agent="boom", session_id=client.session_id) as resumed:
        frames = resumed.receive_turn()
    assert [f["payload"] for f in frames[1:-1]] == [{"text": "ok: ready"}]


def test_a_session_of_another_agent_is_refused(server: str) -> None:
    with RuntimeClient(server, agent="echo") as client:
        client.receive_turn()
    with (
        RuntimeClient(server, agent="boom", session_id=client.session_id) as other,
        pytest.raises(ConnectionClosed) as caught,
    ):
        other.receive()
    assert caught.value.rcvd is not None
    assert caught.value.rcvd.code == 4002
    assert caught.value.rcvd.reason == f"session {client.session_id} belongs to another agent"


def test_a_client_chosen_session_id_starts_a_new_session(server: str) -> None:
    with RuntimeClient(server, agent="echo", session_id="my-session.1") as client:
        frames = client.receive_turn()
    assert frames[1]["payload"]["text"] == "welcome turn 1"
    assert {f["sessionId"] for f in frames} == {"my-session.1"}


def test_a_session_of_another_user_is_refused(start_server: Any) -> None:
    """Behind a gateway that sets the user id, knowing a session id is not enough to resume it."""
    with start_server(user_header="X-User-Id") as address:
        alice = {"X-User-Id": "alice"}
        with RuntimeClient(address, agent="echo", session_id="shared-id", headers=alice) as client:
            client.receive_turn()
        with RuntimeClient(address, agent="echo", session_id="shared-id", headers=alice) as again:
            redraw = again.receive()
        refused = []
        for headers in ({"X-User-Id": "mallory"}, {}):
            with (
                RuntimeClient(address, agent="echo", session_id="shared-id", headers=headers) as x,
                pytest.raises(ConnectionClosed) as caught,
            ):
                x.receive()
            assert caught.value.rcvd is not None
            refused.append((caught.value.rcvd.code, caught.value.rcvd.reason))

    assert "createSurface" in redraw["payload"]
    assert refused == [(4002, "session shared-id belongs to another user")] * 2
