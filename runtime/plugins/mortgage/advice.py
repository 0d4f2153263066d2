"""From complete facts to an offer of products, or a reasoned refusal.

A refusal is an answer, not an exception: it becomes the error screen and says what would work.
"""

from __future__ import annotations

from decimal import Decimal

from pydantic import BaseModel, ConfigDict

from runtime.plugins.mortgage.facts import Deal, Facts
from runtime.plugins.mortgage.finance import loan_to_value, percent, pounds
from runtime.plugins.mortgage.products import Quote, load_products, quote

MAX_LTV = Decimal(95)
MIN_TERM_YEARS = 5
MAX_TERM_YEARS = 40
OFFER_SIZE = 3


class Offer(BaseModel):
    """The best products for the customer, best value first."""

    model_config = ConfigDict(frozen=True)

    property_value: int
    loan: int
    ltv: Decimal
    quotes: tuple[Quote, ...]

    def find(self, product_id: str) -> Quote | None:
        return next((q for q in self.quotes if q.product.id == product_id), None)


class Refusal(BaseModel):
    """Why no product can be offered; ``message`` is short enough to be spoken."""

    model_config = ConfigDict(frozen=True)

    title: str
    message: str


def advise(facts: Facts) -> Offer | Refusal:
    """Offer products for complete ``facts`` (``facts.missing`` must be empty)."""
    value, loan, deal, term = facts.property_value, facts.loan, facts.deal, facts.term_years
    if value is None or loan is None or deal is None or term is None or facts.missing:
        raise ValueError(f"cannot advise before these are known: {', '.join(facts.missing)}")
    if not MIN_TERM_YEARS <= term <= MAX_TERM_YEARS:
        return Refusal(
            title="Term out of range",
            message=f"We lend over {MIN_TERM_YEARS} to {MAX_TERM_YEARS} years, not {term}. "
            "How many years would you like?",
        )
    if value <= 0 or loan <= 0:
        return Refusal(
            title="Nothing to borrow",
            message=f"With a {pounds(value)} property there is nothing left to borrow. "
            "Could you check the amounts?",
        )
    ltv = loan_to_value(loan, value)
    if loan > value:
        return Refusal(
            title="Loan above the property's value",
            message=f"{pounds(loan)} is more than the property's {pounds(value)}. "
            f"We can lend up to {percent(MAX_LTV)} of its value, {pounds(value * MAX_LTV / 100)}.",
        )
    if ltv > MAX_LTV:
        return Refusal(
            title="Loan-to-value too high",
            message=f"That's {percent(ltv)} loan-to-value; we lend up to {percent(MAX_LTV)}, "
            f"which is {pounds(value * MAX_LTV / 100)} on this property.",
        )
    eligible = [p for p in load_products() if p.max_ltv >= ltv]
    quotes = sorted(
        (quote(p, loan, term) for p in eligible if deal.matches(p.deal)),
        key=lambda q: (q.monthly_with_fee, q.product.rate),
    )
    if not quotes:
        return Refusal(title=f"No {deal.label} available", message=_alternatives(deal, ltv))
    return Offer(property_value=value, loan=loan, ltv=ltv, quotes=tuple(quotes[:OFFER_SIZE]))


def _alternatives(deal: Deal, ltv: Decimal) -> str:
    """Say which deals *are* available at this loan-to-value."""
    available: list[str] = []
    for product in load_products():
        if product.max_ltv >= ltv and product.deal.label not in available:
            available.append(product.deal.label)
    return (
        f"We don't have a {deal.label} at {percent(ltv)} loan-to-value. "
        f"We can offer: {', '.join(available)}."
    )
