"""What a run's resume payload means when it is a string: what the customer typed."""

from __future__ import annotations

import pytest

from runtime.contract.actions import ActionRejected
from runtime.serving.agui.plan import words_answer
from runtime.turns import PendingInterrupt

HOW = PendingInterrupt(
    "i-1",
    {
        "question": "How shall we tell you?",
        "options": [{"label": "By email", "value": "email"}, {"label": "By text", "value": "sms"}],
    },
)


def test_a_string_payload_is_an_options_value_or_words() -> None:
    assert words_answer(HOW, "email", 0) == "email"  # the option's value, as a frontend sends it
    assert words_answer(HOW, "by text please", 0) == "sms"
    assert words_answer(PendingInterrupt("i-2", "Go?"), "sure, go ahead", 0) is True
    approve = PendingInterrupt("i-3", {"question": "Add Ann?", "options": ["approve", "reject"]})
    assert words_answer(approve, "nope", 0) == "reject"


@pytest.mark.parametrize("words", ["yes", "whatever", ""])
def test_words_that_answer_nothing_are_refused(words: str) -> None:
    with pytest.raises(ActionRejected) as refused:
        words_answer(HOW, words, 2)
    assert str(refused.value) == (
        "resume[2].payload does not answer interrupt i-1: Say By email or By text."
    )
