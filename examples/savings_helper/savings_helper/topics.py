"""The fixed answers the savings helper gives, one per topic."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Topic:
    title: str
    keywords: frozenset[str]
    answer: str
    follow_up: str


TOPICS = (
    Topic(
        title="ISAs",
        keywords=frozenset({"isa", "isas", "tax", "free", "allowance"}),
        answer=(
            "An ISA lets you save up to 20,000 pounds each tax year with no tax on the interest. "
            "A cash ISA works like a savings account; a stocks and shares ISA invests the money."
        ),
        follow_up=(
            "the allowance is 20,000 pounds per tax year, shared across all your ISAs, and it "
            "resets on 6 April."
        ),
    ),
    Topic(
        title="notice accounts",
        keywords=frozenset({"notice", "withdraw", "access", "days"}),
        answer=(
            "A notice account pays more interest in exchange for telling us 30, 60 or 95 days "
            "before you take money out."
        ),
        follow_up=(
            "you can give notice in the app at any time, and the money arrives on the day the "
            "notice ends."
        ),
    ),
    Topic(
        title="emergency funds",
        keywords=frozenset({"emergency", "rainy", "fund", "buffer", "unexpected"}),
        answer=(
            "Most people aim to keep three to six months of essential spending in an easy access "
            "account for emergencies."
        ),
        follow_up=(
            "start with one month of essentials, then add a fixed amount each payday until you "
            "reach three months."
        ),
    ),
    Topic(
        title="interest",
        keywords=frozenset({"interest", "rate", "rates", "aer", "earn"}),
        answer=(
            "Our easy access saver pays 3.1 percent AER variable; the 95 day notice account pays "
            "4.2 percent AER variable."
        ),
        follow_up="interest is calculated daily and paid monthly into the same account.",
    ),
)
