"""Read mortgage facts and product choices out of free text, deterministically.

How an utterance is read:

1. Normalise: lower case, ``400,000`` → ``400000``, ``25-year`` → ``25 year``, "half a million".
2. Deals and durations first: "5 year fix", "fixed for five years", "tracker", "variable" (the
   deal); "over 25 years", "25 year term" (the term). Numbers inside them are never amounts. When
   one utterance names two deals or two terms, the later one wins ("a tracker, no, a 2 year fix").
3. Amounts: a number with ``£`` or a unit (``k``, ``m``, thousand, million, grand, pounds), or a
   bare number of at least 10,000. Percentages, years ("in 2019") and small bare numbers
   ("option 2") are not amounts.
4. Each amount takes the nearest cue word ("worth", "owe", "borrow", "deposit", "house", ...) on
   its side of the neighbouring amounts and within its sentence, closest pairs first, each cue used
   once. An amount without a cue answers the missing question(s) in asking order.

``missing`` (the facts the conversation still lacks, in asking order) is the context a person
would use: after "How much is the property worth?", a bare "400k" is the property value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from runtime.plugins.mortgage.facts import Deal, FactName, Facts
from runtime.plugins.mortgage.products import Product

AmountField = Literal["property_value", "loan_amount", "deposit"]

_ONES = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
_TEENS = [
    "ten", "eleven", "twelve", "thirteen", "fourteen",
    "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
]  # fmt: skip
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50}
_WORD_VALUES = (
    {word: n for n, word in enumerate(_ONES, start=1)}
    | {word: n for n, word in enumerate(_TEENS, start=10)}
    | _TENS
)


def _either(words: Iterable[str]) -> str:
    """A regex alternation, longest first so "eighteen" is not read as "eight"."""
    return "|".join(sorted(words, key=len, reverse=True))


#: A small whole number in digits or words: "25", "five", "twenty five".
NUMBER = rf"(?:\d{{1,3}}|(?:{_either(_TENS)})(?: (?:{_either(_ONES)}))?|{_either(_TEENS + _ONES)})"
_YEARS = r"(?:years?|yrs?)"

_CUES: dict[AmountField, tuple[str, ...]] = {
    "property_value": (
        "worth", "valued", "value", "valuation", "price", "priced", "costs?", "buying", "buy",
        "purchase", "purchasing", "bought", "house", "home", "property", "flat", "apartment",
        "bungalow", "cottage",
    ),
    "loan_amount": (
        "owe", "owing", "borrow", "borrowing", "loan", "mortgage", "outstanding", "remaining",
        "balance", "left", "need", "lend",
    ),
    "deposit": ("deposit", "equity", "down payment", "put down"),
}  # fmt: skip
_CUE_PATTERN = re.compile(
    "|".join(rf"(?P<{field}>\b(?:{'|'.join(words)})\b)" for field, words in _CUES.items())
)
_AMOUNT = re.compile(
    r"(?P<pound>£ ?)?\b(?P<number>\d+(?:\.\d+)?)(?!\d|\.\d) ?"
    r"(?P<unit>k|m|grand|thousand|million|mil|quid|pounds?)?\b"
    r"(?! ?(?:%|per ?cent|years?|yrs?|months?)\b)"
)
_THOUSAND, _MILLION = 1_000, 1_000_000
_MULTIPLIERS = {"k": _THOUSAND, "grand": _THOUSAND, "thousand": _THOUSAND}
_MULTIPLIERS |= {"m": _MILLION, "mil": _MILLION, "million": _MILLION}
#: A bare number (no ``£``, no unit) is only an amount from this size up.
_MIN_BARE_AMOUNT = 10_000
_MAX_WORDS_FROM_CUE = 5

_DEALS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), kind)
    for pattern, kind in (
        (rf"\b(?P<n>{NUMBER}) (?:{_YEARS} )?(?:fixed|fix)\b", "fixed"),
        (
            rf"\bfix(?:ed)?(?: rate)?(?: deal| mortgage)? (?:for|of) (?P<n>{NUMBER}) {_YEARS}",
            "fixed",
        ),
        (rf"\b(?:(?P<n>{NUMBER}) {_YEARS} )?tracker\b", "tracker"),
        (r"\b(?:standard )?variable(?: rate)?\b|\bsvr\b", "variable"),
        (
            r"\bno preference\b|\bany (?:deal|fix|rate|product|type)\b|"
            r"\b(?:don'?t|do not) mind\b|\b(?:doesn'?t|does not) matter\b",
            "any",
        ),
        (r"\bfix(?:ed)?(?: rate)?\b", "fixed"),
    )
)
_TERMS = tuple(
    re.compile(pattern)
    for pattern in (
        rf"\b(?:over|across|for|lasting|term of) (?:a term of )?(?P<n>{NUMBER}) {_YEARS}",
        rf"\b(?P<n>{NUMBER}) {_YEARS} (?:term|mortgage|loan|repayment)\b",
        rf"\bterm (?:of |is |to be )?(?P<n>{NUMBER})(?: {_YEARS})?\b",
    )
)
#: "25 years" on its own; "35 years old" is an age, not a term.
_BARE_YEARS = re.compile(rf"\b(?P<n>{NUMBER}) {_YEARS}\b(?! old\b)")
_LONGEST_FIX = 10


@dataclass(frozen=True)
class _Span:
    start: int
    end: int

    def overlaps(self, other: _Span) -> bool:
        return self.start < other.end and other.start < self.end


@dataclass(frozen=True)
class _Amount(_Span):
    value: int


@dataclass(frozen=True)
class _Cue(_Span):
    field: AmountField


def normalise(text: str) -> str:
    """Lower case, thousands separators dropped, hyphens as spaces, spoken millions as digits."""
    text = text.lower().replace("\u2019", "'")
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)
    text = re.sub(r"(?<=\w)-(?=\w)", " ", text)
    text = re.sub(r"\bhalf (?:a|one) (?:million|mil)\b", "500k", text)
    text = re.sub(r"\ba quarter of a (?:million|mil)\b", "250k", text)
    text = re.sub(r"\b(?:a|one) (?:million|mil)\b", "1m", text)
    return re.sub(r"\s+", " ", text).strip()


def to_int(number: str) -> int:
    """``"25"``, ``"five"`` or ``"twenty five"`` as an int."""
    if number.isdigit():
        return int(number)
    return sum(_WORD_VALUES[word] for word in number.split())


def parse_facts(text: str, missing: Sequence[FactName] = ()) -> Facts:
    """The facts stated in ``text``; fields not mentioned stay ``None``."""
    text = normalise(text)
    taken: list[_Span] = []
    deal = _last_deal(text, taken)
    terms = [to_int(m.group("n")) for m in _read(_TERMS, text, taken)]
    term = terms[-1] if terms else None
    for match in _read((_BARE_YEARS,), text, taken):
        years = to_int(match.group("n"))
        if deal is None and missing and missing[0] == "deal" and years <= _LONGEST_FIX:
            deal = Deal(kind="fixed", years=years)
        elif term is None:
            term = years
    amounts = _assign_amounts(text, taken, missing)
    return Facts(
        property_value=amounts.get("property_value"),
        loan_amount=amounts.get("loan_amount"),
        deposit=amounts.get("deposit"),
        deal=deal,
        term_years=term,
    )


def _read(
    patterns: Iterable[re.Pattern[str]], text: str, taken: list[_Span]
) -> list[re.Match[str]]:
    """Every match of ``patterns`` (earlier patterns first) not overlapping what was read already,
    in text order; marks them as read."""
    found: list[re.Match[str]] = []
    for pattern in patterns:
        for match in pattern.finditer(text):
            span = _Span(*match.span())
            if not any(span.overlaps(t) for t in taken):
                taken.append(span)
                found.append(match)
    return sorted(found, key=lambda m: m.start())


def _last_deal(text: str, taken: list[_Span]) -> Deal | None:
    kinds = {pattern: kind for pattern, kind in _DEALS}
    matches = _read(kinds, text, taken)
    if not matches:
        return None
    last = matches[-1]
    years = last.groupdict().get("n")
    return Deal.model_validate({"kind": kinds[last.re], "years": to_int(years) if years else None})


def _find_amounts(text: str, taken: list[_Span]) -> list[_Amount]:
    amounts: list[_Amount] = []
    for match in _AMOUNT.finditer(text):
        span = _Span(match.start("number"), match.end())
        if any(span.overlaps(t) for t in taken):
            continue
        unit = match.group("unit") or ""
        value = Decimal(match.group("number")) * _MULTIPLIERS.get(unit, 1)
        if not (match.group("pound") or unit) and value < _MIN_BARE_AMOUNT:
            continue
        amounts.append(_Amount(span.start, span.end, int(value)))
    return amounts


def _find_cues(text: str) -> list[_Cue]:
    return [
        _Cue(match.start(), match.end(), field)  # type: ignore[arg-type]
        for match in _CUE_PATTERN.finditer(text)
        for field, word in match.groupdict().items()
        if word is not None
    ]


def _assign_amounts(
    text: str, taken: list[_Span], missing: Sequence[FactName]
) -> dict[AmountField, int]:
    """Pair amounts with their nearest cues, closest first; bare amounts answer ``missing``."""
    amounts = _find_amounts(text, taken)
    cues = _find_cues(text)
    # Word and sentence number of every offset: distances count words, pairs stay in a sentence.
    word_at = [0] * (len(text) + 1)
    sentence_at = [0] * (len(text) + 1)
    for i, char in enumerate(text):
        word_at[i + 1] = word_at[i] + (char == " ")
        sentence_at[i + 1] = sentence_at[i] + (char in ".!?;" and text[i + 1 : i + 2] in (" ", ""))

    pairs: list[tuple[int, bool, int, int]] = []  # (words between, cue after?, amount, cue)
    for a, amount in enumerate(amounts):
        low = amounts[a - 1].end if a > 0 else 0
        high = amounts[a + 1].start if a + 1 < len(amounts) else len(text)
        for c, cue in enumerate(cues):
            if not low <= cue.start < cue.end <= high:
                continue
            if sentence_at[cue.start] != sentence_at[amount.start]:
                continue
            after = cue.start >= amount.end
            gap = (
                word_at[cue.start] - word_at[amount.end]
                if after
                else word_at[amount.start] - word_at[cue.end]
            )
            if gap - 1 <= _MAX_WORDS_FROM_CUE:
                pairs.append((gap - 1, after, a, c))

    fields: dict[int, AmountField] = {}
    used: set[int] = set()
    for _, _, a, c in sorted(pairs):
        if a not in fields and c not in used:
            fields[a] = cues[c].field
            used.add(c)

    found: dict[AmountField, int] = {}
    bare: list[int] = []
    for a, amount in enumerate(amounts):
        if a in fields:
            found[fields[a]] = amount.value
        else:
            bare.append(amount.value)
    unanswered: list[AmountField] = [
        field
        for field in ("property_value", "loan_amount")
        if field in missing and field not in found
        and not (field == "loan_amount" and "deposit" in found)
    ]  # fmt: skip
    found.update(zip(unanswered, bare, strict=False))
    return found


# -- choosing a product by voice ----------------------------------------------------------------

_ORDINALS = {"first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2, "last": -1}
_ORDINAL = _either(_ORDINALS)
_CHOICE_BY_ORDINAL = (
    re.compile(rf"\bthe (?P<ordinal>{_ORDINAL})\b"),
    re.compile(rf"\b(?P<ordinal>{_ORDINAL}) (?:one|option|product|deal|choice)\b"),
    re.compile(rf"^(?P<ordinal>{_ORDINAL})$"),
)
_CHOICE_BY_NUMBER = re.compile(rf"\b(?:option|number|product|deal|choice) (?P<n>{NUMBER})\b")
_CHOICE_BEST = re.compile(r"\b(?:cheapest|best value|best one|best deal|lowest (?:cost|payment))\b")
_CHOICE_LOWEST_RATE = re.compile(r"\blowest rate\b")
_CHOICE_NO_FEE = re.compile(r"\b(?:no fee|fee free|without (?:a|the|any) fee)\b")
_START_OVER = re.compile(r"\b(?:start (?:over|again)|begin again|from scratch|reset)\b")


def parse_choice(text: str, offered: Sequence[Product]) -> Product | None:
    """The product ``text`` picks among ``offered`` (best value first), or ``None``.

    "the first one", "option 2", "the last one", "the cheapest", "the lowest rate", "the one with
    no fee", a product's name, or a deal that matches exactly one offer ("the 2 year fix").
    """
    if not offered:
        return None
    text = normalise(text)
    for pattern in _CHOICE_BY_ORDINAL:
        if (match := pattern.search(text)) is not None:
            index = _ORDINALS[match.group("ordinal")]
            return offered[index] if index < len(offered) else None
    if (match := _CHOICE_BY_NUMBER.search(text)) is not None:
        number = to_int(match.group("n"))
        return offered[number - 1] if 1 <= number <= len(offered) else None
    if _CHOICE_BEST.search(text):
        return offered[0]
    if _CHOICE_LOWEST_RATE.search(text):
        return min(offered, key=lambda p: p.rate)
    if _CHOICE_NO_FEE.search(text):
        return next((p for p in offered if p.fee == 0), None)
    if (named := next((p for p in offered if normalise(p.name) in text), None)) is not None:
        return named
    deal = _last_deal(text, [])
    matching = [p for p in offered if deal is not None and deal.complete and deal.matches(p.deal)]
    return matching[0] if len(matching) == 1 else None


def wants_start_over(text: str) -> bool:
    """ "Start over", "start again", "reset": the customer wants a fresh search."""
    return _START_OVER.search(normalise(text)) is not None
