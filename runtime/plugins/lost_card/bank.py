"""A deterministic in-memory bank: the tools the lost-card agent calls.

Why the simulator keeps no state of its own: a card's status belongs to a *session* (two customers
testing the demo at once must not freeze each other's card) and must survive a server restart like
the rest of the conversation. So the card's status lives in the checkpointed domain state, and a
``Bank`` is built per turn from it: ``Bank({"4821": "frozen"})``. The fixed records (holder,
address, recent transactions) are immutable module data; everything else is a pure function of the
statuses given and of ``today``. Nothing leaks between sessions or tests.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, timedelta
from decimal import Decimal
from math import asin, cos, radians, sin, sqrt
from typing import Literal

from pydantic import BaseModel, ConfigDict

CardStatus = Literal["active", "frozen", "cancelled"]

#: Working days (Monday to Friday) a replacement card takes to arrive.
DELIVERY_WORKING_DAYS = 3


class BankError(Exception):
    """The bank refused a request (unknown card, or a card in the wrong state)."""


class Record(BaseModel):
    """Base of the bank's records and answers: immutable, no unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class PaymentDetails(Record):
    """What a card payment was; ``unusual`` is the bank's own fraud flag."""

    merchant: str
    location: str
    amount: Decimal
    unusual: bool = False


class Payment(PaymentDetails):
    """A payment in a card's fixed record, dated relative to today so the demo never goes stale."""

    days_ago: int


class Transaction(PaymentDetails):
    """A recent card payment as the bank reports it."""

    id: str
    posted: date


class Card(Record):
    """A card's fixed record; its status lives with the session (see the module docstring)."""

    last4: str
    product: str
    holder: str
    delivery_address: str
    recent: tuple[Payment, ...]


class CardUpdate(Record):
    """The result of a freeze or unfreeze; ``changed`` is false when it was already so."""

    card_last4: str
    status: CardStatus
    changed: bool


class Replacement(Record):
    """A replacement card on its way; the old card is cancelled."""

    card_last4: str
    reference: str
    delivery_address: str
    eta: date


DEMO_CARD = Card(
    last4="4821",
    product="Visa debit card",
    holder="Sam Taylor",
    delivery_address="12 Acacia Avenue, Leeds LS6 2AB",
    recent=(
        Payment(days_ago=0, merchant="Tesco Express", location="Leeds", amount=Decimal("12.40")),
        Payment(days_ago=1, merchant="Northern Rail", location="Leeds", amount=Decimal("8.90")),
        Payment(
            days_ago=1,
            merchant="ElectroWorld Online",
            location="Riga, Latvia",
            amount=Decimal("649.99"),
            unusual=True,
        ),
        Payment(
            days_ago=2,
            merchant="Cash machine",
            location="Lisbon, Portugal",
            amount=Decimal("250.00"),
            unusual=True,
        ),
        Payment(days_ago=3, merchant="Greggs", location="Leeds", amount=Decimal("3.85")),
        Payment(days_ago=5, merchant="Spotify", location="Online", amount=Decimal("11.99")),
    ),
)
CARDS: Mapping[str, Card] = {DEMO_CARD.last4: DEMO_CARD}


class Branch(Record):
    """A branch a customer can walk into."""

    name: str
    address: str
    hours: str
    latitude: float
    longitude: float


#: The bank's branches: real high streets, their real positions (WGS84 degrees).
BRANCHES: tuple[Branch, ...] = (
    Branch(
        name="Leeds Briggate",
        address="12 Briggate, Leeds LS1 6HD",
        hours="9am to 5pm, Monday to Saturday",
        latitude=53.7983,
        longitude=-1.5418,
    ),
    Branch(
        name="Manchester King Street",
        address="43 King Street, Manchester M2 4LQ",
        hours="9am to 5pm, Monday to Friday",
        latitude=53.4810,
        longitude=-2.2434,
    ),
    Branch(
        name="London Cornhill",
        address="1 Cornhill, London EC3V 3ND",
        hours="8:30am to 5pm, Monday to Friday",
        latitude=51.5133,
        longitude=-0.0877,
    ),
    Branch(
        name="Birmingham New Street",
        address="112 New Street, Birmingham B2 4HQ",
        hours="9am to 5pm, Monday to Saturday",
        latitude=52.4789,
        longitude=-1.8986,
    ),
    Branch(
        name="Edinburgh George Street",
        address="39 George Street, Edinburgh EH2 2HN",
        hours="9am to 5pm, Monday to Friday",
        latitude=55.9536,
        longitude=-3.1990,
    ),
    Branch(
        name="Bristol Corn Street",
        address="31 Corn Street, Bristol BS1 1HT",
        hours="9am to 4:30pm, Monday to Friday",
        latitude=51.4545,
        longitude=-2.5930,
    ),
    Branch(
        name="Cardiff Queen Street",
        address="81 Queen Street, Cardiff CF10 2BH",
        hours="9am to 5pm, Monday to Saturday",
        latitude=51.4818,
        longitude=-3.1740,
    ),
    Branch(
        name="Glasgow Buchanan Street",
        address="110 Buchanan Street, Glasgow G1 2JN",
        hours="9am to 5pm, Monday to Saturday",
        latitude=55.8616,
        longitude=-4.2535,
    ),
)
EARTH_RADIUS_KM = 6371.0088


