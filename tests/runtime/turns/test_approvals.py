"""Approval screens and answers: valid A2UI (ours and the official validator), short lines."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.graph import StateGraph

from runtime.a2ui import ActionEvent
from runtime.a2ui.validate import MAX_VOICE_WORDS
from runtime.contract.actions import ActionRejected
from runtime.contract.plugin import PluginBase
from runtime.contract.state import CommonState
from runtime.turns import PendingInterrupt
from runtime.turns.approvals import (
    Approval,
    BadAnswer,
    Option,
    answer_click,
    answer_payload,
    answer_words,
    approval_events,
    asks_again,
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
        ("no problem, go ahead", {"i-1": True}),
        ("what is this?", None),
        ("nobody", None),
        ("yes, no", None),
    ],
)
def test_words_answer_the_first_question(text: str, resume: dict[str, bool] | None) -> None:
    assert answer_words([PAYEE, LIMIT], text) == resume


def test_words_pick_an_option() -> None:
    assert answer_words([LIMIT], "let's keep it") == {"i-2": "Keep it"}
    assert answer_words([LIMIT], "yes") is None


#: Options whose labels are no yes or no word but whose values are.
ADD_OR_LEAVE = [{"label": "Add Ann", "value": "approve"}, {"label": "Leave it", "value": "reject"}]
#: Two-way options: (the options, the affirming one's value, the refusing one's value).
PAIRS: list[tuple[list[Any], str, str]] = [
    (["approve", "reject"], "approve", "reject"),
    (["Accept", "Decline"], "Accept", "Decline"),
    (["confirm", "cancel"], "confirm", "cancel"),
    (["Allow", "Deny"], "Allow", "Deny"),
    (["Yes", "No"], "Yes", "No"),
    (["continue", "stop"], "continue", "stop"),
    (["proceed", "abort"], "proceed", "abort"),
    (["OK", "Cancel"], "OK", "Cancel"),
    (["reject", "approve"], "approve", "reject"),
    ([{"label": "Approve", "value": "A"}, {"label": "Reject", "value": "R"}], "A", "R"),
    (ADD_OR_LEAVE, "approve", "reject"),
]
SAY_YES = ["yes", "Yes!", "ok", "OK.", "sure", "go ahead", "Yeah, go ahead please", "yes please",
           "no problem, go ahead"]  # fmt: skip
SAY_NO = ["no", "No.", "nope", "don't", "Don\u2019t", "do not", "stop", "cancel", "not now"]
#: Words that say neither: no yes or no word, or one inside a phrase that is not an answer.
NEITHER = ["", "what is this?", "maybe", "nobody", "yesterday", "not sure", "no problem",
           "I don't know", "no idea"]  # fmt: skip
#: Words that say both: answered by neither.
BOTH = ["yes no", "Yes... no.", "approve, no reject", "don't go ahead", "sure, cancel it",
        "ok stop", "I do not approve"]  # fmt: skip


def two_way(options: list[Any]) -> PendingInterrupt:
    return PendingInterrupt("i-9", {"question": "Add Ann as a payee?", "options": options})


@pytest.mark.parametrize(("options", "yes", "no"), PAIRS)
def test_yes_and_no_answer_a_two_way_question_with_its_options(
    options: list[Any], yes: str, no: str
) -> None:
    question = two_way(options)
    for text in SAY_YES:
        assert answer_words([question], text) == {"i-9": yes}, text
    for text in SAY_NO:
        assert answer_words([question], text) == {"i-9": no}, text
    for text in NEITHER + BOTH:
        assert answer_words([question], text) is None, text


def test_an_options_own_words_count_on_its_side() -> None:
    question = two_way(ADD_OR_LEAVE)
    assert answer_words([question], "add ann") == {"i-9": "approve"}
    assert answer_words([question], "leave it, no") == {"i-9": "reject"}
    assert answer_words([question], "add ann, no") is None


@pytest.mark.parametrize(
    "options",
    [["email", "sms"], ["approve", "reject", "later"], ["yes", "ok"], ["no", "cancel"]],
)
def test_other_options_are_answered_by_their_own_words_only(options: list[str]) -> None:
    question = two_way(options)
    assert Approval.of(question.value).pair() is None
    for option in options:
        assert answer_words([question], f"{option} please") == {"i-9": option}
    if "yes" not in options:
        assert answer_words([question], "yes") is None
    if "no" not in options:
        assert answer_words([question], "no") is None


@pytest.mark.parametrize(
    ("options", "line"),
    [
        (["approve", "reject"], "Add Ann as a payee? Say yes to approve or no to reject."),
        (["Cancel", "OK"], "Add Ann as a payee? Say yes to OK or no to Cancel."),
        (["Yes", "No"], "Add Ann as a payee? Say yes or no."),
        (
            [{"label": "Add her", "value": "ok"}, "No"],
            "Add Ann as a payee? Say yes to Add her or no.",
        ),
        (["email", "sms"], "Add Ann as a payee? Say email or sms."),
        (["email", "sms", "post"], "Add Ann as a payee? Say email, sms or post."),
        (["email"], "Add Ann as a payee? Say email."),
        (
            [{"label": " ".join(["word"] * 30), "value": "ok"}, "no"],
            "Add Ann as a payee? Say yes or no.",
        ),
    ],
)
def test_a_two_way_question_is_spoken_as_yes_or_no(options: list[Any], line: str) -> None:
    assert Approval.of(two_way(options).value).spoken() == line


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
    assert not asks_again([own]) and asks_again([PAYEE, own])
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


HOW = PendingInterrupt(
    "i-1",
    {
        "question": "How shall we tell you?",
        "options": [{"label": "By email", "value": "email"}, {"label": "By text", "value": "sms"}],
    },
)


def test_a_string_payload_is_an_options_value_or_words() -> None:
    def answer(pending: PendingInterrupt, words: str) -> Any:
        return answer_payload(Asker(), pending, words, "resume[0].payload")

    assert answer(HOW, "email") == "email"  # the option's value, as a frontend sends it
    assert answer(HOW, "by text please") == "sms"
    assert answer(PendingInterrupt("i-2", "Go?"), "sure, go ahead") is True
    approve = PendingInterrupt("i-3", {"question": "Add Ann?", "options": ["approve", "reject"]})
    assert answer(approve, "nope") == "reject"


@pytest.mark.parametrize("words", ["yes", "whatever", ""])
def test_words_that_answer_nothing_are_refused(words: str) -> None:
    with pytest.raises(ActionRejected) as refused:
        answer_payload(Asker(), HOW, words, "resume[2].payload")
    assert str(refused.value) == (
        "resume[2].payload does not answer interrupt i-1: Say By email or By text."
    )


def test_a_payload_of_nothing_approves_and_a_yes_or_no_is_taken_as_it_is() -> None:
    question = PendingInterrupt("i-4", "Go?")
    assert answer_payload(Asker(), question, None, "p") is True
    assert answer_payload(Asker(), question, False, "p") is False
    assert answer_payload(Asker(), question, {"amount": 5}, "p") == {"amount": 5}


def test_a_question_answered_by_its_buttons_takes_a_press_of_one_or_a_yes_or_no() -> None:
    shown = PendingInterrupt(
        "i-5", {"question": "Go?", "shown": True, "answeredBy": ["asker.confirm"]}
    )
    press = ActionEvent(
        name="asker.confirm",
        surfaceId="s",
        sourceComponentId="b",
        timestamp="t",
        context={"step": 2},
    )
    assert answer_payload(Asker(), shown, press, "p") == {
        "id": "asker.confirm",
        "data": {"step": 2},
    }
    assert answer_payload(Asker(), shown, True, "p") is True
    with pytest.raises(ActionRejected, match="p: interrupt i-5 is answered by true, false or"):
        answer_payload(Asker(), shown, {"step": 2}, "p")
    other = press.model_copy(update={"name": "asker.other"})
    with pytest.raises(ActionRejected, match=r"asker\.other does not answer interrupt i-5"):
        answer_payload(Asker(), shown, other, "p")
