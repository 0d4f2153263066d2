"""The lost-card agent as a LangGraph graph.

Every turn runs ``ingest_input`` (a click, or free text understood as the same click) and
``classify_risk``, then one path through the policy:

* a step that changes the card goes to ``verify_identity_stepup`` while a high-risk session has not
  proved it holds the card, to ``confirm_action`` until the customer says yes, and then to
  ``freeze_card`` (freeze or unfreeze) or ``issue_replacement``;
* everything else (welcome, transactions, branch, a refusal, a "no") goes to
  ``render_support_options``;

and ends with ``clear_pending_action``. Each path ends in exactly one node that draws a screen and
says one line; nodes before it only add to the line's opening (``LostCardState.notice``). A turn
that asks for a yes then waits in ``await_confirmation`` (LangGraph's ``interrupt()``, the question
on the plugin's own screen): the runtime resumes it with the customer's yes or no, which becomes
the ``confirm`` or ``cancel`` it stands for, or with a press of the screen's own confirm or cancel
button (the question lists them in ``answeredBy``); anything else starts a new turn as before.
Every step that changes the card, every identity answer and every escalation adds a
``server.audit.event`` to the outbox; the runtime sends those to the audit log, never to a client.

The bank's card statuses live in the domain state (see ``bank``), so a session's card is its own
and survives a restart with the rest of the checkpoint.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, Literal

from langchain_core.messages import HumanMessage
from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from runtime.client_tools import ClientToolError, call_client_tool, offered
from runtime.contract.state import (
    CommonState,
    PendingAction,
    ServerEventDict,
    event,
    plugin_domain,
    with_plugin_domain,
)
from runtime.plugins.lost_card import PLUGIN_ID, views
from runtime.plugins.lost_card.bank import Bank, CardStatus, nearest_branch
from runtime.plugins.lost_card.places import locate
from runtime.plugins.lost_card.policy import (
    Gate,
    IdentityOutcome,
    already_done,
    check_identity,
    confirmed_step,
    gate,
    locked_out,
    needs_identity,
    verified,
)
from runtime.plugins.lost_card.risk import Report, classify_risk
from runtime.plugins.lost_card.state import LostCardState, Step
from runtime.plugins.lost_card.understanding import understand
from runtime.redaction import redact_card_numbers
from runtime.reply import View, reply, spoken_screen
from runtime.turns.approvals import ANSWERED_BY

logger = logging.getLogger(__name__)

SCREENS = Path(__file__).with_name("screens")

#: The card-changing step each action asks for.
ACTION_STEPS: dict[str, Step] = {
    "freeze_card": "freeze",
    "unfreeze_card": "unfreeze",
    "order_replacement": "replace",
}
#: What the customer reports with an action, by action and its ``reason``.
REPORTS: dict[tuple[str, str | None], Report] = {
    ("freeze_card", "lost"): "lost",
    ("freeze_card", "stolen"): "stolen",
    ("unfreeze_card", "found"): "found",
    ("report_fraud", None): "fraud",
}
SYMPATHY: dict[Report, str] = {
    "lost": "I'm sorry to hear that.",
    "stolen": "I'm sorry, that's horrible.",
    "found": "Good news that it's turned up.",
    "fraud": "Thank you for telling me. Let's get that looked at.",
}
#: What is said when a step is asked for but the card is already there, by step and card status.
ALREADY_DONE: dict[tuple[Step, CardStatus], str] = {
    ("freeze", "frozen"): "Your card is already frozen, so nothing new can go through.",
    ("freeze", "cancelled"): "That card is already cancelled.",
    ("unfreeze", "active"): "Your card isn't frozen, so there's nothing to undo.",
    ("unfreeze", "cancelled"): (
        "That card was cancelled when we ordered your new one, so please cut it up."
    ),
    ("replace", "cancelled"): "Your new card is already on its way.",
}

#: The device tool that tells where the customer is (no parameters; answers ``{"lat", "lon"}``).
GET_LOCATION = "get_location"
#: The device tool that checks the holder's fingerprint or face (``{"reason"}``; answers
#: ``{"verified": true|false}``): step-up identity without the digits.
CONFIRM_BIOMETRIC = "confirm_biometric"


class Location(BaseModel):
    """What ``get_location`` answers: WGS84 degrees."""

    model_config = ConfigDict(extra="ignore")

    lat: float = Field(ge=-90, le=90)
    lon: float = Field(ge=-180, le=180)


#: Actions that continue the current request rather than start a new one.
CONTINUATIONS = frozenset({None, "confirm", "cancel", "verify_identity"})
#: Actions that show the card's details: a high-risk session proves its identity first.
PRIVATE = frozenset({"report_fraud", "view_transactions"})
GREETING = "Hello, I'm here to help with your card."
DID_NOT_CATCH = "Sorry, I didn't catch that."
DID_NOT_CATCH_DIGITS = "Sorry, I didn't catch four digits there."

Route = Literal[
    "verify_identity_stepup",
    "confirm_action",
    "freeze_card",
    "issue_replacement",
    "render_support_options",
    "clear_pending_action",
]


def action_name(state: CommonState) -> str | None:
    """The short name of this turn's action (``freeze_card``), if there is one."""
    action = state.get("pendingAction")
    return action["id"].partition(".")[2] if action else None


