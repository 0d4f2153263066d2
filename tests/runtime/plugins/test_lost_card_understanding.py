"""Free text to lost-card actions: the rules, and the context that decides short answers."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from runtime.plugins.lost_card.understanding import digit_runs, spoken_last4, understand

DIGIT_NAMES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


@pytest.mark.parametrize(
    ("text", "action", "data"),
    [
        ("I've lost my card", "freeze_card", {"reason": "lost"}),
        ("I can't find my card anywhere", "freeze_card", {"reason": "lost"}),
        ("I haven't found it yet", "freeze_card", {"reason": "lost"}),
        ("Someone nicked my wallet", "freeze_card", {"reason": "stolen"}),
        ("my card was stolen", "freeze_card", {"reason": "stolen"}),
        ("I see transactions I don\u2019t recognise", "report_fraud", {}),
        ("there are payments I didn't make", "report_fraud", {}),
        ("my card was stolen and someone has used it", "report_fraud", {}),
        ("found it! it was in my coat", "unfreeze_card", {"reason": "found"}),
        ("please unfreeze my card", "unfreeze_card", {}),
        ("freeze it", "freeze_card", {}),
        ("can you block my card", "freeze_card", {}),
        ("I need a new card", "order_replacement", {}),
        ("show me my recent payments", "view_transactions", {}),
        ("where's the nearest branch", "find_branch", {}),
        ("is there a branch in Glasgow", "find_branch", {"place": "Glasgow"}),
        ("let's start again", "reset", {}),
    ],
)
def test_what_people_say(text: str, action: str, data: dict[str, str]) -> None:
    assert understand(text) == {"id": f"lost_card.{action}", "data": data}


@pytest.mark.parametrize("text", ["what's the weather like", "yes", "no", "4821", ""])
def test_words_out_of_context_ask_for_nothing(text: str) -> None:
    assert understand(text) is None


@pytest.mark.parametrize(
    ("text", "place"),
    [("Leeds", "Leeds"), ("I'm near LS6 2AB", "Leeds"), ("bristol please", "Bristol")],
)
def test_a_town_or_postcode_answers_where_the_customer_is(text: str, place: str) -> None:
    assert understand(text, awaiting_place=True) == {
        "id": "lost_card.find_branch",
        "data": {"place": place},
    }
    assert understand(text) is None  # unasked, a place alone asks for nothing


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("yes please", "confirm"),
        ("yeah go ahead", "confirm"),
        ("OK", "confirm"),
        ("no thanks", "cancel"),
        ("not now", "cancel"),
        ("don't freeze it", "cancel"),
        ("no, I don't recognise those payments", "report_fraud"),  # a report wins over "no"
        ("yes, no, wait", None),  # both at once: the question is asked again
    ],
)
def test_yes_and_no_answer_an_open_question(text: str, action: str | None) -> None:
    understood = understand(text, awaiting_confirmation="freeze")
    assert (understood["id"].partition(".")[2] if understood else None) == action
    if action == "confirm":
        assert understood == {"id": "lost_card.confirm", "data": {"step": "freeze"}}


@pytest.mark.parametrize(
    ("text", "last4"),
    [
        ("4821", "4821"),
        ("it's 4 8 2 1", "4821"),
        ("48 21", "4821"),
        ("four eight two one", "4821"),
        ("Four, eight, two, one.", "4821"),
        ("forty eight twenty one", "4821"),
        ("double four one oh", "4410"),
        ("the number is 4929 1234 5678 4821", "4821"),  # a whole card number: its last four
        ("oh, it ends in 4821", "4821"),  # "oh" starts no number
        ("482", None),
        ("I lost it 2 days ago", None),
    ],
)
def test_digits_typed_or_spoken(text: str, last4: str | None) -> None:
    assert spoken_last4(text) == last4
    expected = (
        None if last4 is None else {"id": "lost_card.verify_identity", "data": {"last4": last4}}
    )
    if last4 is not None:
        assert understand(text, expecting_digits=True) == expected


@given(st.text("0123456789", min_size=4, max_size=4), st.booleans())
def test_any_four_digits_are_heard_when_asked_for(digits: str, in_words: bool) -> None:
    text = " ".join(DIGIT_NAMES[int(d)] for d in digits) if in_words else digits
    assert understand(text, expecting_digits=True) == {
        "id": "lost_card.verify_identity",
        "data": {"last4": digits},
    }


def test_digit_runs_split_at_words() -> None:
    assert list(digit_runs("card 4929 1234 ends in four eight two one")) == ["49291234", "4821"]
