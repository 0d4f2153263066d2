"""``reply``: one turn's answer as a state update."""

from __future__ import annotations

from langchain_core.messages import AIMessage

from runtime.a2ui import Screen
from runtime.contract.state import CommonState
from runtime.reply import reply

SCREEN = Screen(
    components=[
        {"id": "root", "component": "Column", "children": ["answer"]},
        {"id": "answer", "component": "DataCard", "title": "Balance", "value": {"path": "/b"}},
    ],
    voice_text="Here it is.",
)


def test_reply_shows_says_keeps_and_remembers() -> None:
    state = CommonState(ui={"other": [{"version": "v0.9"}]})
    update = reply(state, "bank", SCREEN, "Your balance is £12.", {"b": "£12"})
    kinds = [
        (e["type"], next(iter(set(e["payload"]) - {"version"}), None)) for e in update["outbox"]
    ]
    assert kinds == [
        ("server.a2ui.patch", "updateComponents"),
        ("server.a2ui.patch", "updateDataModel"),
        ("server.voice.say", "text"),
        ("server.transcript.final", "text"),
    ]
    assert update["outbox"][1]["payload"]["updateDataModel"]["value"] == {"b": "£12"}
    assert update["outbox"][2]["payload"] == {"text": "Your balance is £12."}
    assert update["ui"] == {
        "other": [{"version": "v0.9"}],
        "bank": [e["payload"] for e in update["outbox"][:2]],
    }
    assert update["messages"] == [AIMessage("Your balance is £12.")]


def test_reply_without_data_sends_no_data_model() -> None:
    update = reply(CommonState(), "bank", SCREEN, "Hello.")
    assert len(update["ui"]["bank"]) == 1