def action_data(state: CommonState) -> dict[str, Any]:
    action = state.get("pendingAction")
    return action["data"] if action else {}


def card_of(state: CommonState) -> LostCardState:
    return LostCardState.model_validate(plugin_domain(state, PLUGIN_ID))


def bank_for(card: LostCardState, today: date) -> Bank:
    """The bank as this session sees it: its card in the status the session has put it in."""
    return Bank({card.card_last4: card.card_status}, today=today)


def stored(state: CommonState, card: LostCardState) -> dict[str, Any]:
    """The ``domain`` update storing ``card`` next to other plugins' fields."""
    return with_plugin_domain(state, PLUGIN_ID, card.dump())


def audit(name: str, card: LostCardState, **details: Any) -> ServerEventDict:
    """A ``server.audit.event``: what happened, to which card, at which risk level."""
    return event(
        "server.audit.event",
        action=f"{PLUGIN_ID}.{name}",
        card_last4=card.card_last4,
        risk_level=card.risk_level,
        **details,
    )


def challenge_open(card: LostCardState) -> bool:
    """The identity check is waiting for an answer."""
    return needs_identity(card) and not locked_out(card)


def requested_step(state: CommonState, card: LostCardState) -> Step | None:
    """The card-changing step this turn's action asks for (a fraud report asks for a freeze)."""
    name = action_name(state)
    if name == "report_fraud":
        return "freeze" if card.card_status == "active" else None
    return ACTION_STEPS.get(name or "")


# --- nodes ------------------------------------------------------------------------------------


def ingest_input(state: CommonState) -> dict[str, Any]:
    """Make the turn one action: the click as sent, or what the words ask for.

    A new request replaces the step asked for before and closes any open question, so a later
    "yes" never confirms a step the customer no longer sees. Words that say nothing we understand
    change nothing: the open question is asked again.
    """
    card = card_of(state)
    action: PendingAction | None = state.get("pendingAction")
    heard = (state.get("transcript") or "").strip()
    messages = []
    if action is None and heard:
        action = understand(
            heard,
            awaiting_confirmation=card.awaiting_confirmation,
            expecting_digits=challenge_open(card),
            awaiting_place=card.awaiting_place,
        )
        logger.debug("%s heard %r as %s", PLUGIN_ID, heard, action["id"] if action else None)
        messages.append(HumanMessage(redact_card_numbers(heard)))
    card = card.model_copy(update={"awaiting_place": False})  # asked again if still needed
    turn: CommonState = {**state, "pendingAction": action}
    if action_name(turn) not in CONTINUATIONS:
        card = card.model_copy(
            update={"requested_step": requested_step(turn, card), "awaiting_confirmation": None}
        )
    return {"pendingAction": action, "messages": messages, **stored(state, card)}


def classify_risk_node(state: CommonState, *, today: date) -> dict[str, Any]:
    """Reassess the risk when the customer reports the card lost, stolen, found or misused."""
    report = REPORTS.get((action_name(state) or "", action_data(state).get("reason")))
    if report is None:
        return {}
    card = card_of(state)
    bank = bank_for(card, today)
    assessment = classify_risk(
        report, bank.get_recent_transactions(card.card_last4), current=card.risk_level
    )
    card = card.model_copy(
        update={"risk_level": assessment.level, "suspicious_tx": assessment.suspicious_tx}
    ).noted(SYMPATHY[report])
    return {
        **stored(state, card),
        "outbox": [audit("risk_assessed", card, report=report, suspicious_tx=card.suspicious_tx)],
    }


