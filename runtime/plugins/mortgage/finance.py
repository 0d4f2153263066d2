"""Mortgage arithmetic in ``Decimal``: repayments, loan-to-value, and how money is written.

Payments use standard amortisation, M = P·r / (1 - (1 + r)^-n) with the monthly rate r = annual/12
and n = years·12, rounded half-up to the penny as lenders quote them.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

PENNY = Decimal("0.01")
TENTH = Decimal("0.1")


def monthly_payment(principal: int | Decimal, annual_rate_percent: Decimal, years: int) -> Decimal:
    """The monthly repayment of a ``principal`` repaid over ``years`` at a fixed annual rate."""
    if years <= 0:
        raise ValueError(f"term must be a positive number of years, got {years}")
    months = years * 12
    principal = Decimal(principal)
    rate = annual_rate_percent / 100 / 12
    if rate == 0:
        return (principal / months).quantize(PENNY, ROUND_HALF_UP)
    payment = principal * rate / (1 - (1 + rate) ** -months)
    return payment.quantize(PENNY, ROUND_HALF_UP)


def loan_to_value(loan: int, value: int) -> Decimal:
    """The loan as a percentage of the property's value, to one decimal place."""
    if value <= 0:
        raise ValueError(f"property value must be positive, got {value}")
    return (Decimal(loan) * 100 / value).quantize(TENTH, ROUND_HALF_UP)


def pounds(amount: int | Decimal) -> str:
    """``£250,000`` for whole pounds, ``£1,389.58`` otherwise."""
    amount = Decimal(amount)
    if amount == amount.to_integral_value():
        return f"£{amount:,.0f}"
    return f"£{amount.quantize(PENNY, ROUND_HALF_UP):,.2f}"


def percent(value: Decimal) -> str:
    """``4.5%``, ``62.5%``, ``60%``: no trailing zeros."""
    text = f"{value.normalize():f}"
    return f"{text}%"
