"""The bundled product table (``products.json``) and what a product costs a given customer."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from runtime.plugins.mortgage.facts import Deal
from runtime.plugins.mortgage.finance import PENNY, monthly_payment

PRODUCTS_FILE = Path(__file__).with_name("products.json")

#: Deals without an initial period (variable rate) are compared over this many years.
DEFAULT_COMPARISON_YEARS = 2


class Product(BaseModel):
    """One mortgage product: a deal, its annual rate, the highest LTV it lends at, and its fee."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    name: str
    deal: Deal
    rate: Decimal = Field(ge=0, lt=100, description="Annual rate in percent.")
    max_ltv: int = Field(gt=0, le=100, description="Highest loan-to-value in percent.")
    fee: int = Field(ge=0, description="Product fee in whole pounds.")


class ProductTable(BaseModel):
    model_config = ConfigDict(extra="forbid")

    description: str
    products: list[Product]


class Quote(BaseModel):
    """A product priced for one loan and term."""

    model_config = ConfigDict(frozen=True)

    product: Product
    monthly: Decimal
    total_repayable: Decimal
    #: The monthly payment with the fee spread over the deal's initial period: "best value" is
    #: the lowest, which compares deals of different lengths fairly.
    monthly_with_fee: Decimal


@cache
def load_products() -> tuple[Product, ...]:
    """The bundled products, read and validated once."""
    table = ProductTable.model_validate_json(PRODUCTS_FILE.read_text(encoding="utf-8"))
    return tuple(table.products)


def product_by_id(product_id: str) -> Product | None:
    return next((p for p in load_products() if p.id == product_id), None)


def quote(product: Product, loan: int, term_years: int) -> Quote:
    """What ``product`` costs for ``loan`` over ``term_years``, its rate held for the term."""
    monthly = monthly_payment(loan, product.rate, term_years)
    months = (product.deal.years or DEFAULT_COMPARISON_YEARS) * 12
    return Quote(
        product=product,
        monthly=monthly,
        total_repayable=monthly * term_years * 12 + product.fee,
        monthly_with_fee=(monthly + Decimal(product.fee) / months).quantize(PENNY, ROUND_HALF_UP),
    )
