"""Approval screens and answers: valid A2UI (ours and the official validator), short lines."""

from __future__ import annotations

import pytest

from runtime.a2ui.validate import MAX_VOICE_WORDS
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
    assert answer_click("asker", [PAYEE], "asker.reject", {"interruptId": "i-1"}) == {"i-1": False}
    assert answer_click("asker", [LIMIT], "asker.choose", {"interruptId": "i-2", "option": 1}) == {
        "i-2": "Keep it"
    }
    assert answer_click("asker", [PAYEE], "asker.other", {}) is None
    assert answer_click("asker", [], "asker.approve", {"interruptId": "i-1"}) is None
    with pytest.raises(BadAnswer, match="needs the interruptId"):
        answer_click("asker", [PAYEE], "asker.approve", {})
    with pytest.raises(BadAnswer, match="no option 5"):
        answer_click("asker", [LIMIT], "asker.choose", {"interruptId": "i-2", "option": 5})


def test_a_question_the_plugin_shows_itself_adds_nothing_but_is_answered() -> None:
    own = PendingInterrupt("i-3", {"question": "Freeze it?", "shown": True})
    assert approval_events("asker", [own]) == []
    assert asks_itself([own]) and not asks_itself([PAYEE, own])
    assert answer_words([own], "yes") == {"i-3": True}
    events = approval_events("asker", [own, PAYEE])
    assert [e["payload"]["text"] for e in events if e["type"] == "server.voice.say"] == [
        "Add Alex Smith? Say yes or no."
    ]
