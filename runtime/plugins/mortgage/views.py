"""Which screen answers a conversation, with its data model and the words its voice line needs.

Screens live in ``screens/<name>.json``; their ``voice_text`` is a ``str.format`` template filled
from ``View.voice``. Money and percentages reach the data model already written for people.
"""

from __future__ import annotations

from typing import Any

from runtime.plugins.mortgage.advice import Offer, Refusal, advise
from runtime.plugins.mortgage.dialogue import Conversation
from runtime.plugins.mortgage.facts import FACT_LABELS, FactName, Facts
from runtime.plugins.mortgage.finance import percent, pounds
from runtime.plugins.mortgage.products import DEFAULT_COMPARISON_YEARS, Quote
from runtime.reply import View

QUESTIONS: dict[FactName, str] = {
    "property_value": "What is the property worth?",
    "loan_amount": "How much would you like to borrow?",
    "deal": "Would you like a 2, 3, 5 or 10-year fix, a tracker, or a variable rate?",
    "term_years": "Over how many years would you like to repay?",
}
FIX_LENGTH_QUESTION = "How long would you like to fix for: 2, 3, 5 or 10 years?"
EXAMPLES: dict[FactName, str] = {
    "property_value": "For example, 400k",
    "loan_amount": "For example, 250k, or a 40k deposit",
    "deal": "For example, a 5-year fix",
    "term_years": "For example, 25 years",
}


def present(conversation: Conversation) -> View:
    """The screen that answers the conversation as it stands."""
    facts = conversation.facts
    if facts.is_empty:
        return View("welcome", {})
    if facts.missing:
        return _missing_inputs(facts)
    advice = advise(facts)
    if isinstance(advice, Refusal):
        return View(
            "error",
            {"title": advice.title, "message": advice.message},
            {"message": advice.message},
        )
    chosen = advice.find(conversation.chosen) if conversation.chosen else None
    if chosen is not None:
        return _selection(facts, advice, chosen)
    return _product_list(facts, advice)


def _missing_inputs(facts: Facts) -> View:
    first = facts.missing[0]
    incomplete_fix = first == "deal" and facts.deal is not None
    question = FIX_LENGTH_QUESTION if incomplete_fix else QUESTIONS[first]
    needed = [{"label": FACT_LABELS[name], "example": EXAMPLES[name]} for name in facts.missing]
    data = {
        "question": question,
        "example": EXAMPLES[first],
        "known": _known(facts),
        "needed": needed,
    }
    return View("missing_inputs", data, {"question": question})


def _known(facts: Facts) -> list[dict[str, str]]:
    """The facts already complete, as the customer would read them back."""
    values: dict[FactName, str | None] = {
        "property_value": None if facts.property_value is None else pounds(facts.property_value),
        "loan_amount": None if facts.loan is None else pounds(facts.loan),
        "deal": facts.deal.label if facts.deal else None,
        "term_years": None if facts.term_years is None else f"{facts.term_years} years",
    }
    if facts.deposit is not None and facts.loan is not None:
        values["loan_amount"] = f"{pounds(facts.loan)} (after a {pounds(facts.deposit)} deposit)"
    return [
        {"label": FACT_LABELS[name], "value": value}
        for name, value in values.items()
        if value is not None and name not in facts.missing
    ]


def _product_list(facts: Facts, offer: Offer) -> View:
    best = offer.quotes[0]
    deal = facts.deal
    heading = (
        "Your best deals" if deal is None or deal.kind == "any" else f"Your best {deal.label} deals"
    )
    data = {
        "heading": heading,
        "loan": pounds(offer.loan),
        "propertyValue": f"on a {pounds(offer.property_value)} property",
        "ltvPercent": float(offer.ltv),
        "term": f"{facts.term_years} years",
        "products": [_product(quote, best) for quote in offer.quotes],
    }
    voice = {
        "ltv": percent(offer.ltv),
        "name": best.product.name,
        "rate": percent(best.product.rate),
        "monthly": pounds(best.monthly),
    }
    return View("product_list", data, voice)


def _product(quote: Quote, best: Quote) -> dict[str, Any]:
    product = quote.product
    years = product.deal.years or DEFAULT_COMPARISON_YEARS
    extra = quote.monthly_with_fee - best.monthly_with_fee
    return {
        "id": product.id,
        "name": product.name,
        "subtitle": f"{percent(product.rate)} {product.deal.label}",
        "monthly": f"{pounds(quote.monthly)} a month",
        "features": _features(quote),
        "badge": "Best value" if quote is best else "Costs more",
        "comparison": (
            f"{pounds(quote.monthly_with_fee)} a month with the fee over {years} years"
            if quote is best
            else f"+{pounds(extra)} a month with the fee"
        ),
    }


def _features(quote: Quote) -> list[str]:
    product = quote.product
    fee = f"Product fee {pounds(product.fee)}" if product.fee else "No product fee"
    return [
        fee,
        f"Up to {product.max_ltv}% loan-to-value",
        f"Total repayable {pounds(quote.total_repayable)}",
    ]


def _selection(facts: Facts, offer: Offer, chosen: Quote) -> View:
    product = chosen.product
    data = {
        "name": product.name,
        "subtitle": f"{percent(product.rate)} {product.deal.label}",
        "features": _features(chosen),
        "price": f"{pounds(chosen.monthly)} a month",
        "monthly": pounds(chosen.monthly),
        "termCaption": f"over {facts.term_years} years",
        "rate": percent(product.rate),
        "dealLabel": product.deal.label,
        "ltv": percent(offer.ltv),
        "loanCaption": f"{pounds(offer.loan)} on a {pounds(offer.property_value)} property",
        "total": pounds(chosen.total_repayable),
        "fee": pounds(product.fee) if product.fee else "None",
    }
    voice = {
        "name": product.name,
        "rate": percent(product.rate),
        "monthly": pounds(chosen.monthly),
        "term": str(facts.term_years),
    }
    return View("selection", data, voice)
