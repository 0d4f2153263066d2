"""How risky the session is, from what the customer reports and what the bank sees.

The customer's own report sets the level: a found card is low risk, a lost or stolen one medium
(nothing shows it has been used), and transactions the customer disowns are high. The bank's
"unusual" flags are collected as ``suspicious_tx`` whenever a card is reported, but they raise the
level only through the customer: a flag is a hint, "I don't recognise these" is a fraud report.

Risk never goes down within a session: a high-risk session stays high even if the caller then says
"I found it", because that is exactly what someone holding a stolen card would say to unfreeze it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from runtime.plugins.lost_card.bank import Transaction
from runtime.plugins.lost_card.state import RISK_LEVELS, RiskLevel

Report = Literal["lost", "stolen", "fraud", "found"]

REPORT_RISK: dict[Report, RiskLevel] = {
    "found": "low",
    "lost": "medium",
    "stolen": "medium",
    "fraud": "high",
}


class RiskAssessment(BaseModel):
    """The session's risk level and the transactions that look like fraud."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    level: RiskLevel
    suspicious_tx: list[str]


def classify_risk(
    report: Report, transactions: Sequence[Transaction], *, current: RiskLevel = "low"
) -> RiskAssessment:
    """Assess a new report against the card's recent transactions and the session's level."""
    level = max(current, REPORT_RISK[report], key=RISK_LEVELS.index)
    return RiskAssessment(level=level, suspicious_tx=[t.id for t in transactions if t.unusual])