def verify_identity_stepup(state: CommonState) -> dict[str, Any]:
    """Check the card's last four digits (``policy.check_identity``); before asking for them,
    let the device confirm who it is when the client offers ``confirm_biometric``."""
    before = card_of(state)
    if action_name(state) == "verify_identity":
        method = "digits"
        outcome, card = check_identity(before, str(action_data(state).get("last4", "")))
    elif not locked_out(before) and device_confirms_identity():
        method = "biometric"
        outcome, card = IdentityOutcome.VERIFIED, verified(before)
    else:
        card = before.noted(DID_NOT_CATCH_DIGITS) if _not_understood(state) else before
        return present(state, card, views.identity_challenge(card))
    events = [
        audit(
            f"identity_{outcome}",
            card,
            failed_attempts=card.failed_identity_attempts,
            method=method,
        )
    ]
    if outcome is IdentityOutcome.REFUSED:
        card = card.noted("Sorry, those digits don't match.")
        return present(state, card, views.identity_challenge(card), events)
    card = card.noted(
        "Thank you, that matches."
        if outcome is IdentityOutcome.VERIFIED
        else "Sorry, I couldn't confirm it's you."
    )
    if card.escalation_required and not before.escalation_required:
        card = card.noted("I've passed this to our fraud team.")
        events.append(
            audit("escalated", card, reason=outcome.value, suspicious_tx=card.suspicious_tx)
        )
    return {**stored(state, card), "outbox": events}


def device_confirms_identity() -> bool:
    """Whether the client's ``confirm_biometric`` (when offered) says the holder is there; any
    failure falls back to the digits."""
    if not offered(CONFIRM_BIOMETRIC):
        return False
    try:
        answer = call_client_tool(
            CONFIRM_BIOMETRIC, {"reason": "Confirm it's you to protect your card"}
        )
    except ClientToolError as exc:
        logger.info("%s: no biometric confirmation: %s", PLUGIN_ID, exc)
        return False
    return isinstance(answer, dict) and answer.get("verified") is True


def confirm_action(state: CommonState) -> dict[str, Any]:
    """Ask for an explicit yes to the step the customer asked for (again, if need be)."""
    card = card_of(state)
    step = card.requested_step or card.awaiting_confirmation
    assert step is not None, "routing only comes here with a step to confirm"
    if _not_understood(state):
        card = card.noted(DID_NOT_CATCH)
    elif action_name(state) == "confirm" and card.awaiting_confirmation is not None:
        card = card.noted("That button was for an earlier question.")
    card = card.model_copy(update={"requested_step": step, "awaiting_confirmation": step})
    return present(state, card, views.confirmation(card, step))


def freeze_card(state: CommonState, *, today: date) -> dict[str, Any]:
    """Freeze (or unfreeze) the card as just confirmed; a freeze goes on to offer a replacement."""
    card = card_of(state)
    freezing = card.awaiting_confirmation == "freeze"
    bank = bank_for(card, today)
    result = (bank.freeze_card if freezing else bank.unfreeze_card)(card.card_last4)
    card = card.model_copy(
        update={
            "card_status": result.status,
            "freeze_confirmed": card.freeze_confirmed or freezing,
            "awaiting_confirmation": None,
            "requested_step": "replace" if freezing and not card.replacement_requested else None,
        }
    )
    event_ = audit("card_frozen" if freezing else "card_unfrozen", card, changed=result.changed)
    if freezing:
        card = card.noted("Done, your card is frozen, so no new payments can go through.")
        return {**stored(state, card), "outbox": [event_]}
    card = card.noted("Done, your card is working again.")
    return present(state, card, views.card_status(card), [event_])


def issue_replacement(state: CommonState, *, today: date) -> dict[str, Any]:
    """Order the replacement just confirmed; the bank cancels the old card."""
    card = card_of(state)
    bank = bank_for(card, today)
    replacement = bank.request_replacement(
        card.card_last4, bank.card(card.card_last4).delivery_address
    )
    card = card.model_copy(
        update={
            "card_status": bank.status(card.card_last4),
            "replacement_requested": True,
            "replacement_eta": replacement.eta,
            "awaiting_confirmation": None,
            "requested_step": None,
        }
    ).noted("Done. Your old card is now cancelled, so please cut it up if it turns up.")
    event_ = audit(
        "replacement_ordered",
        card,
        reference=replacement.reference,
        eta=replacement.eta.isoformat(),
    )
    return present(state, card, views.replacement_eta(card), [event_])


