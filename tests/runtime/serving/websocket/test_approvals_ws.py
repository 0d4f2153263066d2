"""Approvals and limits over the WebSocket, on a real uvicorn: an imported agent's ``interrupt()``
asks, waits and completes or cancels on a click or a word; a runaway graph is stopped."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from runtime.testing.client import RuntimeClient
from tests.runtime.conftest import FIXTURE_PLUGINS, ServerFactory
from tests.runtime.plugins.turns import check_frames, voice


@pytest.fixture
def server(start_server: ServerFactory, tmp_path: Path) -> Iterator[str]:
    folder = tmp_path / "policy_plugins"
    for plugin in ("payee", "asker", "runaway"):
        shutil.copytree(FIXTURE_PLUGINS / plugin, folder / plugin)
    with start_server(plugins_dir=folder, default_agent="payee") as address:
        yield address


def errors(frames: list[dict[str, Any]]) -> list[str]:
    return [f["payload"]["code"] for f in frames if f["type"] == "server.error"]


def buttons(client: RuntimeClient, plugin_id: str) -> dict[str, Any]:
    """The approval screen's buttons by label."""
    surface = client.surfaces[plugin_id]
    return {surface.components[c.component["child"]]["text"]: c for c in surface.clickables()}


def test_an_imported_agent_asks_waits_and_completes_on_a_click(server: str) -> None:
    with RuntimeClient(server, agent="payee") as client:
        client.receive_turn()
        asked = check_frames("payee", client.say("add alex smith"))
        assert voice(asked) == "Add Alex Smith as a payee? Say yes or no."
        shown = client.surfaces["payee"]
        assert shown.components["approval_0"]["value"] == "Add Alex Smith as a payee?"
        assert "Sort code: 12-34-56" in shown.components["approval_0"]["caption"]
        approve = buttons(client, "payee")["Yes"]
        assert approve.name == "payee.approve"
        done = check_frames("payee", client.click(approve))
        assert voice(done) == "Added Alex Smith as a payee."
        assert client.surfaces["payee"].data["state"]["payees"] == ["Alex Smith"]


def test_an_imported_agent_cancels_on_the_customers_word(server: str) -> None:
    with RuntimeClient(server, agent="payee") as client:
        client.receive_turn()
        client.say("add bob")
        again = client.say("what?")  # no answer: asked again, nothing runs
        assert voice(again) == "Add Bob as a payee? Say yes or no."
        cancelled = check_frames("payee", client.say("no thanks"))
        assert voice(cancelled) == "Cancelled: Bob was not added."
        assert client.surfaces["payee"].data["state"]["payees"] == []


@pytest.mark.parametrize(
    ("answer", "reply", "payees"),
    [("yes", "Added Ann as a payee.", ["Ann"]), ("no", "Cancelled: Ann was not added.", [])],
)
def test_yes_and_no_answer_an_approve_or_reject_question_with_its_option(
    server: str, answer: str, reply: str, payees: list[str]
) -> None:
    # the agent adds only on the option "approve" itself (see the payee fixture's graph)
    with RuntimeClient(server, agent="payee") as client:
        client.receive_turn()
        asked = check_frames("payee", client.say("offer ann"))
        assert voice(asked) == "Add Ann as a payee? Say yes to approve or no to reject."
        both = client.say("yes, no, I mean no")  # says both: taken as neither, asked again
        assert voice(both) == "Add Ann as a payee? Say yes to approve or no to reject."
        assert voice(check_frames("payee", client.say(answer))) == reply
        assert client.surfaces["payee"].data["state"]["payees"] == payees


def test_a_runaway_imported_agent_is_stopped_and_its_own_state_rolled_back(server: str) -> None:
    with RuntimeClient(server, agent="payee") as client:
        client.receive_turn()
        client.say("add alex smith")
        client.say("yes")
        stopped = client.say("repeat after me")
        assert errors(stopped) == ["recursion_limit"]
        shown = client.surfaces["payee"]  # the plugin's error screen, over the state before
        assert (
            shown.data["error"] == "The Payees agent took too many steps on that and was stopped."
        )
        client.say("add bob")
        client.say("yes")
        assert client.surfaces["payee"].data["state"]["payees"] == ["Alex Smith", "Bob"]


def test_a_reconnecting_client_sees_the_pending_approval_and_answers_it(server: str) -> None:
    with RuntimeClient(server, agent="payee") as client:
        client.receive_turn()
        client.say("add alex smith")
    with RuntimeClient(server, agent="payee", session_id=client.session_id) as again:
        redraw = []
        while not any(f["type"] == "server.voice.say" for f in redraw):
            redraw.append(again.receive())
        assert voice(redraw) == "Add Alex Smith as a payee? Say yes or no."
        assert "approval_0" in again.surfaces["payee"].components
        assert voice(again.say("yes please")) == "Added Alex Smith as a payee."


def test_a_wrong_interrupt_id_is_refused_and_the_right_one_answers(server: str) -> None:
    with RuntimeClient(server, agent="asker") as client:
        client.receive_turn()
        client.say("both")
        client.send("client.ui.action", actionId="asker.approve", data={"interruptId": "nope"})
        refused = client.receive_turn()
        assert errors(refused) == ["unknown_interrupt"]
        limit = buttons(client, "asker")["To 1000"]
        assert limit.name == "asker.choose"
        after = client.click(limit)
        assert voice(after) == "Add Alex Smith as a payee? Say yes or no."  # still waiting
        done = client.click(buttons(client, "asker")["Yes"])
        assert voice(done) == "Payees: Alex Smith."


def test_a_runaway_graph_is_stopped_and_the_next_turn_answers_from_before_it(
    server: str,
) -> None:
    with RuntimeClient(server, agent="runaway") as client:
        client.receive_turn()
        assert voice(client.say("hello")) == "hello after 2 steps"
        stopped = client.say("loop for ever")
        assert errors(stopped) == ["recursion_limit"]
        assert client.say("again")[1]["payload"] == {"text": "again after 3 steps"}
        failed = client.say("half way")
        assert errors(failed) == ["agent_error"]
        assert voice(client.say("then")) == "then after 4 steps"
