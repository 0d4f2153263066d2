"""Mortgage arithmetic against known values, and the offer built from the product table."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from runtime.plugins.mortgage.advice import OFFER_SIZE, Offer, Refusal, advise
from runtime.plugins.mortgage.facts import Deal, Facts
from runtime.plugins.mortgage.finance import loan_to_value, monthly_payment, percent, pounds
from runtime.plugins.mortgage.products import product_by_id, quote


@pytest.mark.parametrize(
    ("principal", "rate", "years", "expected"),
    [
        (250_000, "4.5", 25, "1389.58"),
        (100_000, "6", 30, "599.55"),
        (200_000, "5", 25, "1169.18"),
        (150_000, "3.5", 20, "869.94"),
        (120_000, "0", 10, "1000.00"),  # 0%: the principal in equal parts
        (100_000, "0", 30, "277.78"),
    ],
)
def test_monthly_payment_known_values(principal: int, rate: str, years: int, expected: str) -> None:
    assert monthly_payment(principal, Decimal(rate), years) == Decimal(expected)


def test_monthly_payment_needs_a_term() -> None:
    with pytest.raises(ValueError, match="positive number of years"):
        monthly_payment(100_000, Decimal(4), 0)


@given(
    principal=st.integers(min_value=1_000, max_value=5_000_000),
    rate=st.decimals(min_value=0, max_value=15, places=2),
    years=st.integers(min_value=5, max_value=40),
)
def test_payments_repay_at_least_the_principal(principal: int, rate: Decimal, years: int) -> None:
    """Interest never makes the total smaller than what was borrowed (to the penny per month)."""
    total = monthly_payment(principal, rate, years) * years * 12
    assert total >= principal - Decimal("0.005") * years * 12


def test_loan_to_value() -> None:
    assert loan_to_value(250_000, 400_000) == Decimal("62.5")
    assert loan_to_value(1, 3) == Decimal("33.3")
    with pytest.raises(ValueError, match="property value must be positive"):
        loan_to_value(1, 0)


@pytest.mark.parametrize(
    ("amount", "text"),
    [(250_000, "£250,000"), (Decimal("1389.58"), "£1,389.58"), (Decimal("1389.5"), "£1,389.50")],
)
def test_pounds(amount: int | Decimal, text: str) -> None:
    assert pounds(amount) == text


def test_percent_drops_trailing_zeros() -> None:
    assert [percent(Decimal(v)) for v in ("4.50", "62.5", "60.0", "95")] == [
        "4.5%",
        "62.5%",
        "60%",
        "95%",
    ]


# -- advice ---------------------------------------------------------------------------------------


def facts(value: int, loan: int, deal: Deal, term: int = 25) -> Facts:
    return Facts(property_value=value, loan_amount=loan, deal=deal, term_years=term)


FIVE_YEAR_FIX = Deal(kind="fixed", years=5)


def test_offer_is_filtered_by_deal_and_ltv_best_value_first() -> None:
    offer = advise(facts(400_000, 250_000, FIVE_YEAR_FIX))
    assert isinstance(offer, Offer)
    assert offer.ltv == Decimal("62.5")
    assert 0 < len(offer.quotes) <= OFFER_SIZE
    for q in offer.quotes:
        assert q.product.deal == FIVE_YEAR_FIX and q.product.max_ltv >= 62.5
        assert q.monthly == monthly_payment(250_000, q.product.rate, 25)
        assert q.total_repayable == q.monthly * 300 + q.product.fee
    costs = [q.monthly_with_fee for q in offer.quotes]
    assert costs == sorted(costs)


def test_quote_spreads_the_fee_over_the_deal() -> None:
    fix, svr = product_by_id("fix5-60"), product_by_id("svr")
    assert fix is not None and (fix.rate, fix.fee) == (Decimal("3.99"), 1499)
    assert svr is not None and svr.fee == 0
    fixed = quote(fix, 250_000, 25)
    assert fixed.monthly == monthly_payment(250_000, Decimal("3.99"), 25)
    assert fixed.monthly_with_fee == (fixed.monthly + Decimal(1499) / 60).quantize(Decimal("0.01"))
    assert quote(svr, 250_000, 25).monthly_with_fee == quote(svr, 250_000, 25).monthly


def test_best_value_counts_the_fee() -> None:
    """At 60% LTV the 3.99% fix has a £1,499 fee; on a small loan the fee-free one wins."""
    small = advise(facts(200_000, 60_000, FIVE_YEAR_FIX))
    large = advise(facts(1_000_000, 600_000, FIVE_YEAR_FIX))
    assert isinstance(small, Offer) and isinstance(large, Offer)
    assert small.quotes[0].product.fee == 0
    assert large.quotes[0].product.id == "fix5-60"


def test_any_deal_mixes_deal_types() -> None:
    offer = advise(facts(400_000, 200_000, Deal(kind="any")))
    assert isinstance(offer, Offer)
    assert len({q.product.deal for q in offer.quotes}) > 1


@pytest.mark.parametrize(
    ("value", "loan", "deal", "term", "title", "says"),
    [
        (400_000, 390_000, FIVE_YEAR_FIX, 25, "Loan-to-value too high", "97.5%"),
        (400_000, 450_000, FIVE_YEAR_FIX, 25, "Loan above the property's value", "£380,000"),
        (400_000, 250_000, FIVE_YEAR_FIX, 50, "Term out of range", "5 to 40 years"),
        (400_000, 250_000, FIVE_YEAR_FIX, 2, "Term out of range", "not 2"),
        (400_000, 360_000, Deal(kind="fixed", years=10), 25, "No 10-year fix available", "90%"),
        (400_000, 250_000, Deal(kind="fixed", years=7), 25, "No 7-year fix available", "5-year"),
    ],
)
def test_refusals_explain(
    value: int, loan: int, deal: Deal, term: int, title: str, says: str
) -> None:
    refusal = advise(facts(value, loan, deal, term))
    assert isinstance(refusal, Refusal)
    assert refusal.title == title
    assert says in refusal.message
    assert len(refusal.message.split()) < 40


def test_exactly_95_percent_is_lent() -> None:
    assert isinstance(advise(facts(400_000, 380_000, FIVE_YEAR_FIX)), Offer)


def test_a_deposit_covering_the_price_leaves_nothing_to_borrow() -> None:
    refusal = advise(
        Facts(property_value=200_000, deposit=200_000, deal=FIVE_YEAR_FIX, term_years=25)
    )
    assert isinstance(refusal, Refusal) and refusal.title == "Nothing to borrow"


def test_advise_needs_complete_facts() -> None:
    with pytest.raises(ValueError, match="deal, term_years"):
        advise(Facts(property_value=1, loan_amount=1))
