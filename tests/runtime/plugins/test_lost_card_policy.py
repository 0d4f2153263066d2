"""The lost-card policy and risk rules, as pure functions over the domain state."""

from __future__ import annotations

from datetime import date

import pytest

from runtime.plugins.lost_card.bank import Bank
from runtime.plugins.lost_card.policy import (
    MAX_IDENTITY_ATTEMPTS,
    Gate,
    IdentityOutcome,
    already_done,
    attempts_left,
    check_identity,
    confirmed_step,
    gate,
)
from runtime.plugins.lost_card.risk import Report, classify_risk
from runtime.plugins.lost_card.state import LostCardState, RiskLevel, Step

HIGH = LostCardState(risk_level="high")
RECENT = Bank(today=date(2026, 11, 20)).get_recent_transactions("4821")


@pytest.mark.parametrize("step", ["freeze", "unfreeze", "replace"])
def test_every_step_needs_an_explicit_yes(step: Step) -> None:
    card = LostCardState(risk_level="medium")
    assert gate(card, step, confirmed=False) is Gate.CONFIRM
    assert gate(card, step, confirmed=True) is Gate.ALLOW


@pytest.mark.parametrize("step", ["freeze", "unfreeze", "replace"])
def test_high_risk_blocks_every_step_until_identity_is_verified(step: Step) -> None:
    assert gate(HIGH, step, confirmed=True) is Gate.VERIFY
    verified = HIGH.model_copy(update={"identity_verified": True})
    assert gate(verified, step, confirmed=True) is Gate.ALLOW
    locked = HIGH.model_copy(update={"failed_identity_attempts": MAX_IDENTITY_ATTEMPTS})
    assert gate(locked, step, confirmed=True) is Gate.LOCKED


def test_a_yes_confirms_only_the_question_just_asked() -> None:
    asked = LostCardState(awaiting_confirmation="freeze")
    assert confirmed_step(asked, None) == "freeze"  # a spoken "yes"
    assert confirmed_step(asked, "freeze") == "freeze"  # the button drawn for it
    assert confirmed_step(asked, "replace") is None  # a button left from an earlier question
    assert confirmed_step(LostCardState(), None) is None  # nothing asked


def test_wrong_digits_are_refused_and_the_third_locks_and_escalates() -> None:
    card = HIGH
    for attempt in range(1, MAX_IDENTITY_ATTEMPTS):
        outcome, card = check_identity(card, "1234")
        assert outcome is IdentityOutcome.REFUSED
        assert (card.failed_identity_attempts, attempts_left(card)) == (attempt, 3 - attempt)
        assert not card.escalation_required
    outcome, card = check_identity(card, "1234")
    assert outcome is IdentityOutcome.LOCKED
    assert card.escalation_required and not card.identity_verified
    outcome, after = check_identity(card, "4821")  # even the right digits: no more guessing
    assert outcome is IdentityOutcome.LOCKED
    assert after == card


def test_the_right_digits_verify_and_a_fraud_report_goes_to_the_fraud_team() -> None:
    outcome, card = check_identity(HIGH, "4821")
    assert outcome is IdentityOutcome.VERIFIED
    assert card.identity_verified and card.escalation_required
    outcome, card = check_identity(LostCardState(risk_level="medium"), "4821")
    assert outcome is IdentityOutcome.VERIFIED
    assert not card.escalation_required


@pytest.mark.parametrize(
    ("step", "status", "done"),
    [
        ("freeze", "active", False),
        ("freeze", "frozen", True),
        ("freeze", "cancelled", True),
        ("unfreeze", "frozen", False),
        ("unfreeze", "active", True),
        ("unfreeze", "cancelled", True),
        ("replace", "active", False),
        ("replace", "frozen", False),
        ("replace", "cancelled", True),
    ],
)
def test_a_step_the_card_has_already_taken(step: Step, status: str, done: bool) -> None:
    assert already_done(LostCardState.model_validate({"card_status": status}), step) is done


@pytest.mark.parametrize(
    ("report", "current", "expected"),
    [
        ("lost", "low", "medium"),
        ("stolen", "low", "medium"),
        ("fraud", "low", "high"),
        ("found", "low", "low"),
        ("found", "medium", "medium"),  # risk never goes down in a session
        ("found", "high", "high"),
        ("lost", "high", "high"),
    ],
)
def test_risk_follows_the_report_and_never_goes_down(
    report: Report, current: RiskLevel, expected: RiskLevel
) -> None:
    assessment = classify_risk(report, RECENT, current=current)
    assert assessment.level == expected
    assert assessment.suspicious_tx == ["tx-4821-3", "tx-4821-4"]


def test_no_unusual_transactions_means_nothing_suspicious() -> None:
    usual = [t for t in RECENT if not t.unusual]
    assert classify_risk("fraud", usual).suspicious_tx == []
