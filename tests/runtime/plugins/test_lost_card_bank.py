"""The in-memory bank: deterministic answers, idempotent freezes, no state shared by sessions."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from runtime.plugins.lost_card.bank import (
    DEMO_CARD,
    Bank,
    BankError,
    CardStatus,
    distance_km,
    nearest_branch,
    working_days_after,
)

FRIDAY = date(2026, 11, 20)


def test_freezing_is_idempotent() -> None:
    bank = Bank(today=FRIDAY)
    first, second = bank.freeze_card("4821"), bank.freeze_card("4821")
    assert (first.status, first.changed) == ("frozen", True)
    assert (second.status, second.changed) == ("frozen", False)
    assert bank.status("4821") == "frozen"


def test_unfreezing_lifts_a_freeze() -> None:
    bank = Bank({"4821": "frozen"}, today=FRIDAY)
    assert bank.unfreeze_card("4821").changed
    assert bank.status("4821") == "active"


def test_a_replacement_cancels_the_card_and_arrives_in_three_working_days() -> None:
    bank = Bank({"4821": "frozen"}, today=FRIDAY)
    replacement = bank.request_replacement("4821", DEMO_CARD.delivery_address)
    assert replacement.eta == date(2026, 11, 25)  # Friday + 3 working days = Wednesday
    assert replacement.reference == "RPL-4821-20261120"
    assert replacement.delivery_address == DEMO_CARD.delivery_address
    assert bank.status("4821") == "cancelled"
    with pytest.raises(BankError, match="already cancelled"):
        bank.request_replacement("4821", DEMO_CARD.delivery_address)
    with pytest.raises(BankError, match="cancelled"):
        bank.unfreeze_card("4821")


def test_recent_transactions_are_dated_from_today_and_two_are_unusual() -> None:
    transactions = Bank(today=FRIDAY).get_recent_transactions("4821")
    assert len(transactions) == 6
    assert transactions[0].posted == FRIDAY
    assert [t.posted for t in transactions] == sorted(
        (t.posted for t in transactions), reverse=True
    )
    unusual = [t for t in transactions if t.unusual]
    assert [(t.merchant, t.amount) for t in unusual] == [
        ("ElectroWorld Online", Decimal("649.99")),
        ("Cash machine", Decimal("250.00")),
    ]
    assert len({t.id for t in transactions}) == 6


def test_an_unknown_card_is_refused() -> None:
    with pytest.raises(BankError, match="no card ending 0000"):
        Bank(today=FRIDAY).freeze_card("0000")


def test_sessions_never_share_card_state() -> None:
    statuses: dict[str, CardStatus] = {"4821": "active"}
    Bank(statuses, today=FRIDAY).freeze_card("4821")
    assert statuses == {"4821": "active"}
    assert Bank(statuses, today=FRIDAY).status("4821") == "active"


@pytest.mark.parametrize(
    ("start", "days", "expected"),
    [
        (date(2026, 11, 16), 3, date(2026, 11, 19)),  # Monday -> Thursday
        (date(2026, 11, 20), 1, date(2026, 11, 23)),  # Friday -> Monday
        (date(2026, 11, 21), 1, date(2026, 11, 23)),  # Saturday -> Monday
        (date(2026, 11, 20), 0, date(2026, 11, 20)),
    ],
)
def test_working_days_skip_weekends(start: date, days: int, expected: date) -> None:
    assert working_days_after(start, days) == expected


@pytest.mark.parametrize(
    ("where", "branch"),
    [
        ((53.8067, -1.5550), "Leeds Briggate"),  # Leeds University
        ((53.9600, -1.0873), "Leeds Briggate"),  # York: Leeds is 35 km, Manchester 90 km
        ((53.4084, -2.9916), "Manchester King Street"),  # Liverpool
        ((51.5014, -0.1419), "London Cornhill"),  # Buckingham Palace
        ((56.4620, -2.9707), "Edinburgh George Street"),  # Dundee
        ((51.6214, -3.9436), "Cardiff Queen Street"),  # Swansea
    ],
)
def test_the_nearest_branch_is_the_closest_as_the_crow_flies(
    where: tuple[float, float], branch: str
) -> None:
    assert nearest_branch(*where).name == branch


def test_distances_are_great_circle_kilometres() -> None:
    london, edinburgh = (51.5072, -0.1276), (55.9533, -3.1883)
    assert distance_km(*london, *edinburgh) == pytest.approx(534, abs=3)
    assert distance_km(*london, *london) == 0
