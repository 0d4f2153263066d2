"""Which screen shows the card's situation, with its data model and the words its voice line needs.

Screens live in ``screens/<name>.json``; their ``voice_text`` is a ``str.format`` template filled
from ``View.voice``. Every screen also shows the turn's whole line (``/message``), so a customer in
text mode, or one who looks away, reads what was said.

The card's last four digits are shown only to a session that is not waiting on the identity
check: a screen must never hand the answer to the question it is asking.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from runtime.plugins.lost_card.bank import (
    CARDS,
    FRAUD_LINE,
    Branch,
    Transaction,
)
from runtime.plugins.lost_card.policy import attempts_left, needs_identity
from runtime.plugins.lost_card.state import LostCardState, Step
from runtime.reply import View

STATUS_LABELS = {"active": "Active", "frozen": "Frozen", "cancelled": "Cancelled"}
STATUS_CAPTIONS = {
    "active": "Payments go through as normal.",
    "frozen": "New payments are declined. You can unfreeze it at any time.",
    "cancelled": "This card no longer works.",
}
#: What the agent can do next, by card status (the card status screen's spoken offer).
OFFERS = {
    "active": "I can freeze it, order a replacement or go through your recent payments with you.",
    "frozen": "I can order a replacement, unfreeze it or go through your recent payments with you.",
    "cancelled": "I can check your recent payments or find your nearest branch.",
}
_COUNTS = ("None", "One", "Two", "Three", "Four", "Five", "Six")


@dataclass(frozen=True)
class Question:
    """How a confirmation asks for one step."""

    title: str
    question: str
    effect: str
    confirm_label: str


QUESTIONS: dict[Step, Question] = {
    "freeze": Question(
        title="Freeze your card?",
        question="Shall I freeze your card now?",
        effect="New payments will be declined. You can unfreeze it later.",
        confirm_label="Yes, freeze it",
    ),
    "replace": Question(
        title="Order a replacement?",
        question="Shall I send a replacement card to your address on file?",
        effect="Your current card will be cancelled for good.",
        confirm_label="Yes, send a new card",
    ),
    "unfreeze": Question(
        title="Unfreeze your card?",
        question="Shall I unfreeze your card so you can use it again?",
        effect="Payments will go through again.",
        confirm_label="Yes, unfreeze it",
    ),
}


def card_name(card: LostCardState) -> str:
    """``Visa debit card ending 4821``, without the digits while identity is unproven."""
    product = CARDS[card.card_last4].product
    return product if needs_identity(card) else f"{product} ending {card.card_last4}"


def long_date(day: date) -> str:
    """``Wednesday 25 November``: how a date is said and read."""
    return f"{day:%A} {day.day} {day:%B}"


def _status(card: LostCardState) -> dict[str, str]:
    return {
        "card_name": card_name(card),
        "status_label": STATUS_LABELS[card.card_status],
        "status_caption": STATUS_CAPTIONS[card.card_status],
    }


def card_status(card: LostCardState) -> View:
    return View(
        "card_status",
        _status(card),
        {
            "card_name": card_name(card),
            "status_word": card.card_status,
            "offer": OFFERS[card.card_status],
        },
    )


def safety_checklist(card: LostCardState) -> View:
    """The steps that keep the account safe, ticked off as the conversation does them."""
    steps = [
        ("Freeze your card", "Stops new payments straight away.", card.card_status != "active"),
        (
            "Check recent payments",
            "Tell us about anything you don't recognise.",
            card.escalation_required,
        ),
        (
            "Order a replacement",
            "It arrives in about three working days.",
            card.replacement_requested,
        ),
        ("Update regular payments", "Give your new card to subscriptions and bills.", False),
    ]
    first_open = next((i for i, (_, _, done) in enumerate(steps) if not done), len(steps))
    checklist = [
        {
            "title": title,
            "description": description,
            "status": "done" if done else "current" if index == first_open else "upcoming",
        }
        for index, (title, description, done) in enumerate(steps)
    ]
    return View("safety_checklist", {**_status(card), "checklist": checklist})


def replacement_eta(card: LostCardState) -> View:
    eta = long_date(card.replacement_eta) if card.replacement_eta else "in a few working days"
    data = {
        "eta_label": eta,
        "eta_caption": f"Your old {card_name(card)} is cancelled.",
        "address": CARDS[card.card_last4].delivery_address,
    }
    return View("replacement_eta", data, {"eta_label": eta})


def confirmation(card: LostCardState, step: Step) -> View:
    question = QUESTIONS[step]
    data = {
        "step": step,
        "title": question.title,
        "card_name": card_name(card),
        "effect": question.effect,
        "confirm_label": question.confirm_label,
    }
    return View("confirmation", data, {"question": question.question})


def identity_challenge(card: LostCardState) -> View:
    left = attempts_left(card)
    return View("identity_challenge", {"attempts_label": f"{left} attempt{'s' * (left != 1)} left"})


def transactions(recent: Sequence[Transaction]) -> View:
    unusual = sum(t.unusual for t in recent)
    count = _COUNTS[unusual] if unusual < len(_COUNTS) else str(unusual)
    note = f"{count} of them look{'s' * (unusual == 1)} unusual."
    items = [
        {
            "merchant": t.merchant,
            "amount": f"£{t.amount:,.2f}",
            "detail": " · ".join(
                [long_date(t.posted), t.location, *(["Looks unusual"] if t.unusual else [])]
            ),
        }
        for t in recent
    ]
    data = {
        "summary": f"{len(recent)} payments",
        "summary_caption": f"{unusual} look unusual" if unusual else "Nothing looks unusual",
        "transactions": items,
    }
    return View("transactions", data, {"unusual_note": note})


def escalation(card: LostCardState) -> View:
    if card.identity_verified:
        status, caption = "With our fraud team", "They'll call you within a day."
    else:
        status, caption = "Needs a call", "We couldn't confirm it's you, so please call us."
    data = {"case_status": status, "case_caption": caption, "phone": FRAUD_LINE}
    return View("escalation", data, {"phone": FRAUD_LINE})


def branch(place: Branch) -> View:
    data = {
        "branch_name": place.name,
        "branch_address": place.address,
        "hours": place.hours,
        "latitude": place.latitude,
        "longitude": place.longitude,
        "markers": [
            {"latitude": place.latitude, "longitude": place.longitude, "label": place.name}
        ],
    }
    voice = {"branch_name": place.name, "branch_address": place.address, "hours": place.hours}
    return View("branch", data, voice)


def branch_search() -> View:
    """The question a branch search starts with when the device cannot say where it is."""
    return View("branch_search", {})
