"""The lost-card graph, turn by turn: compiled with an InMemorySaver, invoked as the runtime does.

``Turns`` checks every turn's A2UI messages (ours and the official validator) and keeps every
voice line under 40 words.
"""

from __future__ import annotations

import uuid
from datetime import date
from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from runtime.contract.state import ServerEventDict, plugin_domain
from runtime.plugins.lost_card.plugin import LostCardPlugin
from runtime.plugins.lost_card.state import LostCardState
from tests.runtime.plugins.turns import Turns, data_model, screen_ids, voice

FRIDAY = date(2026, 11, 20)
CARD_STATUS = {"status_card", "card_actions", "help_actions"}
CONFIRMATION = {"subject_card", "confirm_button", "cancel_button"}
CHALLENGE = {"challenge_card"}
ETA = {"eta_card", "address_card"}
CHECKLIST = {"checklist"}
ESCALATION = {"case_card", "phone_card"}
TRANSACTIONS = {"payments", "payment"}
BRANCH = {"branch_card", "branch_map"}


def audited(events: list[ServerEventDict]) -> list[str]:
    return [e["payload"]["action"] for e in events if e["type"] == "server.audit.event"]


@pytest.fixture
def turns() -> Turns:
    turns = Turns(LostCardPlugin(today=lambda: FRIDAY))
    turns.start()
    return turns


def test_a_new_session_is_welcomed_with_the_card_status() -> None:
    events = Turns(LostCardPlugin()).start()
    assert screen_ids(events) >= CARD_STATUS
    assert voice(events).startswith("Hello, I'm here to help with your card.")
    assert data_model(events)["card_name"] == "Visa debit card ending 4821"
    assert data_model(events)["status_label"] == "Active"


def test_initial_domain_state_has_the_issue_fields() -> None:
    domain = LostCardPlugin().create_initial_state()["domain"]["lost_card"]
    assert {
        "card_status": "active",
        "card_last4": "4821",
        "freeze_confirmed": False,
        "replacement_requested": False,
        "replacement_eta": None,
        "identity_verified": False,
        "risk_level": "low",
        "suspicious_tx": [],
        "branch_requested": False,
        "escalation_required": False,
        "awaiting_place": False,
    }.items() <= domain.items()


def test_lost_card_freeze_confirmed_then_replacement_with_an_eta(turns: Turns) -> None:
    offered = turns.say("I've lost my card")
    assert screen_ids(offered) >= CONFIRMATION
    assert (
        voice(offered)
        == "I'm sorry to hear that. Shall I freeze your card now? Just say yes or no."
    )
    assert turns.domain["card_status"] == "active"  # nothing happens without a yes
    assert turns.domain["risk_level"] == "medium"
    assert turns.domain["suspicious_tx"] == ["tx-4821-3", "tx-4821-4"]

    frozen = turns.say("yes please")
    assert turns.domain["card_status"] == "frozen"
    assert turns.domain["freeze_confirmed"] is True
    assert audited(frozen) == ["lost_card.card_frozen"]
    assert voice(frozen).startswith("Done, your card is frozen")
    assert data_model(frozen)["step"] == "replace"  # the replacement is offered next

    ordered = turns.click("confirm", step="replace")
    assert screen_ids(ordered) >= ETA
    assert audited(ordered) == ["lost_card.replacement_ordered"]
    assert turns.domain["card_status"] == "cancelled"
    assert turns.domain["replacement_requested"] is True
    assert turns.domain["replacement_eta"] == "2026-11-25"
    assert data_model(ordered)["eta_label"] == "Wednesday 25 November"
    assert "Wednesday 25 November" in voice(ordered)


