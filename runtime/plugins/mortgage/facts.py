"""What we know about the customer's mortgage, gathered over several turns.

``Facts`` is plain data (it lives in the checkpointed graph state as a dict). A later statement
corrects an earlier one: ``merged_with`` lets every field the newer facts set win.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

DealKind = Literal["fixed", "tracker", "variable", "any"]
FactName = Literal["property_value", "loan_amount", "deal", "term_years"]

#: The order in which missing facts are asked for.
ASKING_ORDER: tuple[FactName, ...] = ("property_value", "loan_amount", "deal", "term_years")

FACT_LABELS: dict[FactName, str] = {
    "property_value": "Property value",
    "loan_amount": "Amount to borrow",
    "deal": "Type of deal",
    "term_years": "Mortgage term",
}


class Deal(BaseModel):
    """The kind of deal the customer wants; ``years`` is the initial period (a fix's length)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: DealKind
    years: int | None = None

    @property
    def complete(self) -> bool:
        """A fix needs its length; every other kind is complete as it is."""
        return self.kind != "fixed" or self.years is not None

    @property
    def label(self) -> str:
        if self.kind == "fixed":
            return f"{self.years}-year fix" if self.years else "fixed rate"
        if self.kind == "tracker":
            return f"{self.years}-year tracker" if self.years else "tracker"
        if self.kind == "variable":
            return "variable rate"
        return "any deal"

    def matches(self, other: Deal) -> bool:
        """Whether a product's deal (``other``) is one this request accepts."""
        if self.kind == "any":
            return True
        return self.kind == other.kind and self.years in (None, other.years)


class Facts(BaseModel):
    """The customer's inputs; ``None`` means not said yet. Amounts are whole pounds."""

    model_config = ConfigDict(extra="forbid")

    property_value: int | None = None
    loan_amount: int | None = None
    #: Said instead of a loan amount ("a 40k deposit", "150k equity"): loan = value - deposit.
    deposit: int | None = None
    deal: Deal | None = None
    term_years: int | None = None

    @property
    def loan(self) -> int | None:
        """The amount to borrow, stated or derived from a deposit."""
        if self.loan_amount is not None:
            return self.loan_amount
        if self.deposit is not None and self.property_value is not None:
            return self.property_value - self.deposit
        return None

    @property
    def missing(self) -> list[FactName]:
        """Facts still needed before products can be offered, in asking order."""
        known: dict[FactName, bool] = {
            "property_value": self.property_value is not None,
            "loan_amount": self.loan is not None,
            "deal": self.deal is not None and self.deal.complete,
            "term_years": self.term_years is not None,
        }
        return [name for name in ASKING_ORDER if not known[name]]

    @property
    def is_empty(self) -> bool:
        return not self.model_dump(exclude_none=True)

    def merged_with(self, newer: Facts) -> Facts:
        """These facts corrected by ``newer``: every field ``newer`` sets wins.

        A loan amount and a deposit are two ways of saying the same thing, so stating one forgets
        the other; a fix without a length keeps the length already known.
        """
        update = newer.model_dump(exclude_none=True)
        if newer.loan_amount is not None:
            update["deposit"] = None
        if newer.deposit is not None:
            update["loan_amount"] = None
        vague_deal = newer.deal is not None and not newer.deal.complete
        if vague_deal and self.deal is not None and self.deal.kind == update["deal"]["kind"]:
            update.pop("deal")
        merged = self.model_dump() | update
        return Facts.model_validate(merged)
