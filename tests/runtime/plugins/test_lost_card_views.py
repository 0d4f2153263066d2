"""What the lost-card screens show and say, from the domain state."""

from __future__ import annotations

from datetime import date

import pytest

from runtime.plugins.lost_card import views
from runtime.plugins.lost_card.bank import Bank, Transaction
from runtime.plugins.lost_card.state import LostCardState

RECENT = Bank(today=date(2026, 11, 20)).get_recent_transactions("4821")


@pytest.mark.parametrize(
    ("recent", "note"),
    [
        (RECENT, "Two of them look unusual."),
        (RECENT[2:3], "One of them looks unusual."),
        ([t for t in RECENT if not t.unusual], "None of them look unusual."),
    ],
)
def test_the_unusual_payments_are_counted_in_words(recent: list[Transaction], note: str) -> None:
    assert views.transactions(recent).voice == {"unusual_note": note}


def test_the_card_digits_are_hidden_while_identity_is_unproven() -> None:
    assert views.card_name(LostCardState()) == "Visa debit card ending 4821"
    assert views.card_name(LostCardState(risk_level="high")) == "Visa debit card"
    verified = LostCardState(risk_level="high", identity_verified=True)
    assert views.card_name(verified) == "Visa debit card ending 4821"


def test_the_checklist_ticks_off_what_is_done() -> None:
    card = LostCardState(card_status="cancelled", replacement_requested=True)
    items = views.safety_checklist(card).data["checklist"]
    assert [(i["title"], i["status"]) for i in items] == [
        ("Freeze your card", "done"),
        ("Check recent payments", "current"),
        ("Order a replacement", "done"),
        ("Update regular payments", "upcoming"),
    ]


def test_dates_read_as_people_say_them() -> None:
    assert views.long_date(date(2026, 11, 25)) == "Wednesday 25 November"