def test_fraud_needs_the_right_digits_and_goes_to_the_fraud_team(turns: Turns) -> None:
    challenged = turns.say("I see transactions I don't recognise")
    assert screen_ids(challenged) >= CHALLENGE
    assert turns.domain["risk_level"] == "high"
    assert audited(challenged) == ["lost_card.risk_assessed"]
    assert data_model(challenged)["attempts_label"] == "3 attempts left"

    refused = turns.say("1234")
    assert voice(refused).startswith("Sorry, those digits don't match.")
    assert audited(refused) == ["lost_card.identity_refused"]
    assert data_model(refused)["attempts_label"] == "2 attempts left"
    assert turns.domain["identity_verified"] is False

    verified = turns.say("four eight two one")
    assert audited(verified) == ["lost_card.identity_verified", "lost_card.escalated"]
    assert turns.domain["identity_verified"] is True
    assert turns.domain["escalation_required"] is True
    assert "fraud team" in voice(verified)
    assert screen_ids(verified) >= CONFIRMATION  # then a freeze is offered, still needing a yes
    assert data_model(verified)["step"] == "freeze"
    assert turns.domain["card_status"] == "active"

    turns.say("yes")
    assert turns.domain["card_status"] == "frozen"


def test_three_wrong_answers_lock_the_check_and_block_every_step(turns: Turns) -> None:
    turns.click("report_fraud")
    for digits in ("1111", "2222"):
        turns.say(digits)
    locked = turns.click("verify_identity", last4="3333")
    assert audited(locked) == ["lost_card.identity_locked", "lost_card.escalated"]
    assert screen_ids(locked) >= ESCALATION
    assert turns.domain["escalation_required"] is True
    retry = turns.click("verify_identity", last4="4821")  # even the right digits: too late
    assert audited(retry) == ["lost_card.identity_locked"]
    for attempt in (
        lambda: turns.say("freeze my card"),
        lambda: turns.click("confirm", step="freeze"),
        lambda: turns.click("view_transactions"),
    ):
        events = attempt()
        assert screen_ids(events) >= ESCALATION
        assert audited(events) == []
    assert turns.domain["card_status"] == "active"
    assert turns.domain["identity_verified"] is False


def test_starting_again_never_undoes_a_freeze_or_a_lock(turns: Turns) -> None:
    turns.click("report_fraud")
    for digits in ("1111", "2222", "3333"):
        turns.say(digits)
    reset = turns.say("start again")
    assert voice(reset).startswith("Let's start again.")
    assert screen_ids(reset) >= ESCALATION
    assert turns.domain["failed_identity_attempts"] == 3
    assert turns.domain["risk_level"] == "high"

    frozen = Turns(LostCardPlugin(today=lambda: FRIDAY))
    frozen.start()
    frozen.say("I lost my card")
    frozen.say("yes")
    frozen.click("reset")
    assert frozen.domain["card_status"] == "frozen"


def test_a_found_card_can_be_unfrozen_after_a_yes(turns: Turns) -> None:
    turns.say("I lost my card")
    turns.say("yes")
    turns.say("no")  # no replacement for now
    assert turns.domain["card_status"] == "frozen"

    offered = turns.say("good news, I found it")
    assert voice(offered).startswith("Good news that it's turned up.")
    assert data_model(offered)["step"] == "unfreeze"
    assert turns.domain["card_status"] == "frozen"

    unfrozen = turns.say("yes")
    assert audited(unfrozen) == ["lost_card.card_unfrozen"]
    assert turns.domain["card_status"] == "active"
    assert screen_ids(unfrozen) >= CARD_STATUS


def test_a_found_card_after_a_replacement_stays_cancelled(turns: Turns) -> None:
    turns.say("I lost my card")
    turns.say("yes")
    turns.say("yes")
    events = turns.say("I found it")
    assert "cut it up" in voice(events)
    assert screen_ids(events) >= ETA
    assert audited(events) == ["lost_card.risk_assessed"]
    assert turns.domain["card_status"] == "cancelled"


