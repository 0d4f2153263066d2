"""An affordability calculator with structured state: parse → calculate → summarise.

The request is one sentence; the figures it names are parsed into a pydantic model, and the
results are plain typed fields of the state, so a caller can show them without reading prose.
"""

from __future__ import annotations

import re
from typing import TypedDict

from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel

#: Annual interest rate used for loan repayments.
APR = 0.069
#: The share of the monthly surplus a repayment may take and still count as affordable.
AFFORDABLE_SHARE = 0.5


class Figures(BaseModel):
    """What the request said, in pounds per month (the loan in pounds, its term in years)."""

    income: float | None = None
    costs: float | None = None
    loan: float | None = None
    years: int | None = None


class BudgetState(TypedDict, total=False):
    request: str
    figures: Figures
    monthly_surplus: float
    monthly_repayment: float
    affordable: bool
    summary: str


_AMOUNT = r"(\d[\d,]*(?:\.\d+)?)\s*(k)?"
_PATTERNS = {
    "income": rf"(?:earn|income|salary|take home)\D{{0,20}}?{_AMOUNT}",
    "costs": rf"(?:costs?|spend|outgoings|bills)\D{{0,20}}?{_AMOUNT}",
    "loan": rf"(?:borrow|loan)\D{{0,20}}?{_AMOUNT}",
    "years": r"(\d+)\s*years?",
}


def _amount(number: str, thousands: str | None) -> float:
    value = float(number.replace(",", ""))
    return value * 1000 if thousands else value


def parse(state: BudgetState) -> BudgetState:
    """Read the figures out of the request; anything not mentioned stays unknown."""
    text = state.get("request", "").lower()
    found: dict[str, float | int] = {}
    for name, pattern in _PATTERNS.items():
        if match := re.search(pattern, text):
            if name == "years":
                found[name] = int(match.group(1))
            else:
                found[name] = _amount(match.group(1), match.group(2))
    return {"figures": Figures(**found)}


def repayment(loan: float, years: int) -> float:
    """The monthly repayment of an amortising loan at ``APR``."""
    rate, months = APR / 12, years * 12
    return loan * rate / (1 - (1 + rate) ** -months)


def calculate(state: BudgetState) -> BudgetState:
    """Surplus, repayment and verdict from the figures that are known."""
    figures = state["figures"]
    surplus = (figures.income or 0.0) - (figures.costs or 0.0)
    result: BudgetState = {"monthly_surplus": round(surplus, 2)}
    if figures.loan and figures.years:
        payment = repayment(figures.loan, figures.years)
        result["monthly_repayment"] = round(payment, 2)
        result["affordable"] = payment <= surplus * AFFORDABLE_SHARE
    return result


def summarise(state: BudgetState) -> BudgetState:
    """One or two sentences a person can read out."""
    figures = state["figures"]
    if figures.income is None:
        return {
            "summary": "Tell me your monthly income and costs, and how much you want to borrow."
        }
    surplus = state["monthly_surplus"]
    text = f"You have {surplus:,.0f} pounds left each month."
    if "monthly_repayment" in state:
        payment = state["monthly_repayment"]
        verdict = "affordable" if state.get("affordable") else "a stretch"
        text += (
            f" Repaying {figures.loan:,.0f} over {figures.years} years costs {payment:,.0f}"
            f" a month, which looks {verdict}."
        )
    return {"summary": text}


builder = StateGraph(BudgetState)
builder.add_node("parse", parse)
builder.add_node("calculate", calculate)
builder.add_node("summarise", summarise)
builder.add_edge(START, "parse")
builder.add_edge("parse", "calculate")
builder.add_edge("calculate", "summarise")
builder.add_edge("summarise", END)
graph = builder.compile(name="budget_calculator")