def distance_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """The great-circle distance between two points (haversine)."""
    phi1, phi2 = radians(lat1), radians(lat2)
    dphi, dlambda = phi2 - phi1, radians(lon2 - lon1)
    a = sin(dphi / 2) ** 2 + cos(phi1) * cos(phi2) * sin(dlambda / 2) ** 2
    return 2 * EARTH_RADIUS_KM * asin(sqrt(a))


def nearest_branch(latitude: float, longitude: float) -> Branch:
    """The branch closest to a point, as the crow flies."""
    return min(BRANCHES, key=lambda b: distance_km(latitude, longitude, b.latitude, b.longitude))


#: The fraud line (a number from Ofcom's range reserved for drama: it rings nobody).
FRAUD_LINE = "0306 999 0123"


def working_days_after(start: date, days: int) -> date:
    """The date ``days`` working days (Monday to Friday) after ``start``."""
    current = start
    while days > 0:
        current += timedelta(days=1)
        days -= current.weekday() < 5
    return current


class Bank:
    """The bank as one session sees it: fixed card records, the session's card statuses."""

    def __init__(
        self,
        statuses: Mapping[str, CardStatus] | None = None,
        *,
        today: date,
        cards: Mapping[str, Card] = CARDS,
    ) -> None:
        self.cards = cards
        self.today = today
        self._statuses: dict[str, CardStatus] = {last4: "active" for last4 in cards}
        self._statuses.update(statuses or {})

    def card(self, card_last4: str) -> Card:
        """The card ending ``card_last4``, or ``BankError``."""
        try:
            return self.cards[card_last4]
        except KeyError:
            raise BankError(f"no card ending {card_last4}") from None

    def status(self, card_last4: str) -> CardStatus:
        self.card(card_last4)
        return self._statuses[card_last4]

    def freeze_card(self, card_last4: str) -> CardUpdate:
        """Freeze a card; freezing a frozen card changes nothing (idempotent)."""
        return self._set_status(card_last4, "frozen")

    def unfreeze_card(self, card_last4: str) -> CardUpdate:
        """Lift a freeze; a cancelled card stays cancelled."""
        return self._set_status(card_last4, "active")

    def request_replacement(self, card_last4: str, delivery_address: str) -> Replacement:
        """Cancel the card and send a new one; it arrives a few working days from today."""
        if self.status(card_last4) == "cancelled":
            raise BankError(f"the card ending {card_last4} is already cancelled")
        self._statuses[card_last4] = "cancelled"
        return Replacement(
            card_last4=card_last4,
            reference=f"RPL-{card_last4}-{self.today:%Y%m%d}",
            delivery_address=delivery_address,
            eta=working_days_after(self.today, DELIVERY_WORKING_DAYS),
        )

    def get_recent_transactions(self, card_last4: str) -> list[Transaction]:
        """The card's recent payments, newest first, dated relative to today."""
        return [
            Transaction(
                id=f"tx-{card_last4}-{index}",
                posted=self.today - timedelta(days=payment.days_ago),
                **payment.model_dump(exclude={"days_ago"}),
            )
            for index, payment in enumerate(self.card(card_last4).recent, start=1)
        ]

    def _set_status(self, card_last4: str, status: CardStatus) -> CardUpdate:
        current = self.status(card_last4)
        if current == "cancelled":
            raise BankError(f"the card ending {card_last4} is cancelled")
        self._statuses[card_last4] = status
        return CardUpdate(card_last4=card_last4, status=status, changed=current != status)
