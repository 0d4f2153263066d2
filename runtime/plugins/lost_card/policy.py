"""The rules a step that changes the card must pass, as pure functions over ``LostCardState``.

1. Every step that changes the card (freeze, replacement, and unfreeze, which lifts a protection)
   needs an explicit confirmation: a "yes" to the question just asked, never an earlier one.
2. A high-risk session must prove it holds the card first, with the card's last four digits.
3. Wrong digits are refused; after ``MAX_IDENTITY_ATTEMPTS`` wrong answers the check locks and the
   case escalates to a person, so the digits cannot be guessed. A verified fraud report escalates
   to the fraud team as well.
"""

from __future__ import annotations

import hmac
from enum import StrEnum

from runtime.plugins.lost_card.state import LostCardState, Step

MAX_IDENTITY_ATTEMPTS = 3


class Gate(StrEnum):
    """What must happen before a step may run."""

    VERIFY = "verify"
    LOCKED = "locked"
    CONFIRM = "confirm"
    ALLOW = "allow"


class IdentityOutcome(StrEnum):
    VERIFIED = "verified"
    REFUSED = "refused"
    LOCKED = "locked"


def locked_out(card: LostCardState) -> bool:
    """The identity check failed too often; only a person can help now."""
    return card.failed_identity_attempts >= MAX_IDENTITY_ATTEMPTS


def needs_identity(card: LostCardState) -> bool:
    """A high-risk session that has not proved it holds the card."""
    return card.risk_level == "high" and not card.identity_verified


def attempts_left(card: LostCardState) -> int:
    return max(MAX_IDENTITY_ATTEMPTS - card.failed_identity_attempts, 0)


def gate(card: LostCardState, step: Step, *, confirmed: bool) -> Gate:
    """Whether ``step`` may run now; ``confirmed`` means the customer just said yes to it."""
    if needs_identity(card):
        return Gate.LOCKED if locked_out(card) else Gate.VERIFY
    return Gate.ALLOW if confirmed else Gate.CONFIRM


def already_done(card: LostCardState, step: Step) -> bool:
    """Whether the card is already where ``step`` would take it (or can no longer get there)."""
    if step == "freeze":
        return card.card_status != "active"
    if step == "unfreeze":
        return card.card_status != "frozen"
    return card.replacement_requested or card.card_status == "cancelled"


def confirmed_step(card: LostCardState, answered: Step | None) -> Step | None:
    """The step a "yes" confirms: the one awaiting confirmation, if the answer is about it.

    ``answered`` is the step a confirm button names (``None`` for a spoken "yes"); a button left
    over from an earlier question names another step and confirms nothing.
    """
    if card.awaiting_confirmation is None or answered not in (None, card.awaiting_confirmation):
        return None
    return card.awaiting_confirmation


def verified(card: LostCardState) -> LostCardState:
    """The card once its holder has proved who they are (by the digits, or by the device's own
    biometric check): a high-risk session goes to the fraud team, who will call."""
    escalate = card.escalation_required or card.risk_level == "high"
    return card.model_copy(update={"identity_verified": True, "escalation_required": escalate})


def check_identity(card: LostCardState, digits: str) -> tuple[IdentityOutcome, LostCardState]:
    """Compare ``digits`` with the card's last four, counting failures.

    A right answer in a high-risk session hands the case to the fraud team (the customer has
    disowned payments); the wrong answer that uses up the attempts locks the check and hands it
    over too, since only a person can help from there.
    """
    if locked_out(card):
        return IdentityOutcome.LOCKED, card
    if hmac.compare_digest(digits.encode(), card.card_last4.encode()):
        return IdentityOutcome.VERIFIED, verified(card)
    updated = card.model_copy(
        update={"failed_identity_attempts": card.failed_identity_attempts + 1}
    )
    if locked_out(updated):
        return IdentityOutcome.LOCKED, updated.model_copy(update={"escalation_required": True})
    return IdentityOutcome.REFUSED, updated
