"""Approval screens and answers: valid A2UI (ours and the official validator), short lines."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.graph import StateGraph

from runtime.a2ui.validate import MAX_VOICE_WORDS
from runtime.actions import ActionRejected
from runtime.contracts import CommonState
from runtime.plugin import PluginBase
from runtime.turns import PendingInterrupt
from runtime.turns.approvals import (
    Approval,
    BadAnswer,
    Option,
    answer_click,
    answer_words,
    approval_events,
    asks_itself,
)
from tests.runtime.plugins.turns import check_events


class Asker(PluginBase):
    plugin_id = "asker"
    title = "Asker"
    actions = ("confirm", "cancel", "other")

    def build_graph(self) -> StateGraph[Any]:
        return StateGraph(CommonState)

    def validate_action(self, action_id: str, data: dict[str, Any]) -> str | None:
        if action_id == "asker.confirm" and "step" not in data:
            return "asker.confirm needs a step"
        return super().validate_action(action_id, data)


ASKER = Asker()
PAYEE = PendingInterrupt("i-1", {"question": "Add Alex Smith?", "details": {"Name": "Alex"}})
LIMIT = PendingInterrupt("i-2", {"question": "New limit?", "options": ["To 500", "Keep it"]})


@pytest.mark.parametrize(
    "value",
    [
        "Go?",
        {"question": "Add Alex Smith?", "details": {"Name": "Alex Smith"}},
        {"question": "Which?", "options": [{"label": "Small", "value": 1}, "Large"]},
        {"question": " ".join(["very"] * 60) + " long?", "options": ["A"] * 30},
        ["not", "a", "mapping"],
        None,
    ],
)
def test_every_interrupt_value_becomes_a_valid_approval_screen(value: object) -> None:
    events = approval_events("asker", [PendingInterrupt("i-1", value), LIMIT])
    check_events("asker", events)  # also checks every line is under the voice limit
    (line,) = [e["payload"]["text"] for e in events if e["type"] == "server.voice.say"]
    assert len(line.split()) < MAX_VOICE_WORDS


def test_how_values_are_read() -> None:
    assert Approval.of("Go?") == Approval("Go?")
    assert Approval.of({"options": [{"label": "Small", "value": 1}, "Large"]}) == Approval(
        "Shall I go ahead?", (), (Option("Small", 1), Option("Large", "Large"))
    )
    assert Approval.of(42) == Approval("Shall I go ahead?", (("Details", "42"),))


@pytest.mark.parametrize(
    ("text", "resume"),
    [
        ("yes please", {"i-1": True}),
        ("OK, go ahead", {"i-1": True}),
        ("no", {"i-1": False}),
        ("not now", {"i-1": False}),
        ("what is this?", None),
        ("nobody", None),
    ],
)
def test_words_answer_the_first_question(text: str, resume: dict[str, bool] | None) -> None:
    assert answer_words([PAYEE, LIMIT], text) == resume


def test_words_pick_an_option() -> None:
    assert answer_words([LIMIT], "let's keep it") == {"i-2": "Keep it"}
    assert answer_words([LIMIT], "yes") is None


def test_clicks_name_their_interrupt() -> None:
    assert answer_click(ASKER, [PAYEE], "asker.reject", {"interruptId": "i-1"}) == {"i-1": False}
    assert answer_click(ASKER, [LIMIT], "asker.choose", {"interruptId": "i-2", "option": 1}) == {
        "i-2": "Keep it"
    }
    assert answer_click(ASKER, [PAYEE], "asker.other", {}) is None
    assert answer_click(ASKER, [], "asker.approve", {"interruptId": "i-1"}) is None
    with pytest.raises(BadAnswer, match="needs the interruptId"):
        answer_click(ASKER, [PAYEE], "asker.approve", {})
    with pytest.raises(BadAnswer, match="no option 5"):
        answer_click(ASKER, [LIMIT], "asker.choose", {"interruptId": "i-2", "option": 5})


def test_a_question_the_plugin_shows_itself_adds_nothing_but_is_answered() -> None:
    own = PendingInterrupt("i-3", {"question": "Freeze it?", "shown": True})
    assert approval_events("asker", [own]) == []
    assert asks_itself([own]) and not asks_itself([PAYEE, own])
    assert answer_words([own], "yes") == {"i-3": True}
    events = approval_events("asker", [own, PAYEE])
    assert [e["payload"]["text"] for e in events if e["type"] == "server.voice.say"] == [
        "Add Alex Smith? Say yes or no."
    ]


def test_a_shown_question_is_answered_by_a_press_of_the_buttons_it_lists() -> None:
    own = PendingInterrupt(
        "i-3", {"question": "Freeze it?", "shown": True, "answeredBy": ["asker.confirm", 7]}
    )
    assert Approval.of(own.value).answered_by == ("asker.confirm",)
    click = {"id": "asker.confirm", "data": {"step": "freeze"}}
    assert answer_click(ASKER, [PAYEE, own], "asker.confirm", {"step": "freeze"}) == {"i-3": click}
    assert answer_click(ASKER, [PAYEE, own], "confirm", {"step": "freeze"}) == {"i-3": click}
    # a button it does not list is a click as before; a listed one is checked as any click
    assert answer_click(ASKER, [own], "asker.other", {}) is None
    assert answer_click(ASKER, [PAYEE], "asker.confirm", {"step": "freeze"}) is None
    with pytest.raises(ActionRejected, match="needs a step"):
        answer_click(ASKER, [own], "asker.confirm", {})
