"""The conversation's state and how each turn changes it: what was said, or which button was hit.

``Conversation`` is the plugin's domain state (``state["domain"]["mortgage"]``, stored as plain
JSON). The offer is not stored: it is a pure function of the facts, recomputed when needed.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from runtime.contract.state import PendingAction
from runtime.plugins.mortgage.advice import Offer, advise
from runtime.plugins.mortgage.facts import Facts
from runtime.plugins.mortgage.parsing import parse_choice, parse_facts, wants_start_over

GREETING = "Hello, I'm your mortgage assistant."
DID_NOT_CATCH = "Sorry, I didn't catch that."
STARTING_AGAIN = "Let's start again."
NOT_ON_OFFER = "That deal isn't on offer for these details."


class Conversation(BaseModel):
    """What the mortgage agent remembers between turns."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    facts: Facts = Field(default_factory=Facts)
    #: The product the customer picked from the current offer.
    chosen: str | None = None
    #: A sentence said before the screen's own line, on the next reply only.
    notice: str | None = None


def current_offer(facts: Facts) -> Offer | None:
    """The products on offer for ``facts``, if they are complete and can be lent on."""
    if facts.missing:
        return None
    advice = advise(facts)
    return advice if isinstance(advice, Offer) else None


def hear(conversation: Conversation, text: str) -> Conversation:
    """The conversation after the customer says ``text``.

    A choice among the products on offer ("the first one", "the 2 year fix") wins over a change of
    deal; any other new fact corrects the facts and drops the choice, since the offer changes.
    """
    if not text.strip():
        return conversation
    if wants_start_over(text):
        return Conversation(notice=STARTING_AGAIN)
    facts = conversation.facts
    said = parse_facts(text, facts.missing)
    offer = current_offer(facts)
    choice = parse_choice(text, [q.product for q in offer.quotes]) if offer else None
    if choice is not None and said.model_copy(update={"deal": None}).is_empty:
        return conversation.model_copy(update={"chosen": choice.id})
    if said.is_empty:
        return conversation.model_copy(update={"notice": DID_NOT_CATCH})
    return Conversation(facts=facts.merged_with(said))


def act(conversation: Conversation, action: PendingAction) -> Conversation:
    """The conversation after a button click (already checked by ``MortgagePlugin``)."""
    name = action["id"].partition(".")[2]
    if name == "start_over":
        return Conversation(notice=STARTING_AGAIN)
    if name == "select_product":
        offer = current_offer(conversation.facts)
        product_id = action["data"].get("productId")
        if offer is not None and isinstance(product_id, str) and offer.find(product_id):
            return conversation.model_copy(update={"chosen": product_id})
        return conversation.model_copy(update={"notice": NOT_ON_OFFER})
    raise ValueError(f"the mortgage agent has no action {action['id']!r}")