def render_support_options(state: CommonState, *, today: date) -> dict[str, Any]:
    """Everything that leaves the card as it is: welcome, payments, branch, refusals, a "no".

    ``reset`` starts the *conversation* again; the card's status, the risk level and the identity
    check's lock stay, or "start again" would undo a freeze or reopen the guessing.
    """
    card = card_of(state)
    name = action_name(state)
    step = requested_step(state, card)
    card = card.model_copy(update={"requested_step": None, "awaiting_confirmation": None})
    if name == "reset":
        card = card.model_copy(update={"branch_requested": False}).noted("Let's start again.")
    if name == "find_branch":
        card, view = find_branch(card, action_data(state).get("place"))
    elif name in ("verify_identity", "report_fraud") or (needs_identity(card) and locked_out(card)):
        view = views.escalation(card)
    elif name == "view_transactions":
        bank = bank_for(card, today)
        view = views.transactions(bank.get_recent_transactions(card.card_last4))
    elif name == "cancel":
        card = card.noted("No problem, I'll leave it there.")
        view = views.safety_checklist(card)
    elif step is not None:  # the card is already where the step would take it
        card = card.noted(ALREADY_DONE[step, card.card_status])
        view = _card_view(card)
    else:
        if name is None:
            card = card.noted(DID_NOT_CATCH if _not_understood(state) else GREETING)
        elif name == "confirm":
            card = card.noted("There's nothing waiting for a yes just now.")
        view = views.card_status(card)
    return present(state, card, view)


def find_branch(card: LostCardState, place: str | None) -> tuple[LostCardState, View]:
    """The branch nearest the place named, or the device's location when the client offers
    ``get_location``; otherwise ask for a town or postcode."""
    card = card.model_copy(update={"branch_requested": True})
    found = locate(place) if place else None
    if found is not None:
        return card, views.branch(nearest_branch(found.latitude, found.longitude))
    if place:
        card = card.noted(f"Sorry, I don't know where {place} is.")
    elif offered(GET_LOCATION):
        try:
            here = Location.model_validate(call_client_tool(GET_LOCATION))
        except (ClientToolError, ValidationError) as exc:
            logger.info("%s: no location from the device: %s", PLUGIN_ID, exc)
            card = card.noted("I couldn't get your location.")
        else:
            return card, views.branch(nearest_branch(here.lat, here.lon))
    return card.model_copy(update={"awaiting_place": True}), views.branch_search()


def _card_view(card: LostCardState) -> View:
    """The screen that best shows the card as it is: its replacement, its safety steps, or it."""
    if card.replacement_requested:
        return views.replacement_eta(card)
    if card.card_status == "frozen":
        return views.safety_checklist(card)
    return views.card_status(card)


def _not_understood(state: CommonState) -> bool:
    return action_name(state) is None and bool(state.get("transcript"))


def clear_pending_action(state: CommonState) -> dict[str, Any]:
    """Close the turn: the action is handled and the words are heard."""
    return {"pendingAction": None, "transcript": ""}


#: The buttons of the confirmation screen, which answer its question.
ANSWERS = (f"{PLUGIN_ID}.confirm", f"{PLUGIN_ID}.cancel")


def await_confirmation(state: CommonState) -> dict[str, Any]:
    """Wait for the yes or no to the question on screen, or a press of its confirm or cancel
    button; the answer becomes the click it means, and the policy takes it from there (a yes to
    a step no longer asked, or a button drawn for another, confirms nothing)."""
    step = card_of(state).awaiting_confirmation
    assert step is not None, "routing only comes here with a question open"
    answer = interrupt(
        {"question": views.QUESTIONS[step].question, "shown": True, ANSWERED_BY: list(ANSWERS)}
    )
    if isinstance(answer, dict) and answer.get("id") in ANSWERS:
        return {"pendingAction": answer}  # a press of its button: the click, checked as any click
    action: PendingAction = (
        {"id": f"{PLUGIN_ID}.confirm", "data": {"step": step}}
        if answer is True
        else {"id": f"{PLUGIN_ID}.cancel", "data": {}}
    )
    return {"pendingAction": action}


# --- drawing ------------------------------------------------------------------------------------


def present(
    state: CommonState,
    card: LostCardState,
    view: View,
    events: list[ServerEventDict] | None = None,
) -> dict[str, Any]:
    """Draw ``view``, say the turn's line (notice, then the screen's own line), store ``card``.

    ``events`` (audit events of this node) go first in the outbox.
    """
    screen, line = spoken_screen(SCREENS, PLUGIN_ID, view, card.notice)
    answer = reply(state, PLUGIN_ID, screen, line, {**(view.data or {}), "message": line})
    return {
        **answer,
        **stored(state, card.model_copy(update={"notice": None})),
        "outbox": [*(events or []), *answer["outbox"]],
    }


