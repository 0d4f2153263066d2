"""What plugins keep in the store, across sessions, restarts and workers; sessions across workers.

The server tests run real uvicorn servers on 127.0.0.1; the PostgreSQL ones start two
``a2ui-runtime serve`` processes on one real PostgreSQL, as behind a load balancer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from runtime.client import RuntimeClient
from tests.runtime.conftest import runtime_process

#: A PostgreSQL cluster and two runtime processes.
pytestmark = pytest.mark.slow


def voice(frames: list[dict[str, Any]]) -> list[str]:
    return [f["payload"]["text"] for f in frames if f["type"] == "server.voice.say"]


def say(address: str, agent: str, text: str) -> list[str]:
    """What ``agent`` says to ``text`` in a new session."""
    with RuntimeClient(address, agent=agent) as client:
        client.receive_turn()
        return voice(client.say(text))


def test_a_fact_remembered_in_one_session_is_found_in_another(
    start_server: Any, memo_plugins: Path
) -> None:
    with start_server() as address:
        assert say(address, "memo", "remember the cat is called Tom") == [
            "remembered the cat is called Tom"
        ]
        assert say(address, "memo", "recall") == ["I know: the cat is called Tom"]


def test_another_plugin_finds_none_of_its_facts(start_server: Any, memo_plugins: Path) -> None:
    with start_server() as address:
        say(address, "memo", "remember the safe code is 1234")
        assert say(address, "snoop", "recall") == ["I know: nothing"]
        assert say(address, "snoop", "namespaces") == ["namespaces: []"]
        assert say(address, "memo", "namespaces") == ["namespaces: [('facts',)]"]


def test_facts_survive_a_restart_with_sqlite(
    start_server: Any, memo_plugins: Path, tmp_path: Path
) -> None:
    checkpointer = f"sqlite:{tmp_path / 'runtime.sqlite'}"
    with start_server(checkpointer=checkpointer) as address:
        say(address, "memo", "remember the cat is called Tom")
    with start_server(checkpointer=checkpointer) as address:
        assert say(address, "memo", "recall") == ["I know: the cat is called Tom"]
    with start_server() as address:  # memory: nothing carried over
        assert say(address, "memo", "recall") == ["I know: nothing"]


@pytest.mark.timeout(400)
def test_two_workers_on_one_postgres_share_sessions_and_facts(
    memo_plugins: Path, postgres_url: str
) -> None:
    args = ("--plugins-dir", str(memo_plugins), "--checkpointer", postgres_url)
    with runtime_process(*args) as worker_a, runtime_process(*args) as worker_b:
        with RuntimeClient(worker_a, agent="echo") as on_a:
            on_a.receive_turn()
            on_a.say("started on A")
        with RuntimeClient(worker_b, agent="echo", session_id=on_a.session_id) as on_b:
            redraw = [on_b.receive() for _ in range(3)]
            next_turn = voice(on_b.say("continued on B"))
        say(worker_a, "memo", "remember the meeting is on Tuesday")
        recalled_on_b = say(worker_b, "memo", "recall")
        snooped_on_b = say(worker_b, "snoop", "recall")

    kinds = [next(k for k in f["payload"] if k != "version") for f in redraw]
    assert kinds == ["createSurface", "updateComponents", "updateDataModel"]
    assert redraw[2]["payload"]["updateDataModel"]["value"] == {"heard": "started on A", "turns": 2}
    assert next_turn == ["continued on B turn 3"]
    assert recalled_on_b == ["I know: the meeting is on Tuesday"]
    assert snooped_on_b == ["I know: nothing"]
