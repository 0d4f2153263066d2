"""The lost-card conversation's own state, kept under ``state["domain"]["lost_card"]``.

The first ten fields are the domain the product spec names. The rest is the conversation's
bookkeeping, which the policy needs to span turns (which protected step the customer asked for,
whether a "yes" now would confirm it, how many wrong answers the identity check has had) and the
sentence the next reply starts with (as in the mortgage plugin).
"""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from runtime.plugins.lost_card.bank import DEMO_CARD, CardStatus

RiskLevel = Literal["low", "medium", "high"]
RISK_LEVELS: tuple[RiskLevel, ...] = ("low", "medium", "high")
#: Steps that change the card: each needs an explicit "yes", and identity first when risk is high.
Step = Literal["freeze", "unfreeze", "replace"]


class LostCardState(BaseModel):
    """One session's card and conversation; stored as plain JSON data by the checkpointer."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    card_status: CardStatus = "active"
    card_last4: str = DEMO_CARD.last4
    freeze_confirmed: bool = False
    replacement_requested: bool = False
    replacement_eta: date | None = None
    identity_verified: bool = False
    risk_level: RiskLevel = "low"
    #: Ids of the recent transactions flagged as unusual once the card was reported.
    suspicious_tx: list[str] = Field(default_factory=list)
    branch_requested: bool = False
    escalation_required: bool = False

    #: The protected step the customer asked for, waiting on identity and/or confirmation.
    requested_step: Step | None = None
    #: The step a "yes" on the next turn confirms (only ever the question just asked).
    awaiting_confirmation: Step | None = None
    failed_identity_attempts: int = 0
    #: The agent asked which town or postcode the customer is near (to find a branch).
    awaiting_place: bool = False
    #: Sentences said before the screen's own line, on this turn's reply only.
    notice: str | None = None

    def noted(self, sentence: str) -> LostCardState:
        """This state with ``sentence`` added to the reply's opening."""
        return self.model_copy(update={"notice": f"{self.notice or ''} {sentence}".strip()})

    def dump(self) -> dict[str, Any]:
        """Plain JSON data for the checkpointer."""
        return self.model_dump(mode="json")