# --- routing ------------------------------------------------------------------------------------


def route_request(state: CommonState) -> Route:
    """Where the policy sends this turn's action."""
    card = card_of(state)
    name = action_name(state)
    if name == "verify_identity":
        return "verify_identity_stepup"
    if name == "confirm":
        step = confirmed_step(card, action_data(state).get("step"))
        if step is None:
            return "confirm_action" if card.awaiting_confirmation else "render_support_options"
        return _gated(card, step, confirmed=True)
    step = requested_step(state, card)
    if step is not None and not already_done(card, step):
        return _gated(card, step, confirmed=False)
    if challenge_open(card) and (name in PRIVATE or _not_understood(state)):
        return "verify_identity_stepup"
    if _not_understood(state) and card.awaiting_confirmation:
        return "confirm_action"
    return "render_support_options"


def _gated(card: LostCardState, step: Step, *, confirmed: bool) -> Route:
    decision = gate(card, step, confirmed=confirmed)
    if decision is Gate.VERIFY:
        return "verify_identity_stepup"
    if decision is Gate.CONFIRM:
        return "confirm_action"
    if decision is Gate.LOCKED:
        return "render_support_options"
    return "issue_replacement" if step == "replace" else "freeze_card"


def route_after_identity(state: CommonState) -> Route:
    """On to the step the customer asked for once verified; a locked check explains itself."""
    card = card_of(state)
    if action_name(state) != "verify_identity" and not card.identity_verified:
        return "clear_pending_action"  # the challenge was drawn
    if card.identity_verified:
        step = card.requested_step
        return (
            "confirm_action" if step and not already_done(card, step) else "render_support_options"
        )
    return "render_support_options" if locked_out(card) else "clear_pending_action"


def route_after_turn(state: CommonState) -> str:
    """A turn that asked for a yes waits for it."""
    return "await_confirmation" if card_of(state).awaiting_confirmation else END


def route_after_freeze(state: CommonState) -> Route:
    """A freeze goes on to offer a replacement; an unfreeze has answered already."""
    return "confirm_action" if card_of(state).requested_step else "clear_pending_action"


@dataclass(frozen=True)
class Dated:
    """A node that needs today's date, bound to the graph's clock."""

    node: Callable[..., dict[str, Any]]
    today: Callable[[], date]

    def __call__(self, state: CommonState) -> dict[str, Any]:
        return self.node(state, today=self.today())


def build_graph(*, today: Callable[[], date] = date.today) -> StateGraph[Any]:
    """The uncompiled graph over ``CommonState``; ``today`` dates the bank's answers."""
    graph = StateGraph(CommonState)
    graph.add_node("ingest_input", ingest_input)
    graph.add_node("classify_risk", Dated(classify_risk_node, today))
    graph.add_node("verify_identity_stepup", verify_identity_stepup)
    graph.add_node("confirm_action", confirm_action)
    graph.add_node("freeze_card", Dated(freeze_card, today))
    graph.add_node("issue_replacement", Dated(issue_replacement, today))
    graph.add_node("render_support_options", Dated(render_support_options, today))
    graph.add_node("clear_pending_action", clear_pending_action)
    graph.add_node("await_confirmation", await_confirmation)
    graph.add_edge(START, "ingest_input")
    graph.add_edge("ingest_input", "classify_risk")
    graph.add_conditional_edges(
        "classify_risk",
        route_request,
        ["verify_identity_stepup", "confirm_action", "freeze_card", "issue_replacement",
         "render_support_options"],
    )  # fmt: skip
    graph.add_conditional_edges(
        "verify_identity_stepup",
        route_after_identity,
        ["confirm_action", "render_support_options", "clear_pending_action"],
    )
    graph.add_conditional_edges(
        "freeze_card", route_after_freeze, ["confirm_action", "clear_pending_action"]
    )
    for node in ("confirm_action", "issue_replacement", "render_support_options"):
        graph.add_edge(node, "clear_pending_action")
    graph.add_conditional_edges(
        "clear_pending_action", route_after_turn, ["await_confirmation", END]
    )
    graph.add_edge("await_confirmation", "classify_risk")
    return graph