def test_a_no_leaves_the_card_alone_and_shows_the_checklist(turns: Turns) -> None:
    turns.say("I lost my card")
    events = turns.say("no thanks")
    assert turns.domain["card_status"] == "active"
    assert screen_ids(events) >= CHECKLIST
    assert [item["status"] for item in data_model(events)["checklist"]] == [
        "current",
        "upcoming",
        "upcoming",
        "upcoming",
    ]


def test_a_yes_only_answers_the_question_just_asked(turns: Turns) -> None:
    turns.say("I lost my card")
    turns.click("view_transactions")  # another request closes the question
    events = turns.say("yes")
    assert turns.domain["card_status"] == "active"
    assert audited(events) == []
    assert voice(events).startswith("Sorry, I didn't catch that.")

    turns.say("freeze it")
    stale = turns.click("confirm", step="replace")  # a button from an earlier question
    assert turns.domain["card_status"] == "active"
    assert voice(stale).startswith("That button was for an earlier question.")
    assert data_model(stale)["step"] == "freeze"

    nothing = Turns(LostCardPlugin())
    nothing.start()
    assert voice(nothing.click("confirm")).startswith("There's nothing waiting for a yes")


def test_an_unclear_answer_asks_the_question_again(turns: Turns) -> None:
    turns.say("freeze my card")
    events = turns.say("hmm, what?")
    assert voice(events).startswith("Sorry, I didn't catch that. Shall I freeze your card now?")
    assert turns.domain["awaiting_confirmation"] == "freeze"


def test_freezing_a_frozen_card_says_so(turns: Turns) -> None:
    turns.say("freeze it")
    turns.say("yes")
    events = turns.click("freeze_card")
    assert voice(events).startswith("Your card is already frozen")
    assert audited(events) == []
    assert screen_ids(events) >= CHECKLIST


def test_a_high_risk_session_sees_no_card_details_until_verified(turns: Turns) -> None:
    turns.say("someone used my card, it's fraud")
    events = turns.click("view_transactions")
    assert screen_ids(events) >= CHALLENGE
    shown = turns.say("hmm")
    assert voice(shown).startswith("Sorry, I didn't catch four digits there.")
    assert all("4821" not in str(e["payload"]) for e in shown if e["type"] != "server.audit.event")
    turns.say("4821")
    events = turns.click("view_transactions")
    assert screen_ids(events) >= TRANSACTIONS
    payments = data_model(events)["transactions"]
    assert [p["amount"] for p in payments if "Looks unusual" in p["detail"]] == [
        "£649.99",
        "£250.00",
    ]


def test_a_branch_search_without_the_device_location_asks_where_the_customer_is(
    turns: Turns,
) -> None:
    asked = turns.say("can I go to a branch?")
    assert screen_ids(asked) >= {"hint_card"}
    assert voice(asked) == "Which town or postcode are you near? I'll find your nearest branch."
    assert turns.domain["awaiting_place"] is True
    events = turns.say("LS6 2AB")
    assert screen_ids(events) >= BRANCH
    assert turns.domain["branch_requested"] is True
    assert turns.domain["awaiting_place"] is False
    assert data_model(events)["markers"][0]["label"] == "Leeds Briggate"
    assert voice(events).startswith("Your nearest branch is Leeds Briggate, 12 Briggate")


def test_a_branch_near_the_town_named(turns: Turns) -> None:
    events = turns.say("is there a branch in Glasgow?")
    assert data_model(events)["branch_name"] == "Glasgow Buchanan Street"


def test_a_card_number_said_is_kept_redacted_in_the_messages(turns: Turns) -> None:
    turns.say("my card 4929 1234 5673 4821 was stolen")
    said = [m.content for m in turns.state["messages"] if isinstance(m, HumanMessage)]
    assert said == ["my card ****4821 was stolen"]


def test_sessions_on_one_graph_never_share_a_card() -> None:
    plugin = LostCardPlugin()
    graph = plugin.build_graph().compile(checkpointer=InMemorySaver())

    def turn(thread: str, update: dict[str, Any]) -> LostCardState:
        config: Any = {"configurable": {"thread_id": thread}}
        state = graph.invoke({**update, "outbox": None}, config)
        return LostCardState.model_validate(plugin_domain(state, "lost_card"))

    one, two = str(uuid.uuid4()), str(uuid.uuid4())
    for thread in (one, two):
        turn(thread, dict(plugin.create_initial_state()))
    turn(one, {"transcript": "freeze my card", "pendingAction": None})
    assert turn(one, {"transcript": "yes", "pendingAction": None}).card_status == "frozen"
    assert turn(two, {"transcript": "hello", "pendingAction": None}).card_status == "active"


@pytest.mark.parametrize(
    ("action", "data", "refusal"),
    [
        ("lost_card.verify_identity", {"last4": "48211"}, "last4"),
        ("lost_card.verify_identity", {}, "last4"),
        ("lost_card.confirm", {"step": "delete_account"}, "step"),
        ("lost_card.freeze_card", {"reason": "bored"}, "reason"),
        ("lost_card.view_transactions", {"card": "4821"}, "card"),
        ("lost_card.transfer_money", {}, "unknown action"),
        ("mortgage.select_product", {}, "unknown action"),
    ],
)
def test_actions_are_checked_before_the_graph_sees_them(
    action: str, data: dict[str, Any], refusal: str
) -> None:
    reason = LostCardPlugin().validate_action(action, data)
    assert reason is not None and refusal in reason


def test_every_screen_is_listed_in_the_capabilities() -> None:
    capabilities = LostCardPlugin().capabilities()
    assert set(capabilities.screens) == {
        "branch",
        "branch_search",
        "card_status",
        "confirmation",
        "escalation",
        "identity_challenge",
        "replacement_eta",
        "safety_checklist",
        "transactions",
    }
    assert "lost_card.freeze_card" in capabilities.actions


def test_a_question_waits_in_an_interrupt_and_the_answer_resumes_it(turns: Turns) -> None:
    turns.say("I've lost my card")
    (waiting,) = turns.graph.get_state(turns.config).interrupts
    assert waiting.value == {
        "question": "Shall I freeze your card now?",
        "shown": True,
        "answeredBy": ["lost_card.confirm", "lost_card.cancel"],
    }
    state = turns.graph.invoke(
        Command(resume={waiting.id: True}, update={"outbox": None}), turns.config
    )
    assert voice(state["outbox"]).startswith("Done, your card is frozen")
    assert state["domain"]["lost_card"]["card_status"] == "frozen"
    (offer,) = turns.graph.get_state(turns.config).interrupts
    state = turns.graph.invoke(
        Command(resume={offer.id: False}, update={"outbox": None}), turns.config
    )
    assert voice(state["outbox"]).startswith("No problem, I'll leave it there.")
    assert state["domain"]["lost_card"]["replacement_requested"] is False
    assert turns.graph.get_state(turns.config).interrupts == ()


def test_a_press_of_its_own_button_answers_the_question_as_the_click(turns: Turns) -> None:
    # The runtime resumes the interrupt with the click itself, so the button's step still counts.
    turns.say("I've lost my card")
    (waiting,) = turns.graph.get_state(turns.config).interrupts
    stale = {"id": "lost_card.confirm", "data": {"step": "replace"}}
    state = turns.graph.invoke(
        Command(resume={waiting.id: stale}, update={"outbox": None}), turns.config
    )
    assert voice(state["outbox"]).startswith("That button was for an earlier question.")
    assert state["domain"]["lost_card"]["card_status"] == "active"

    (again,) = turns.graph.get_state(turns.config).interrupts
    pressed = {"id": "lost_card.confirm", "data": {"step": "freeze"}}
    state = turns.graph.invoke(
        Command(resume={again.id: pressed}, update={"outbox": None}), turns.config
    )
    assert voice(state["outbox"]).startswith("Done, your card is frozen")
