"""The mortgage parser: what it reads out of free text, and what it must leave alone."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from runtime.plugins.mortgage.facts import ASKING_ORDER, Deal, FactName, Facts
from runtime.plugins.mortgage.parsing import parse_choice, parse_facts, to_int, wants_start_over
from runtime.plugins.mortgage.products import load_products, product_by_id

NOTHING_KNOWN: tuple[FactName, ...] = ASKING_ORDER


def said(text: str, missing: tuple[FactName, ...] = NOTHING_KNOWN) -> dict[str, Any]:
    """What ``parse_facts`` read, without the fields it left unset."""
    return parse_facts(text, missing).model_dump(exclude_none=True)


def fix(years: int) -> dict[str, Any]:
    return {"kind": "fixed", "years": years}


def test_the_headline_sentence() -> None:
    assert said("my house is worth 400k and I owe 250k, 5 year fix over 25 years") == {
        "property_value": 400_000,
        "loan_amount": 250_000,
        "deal": fix(5),
        "term_years": 25,
    }


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("worth 400k", 400_000),
        ("worth 400 k", 400_000),
        ("worth £400,000", 400_000),
        ("worth £400000", 400_000),
        ("worth 400000", 400_000),
        ("worth 400 thousand", 400_000),
        ("worth 400 grand", 400_000),
        ("worth 1.2m", 1_200_000),
        ("worth 1.2 million", 1_200_000),
        ("worth £1,250,000.", 1_250_000),
        ("worth half a million", 500_000),
        ("worth a million", 1_000_000),
        ("worth a quarter of a million", 250_000),
        ("worth 350000 pounds", 350_000),
        ("worth £ 425k", 425_000),
    ],
)
def test_amount_spellings(text: str, amount: int) -> None:
    assert said(text) == {"property_value": amount}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I want to borrow 250k against my 400k house", (400_000, 250_000)),
        ("I owe 250k on a house worth 400k", (400_000, 250_000)),
        ("a 250k mortgage on a 400k property", (400_000, 250_000)),
        ("the house is 400k and the mortgage is 250k", (400_000, 250_000)),
        ("house 400k mortgage 250k", (400_000, 250_000)),
        # "house" is nearer to 250k, but it already belongs to 400k: 250k answers what is missing.
        ("the mortgage on my 400k house is 250k", (400_000, 250_000)),
        ("there's 250k left on the mortgage. The place is valued at 400k", (400_000, 250_000)),
        ("I need 180k for a flat costing 240k", (240_000, 180_000)),
    ],
)
def test_value_and_loan_from_cues(text: str, expected: tuple[int, int]) -> None:
    facts = parse_facts(text, NOTHING_KNOWN)
    assert (facts.property_value, facts.loan_amount) == expected


def test_a_deposit_gives_the_loan() -> None:
    facts = parse_facts("buying a £300,000 flat with a 30k deposit", NOTHING_KNOWN)
    assert (facts.property_value, facts.deposit, facts.loan) == (300_000, 30_000, 270_000)
    assert parse_facts("I have 150k equity in a 400k house").loan == 250_000


@pytest.mark.parametrize(
    ("text", "deal"),
    [
        ("5 year fix", fix(5)),
        ("a 5-year fixed rate", fix(5)),
        ("five year fix", fix(5)),
        ("two year fixed", fix(2)),
        ("10 yr fix", fix(10)),
        ("fixed for three years", fix(3)),
        ("fixed rate for 5 years", fix(5)),
        ("a fixed rate", {"kind": "fixed"}),
        ("a tracker", {"kind": "tracker"}),
        ("a 2 year tracker", {"kind": "tracker", "years": 2}),
        ("standard variable rate", {"kind": "variable"}),
        ("no preference", {"kind": "any"}),
        ("I don't mind", {"kind": "any"}),
        # The later of two deals in one breath is the correction.
        ("a tracker, no wait, a 2 year fix", fix(2)),
    ],
)
def test_deals(text: str, deal: dict[str, Any]) -> None:
    assert said(text) == {"deal": deal}


@pytest.mark.parametrize(
    ("text", "term"),
    [
        ("over 25 years", 25),
        ("over twenty five years", 25),
        ("over twenty-five years", 25),
        ("a 30 year term", 30),
        ("a 30-year mortgage", 30),
        ("term of 35 years", 35),
        ("for 20 years", 20),
        ("repaying over 15 yrs", 15),
        ("25 years", 25),
    ],
)
def test_terms(text: str, term: int) -> None:
    assert said(text) == {"term_years": term}


def test_fix_and_term_in_either_order() -> None:
    assert said("over 25 years, 5 year fix") == {"deal": fix(5), "term_years": 25}
    assert said("fixed for 2 years over 30 years") == {"deal": fix(2), "term_years": 30}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("25 years", {"term_years": 25}),  # a term, not £25
        ("5 year fix", {"deal": fix(5)}),  # a deal, not £5
        ("at 4.5%", {}),  # a rate
        ("a 10 per cent deposit", {}),
        ("option 2", {}),
        ("I owe 250", {}),  # too small to be a mortgage amount without £ or k
        ("I bought it in 2019", {}),  # a year
        ("I'm 35 years old", {}),  # an age, not a term
        ("we have 2 kids and 3 bedrooms", {}),
        ("hello", {}),
        ("", {}),
    ],
)
def test_what_is_not_picked_up(text: str, expected: dict[str, Any]) -> None:
    assert said(text) == expected


def test_age_and_year_do_not_spoil_real_facts() -> None:
    assert said("I'm 35 years old and in 2019 I bought it for 300k") == {"property_value": 300_000}


def test_bare_amounts_answer_the_missing_questions_in_order() -> None:
    assert said("400k and 250k") == {"property_value": 400_000, "loan_amount": 250_000}
    assert said("250k", ("loan_amount", "deal", "term_years")) == {"loan_amount": 250_000}
    assert said("£400,000", ("property_value", "term_years")) == {"property_value": 400_000}
    # Nothing amount-like is missing: a bare amount is not guessed.
    assert said("260k", ("deal",)) == {}
    # A cued amount is never overridden by the missing order.
    assert said("I owe 250k", NOTHING_KNOWN) == {"loan_amount": 250_000}


def test_bare_years_answer_the_deal_question_only_when_it_was_asked() -> None:
    assert said("5 years", ("deal", "term_years")) == {"deal": fix(5)}
    assert parse_facts("two years", ["deal"]).deal == Deal(kind="fixed", years=2)
    assert said("5 years", ("term_years",)) == {"term_years": 5}
    assert said("25 years", ("deal", "term_years")) == {"term_years": 25}  # no 25-year fixes


def test_cues_do_not_reach_across_sentences() -> None:
    assert said("I owe a lot. 400k.", ("property_value",)) == {"property_value": 400_000}


@given(st.text(max_size=200))
def test_any_text_parses_without_error(text: str) -> None:
    facts = parse_facts(text, NOTHING_KNOWN)
    assert all(v is None or v >= 0 for v in (facts.property_value, facts.loan_amount))
    parse_choice(text, list(load_products())[:3])
    wants_start_over(text)


@given(
    st.lists(
        st.sampled_from(
            [
                "worth",
                "owe",
                "400k",
                "250k",
                "5 year fix",
                "over",
                "25 years",
                "and",
                ",",
                ".",
                "the",
                "first",
                "one",
                "deposit",
            ]
        ),
        max_size=12,
    )
)
def test_word_salad_parses_without_error(words: list[str]) -> None:
    parse_facts(" ".join(words), NOTHING_KNOWN)


@pytest.mark.parametrize(
    ("number", "value"),
    [("25", 25), ("five", 5), ("eighteen", 18), ("twenty five", 25), ("forty", 40)],
)
def test_to_int(number: str, value: int) -> None:
    assert to_int(number) == value


# -- facts over several turns ----------------------------------------------------------------------


def test_a_later_statement_corrects_an_earlier_one() -> None:
    facts = Facts().merged_with(parse_facts("house worth 400k, I owe 250k"))
    facts = facts.merged_with(parse_facts("actually it's worth 420k"))
    assert (facts.property_value, facts.loan_amount) == (420_000, 250_000)


def test_loan_and_deposit_replace_each_other() -> None:
    facts = Facts(property_value=300_000, deposit=30_000)
    assert facts.merged_with(Facts(loan_amount=200_000)).loan == 200_000
    assert (
        Facts(property_value=300_000, loan_amount=200_000).merged_with(Facts(deposit=60_000)).loan
        == 240_000
    )


def test_a_vague_fix_keeps_the_known_length() -> None:
    facts = Facts(deal=Deal(kind="fixed", years=5)).merged_with(Facts(deal=Deal(kind="fixed")))
    assert facts.deal == Deal(kind="fixed", years=5)
    assert Facts(deal=Deal(kind="tracker")).merged_with(Facts(deal=Deal(kind="fixed"))).missing == [
        "property_value",
        "loan_amount",
        "deal",
        "term_years",
    ]


def test_missing_in_asking_order() -> None:
    assert Facts().missing == list(ASKING_ORDER)
    assert Facts(loan_amount=1, term_years=25).missing == ["property_value", "deal"]
    assert Facts(property_value=2, deposit=1, deal=Deal(kind="any"), term_years=5).missing == []


# -- choosing a product by voice ----------------------------------------------------------------


@pytest.fixture
def offered() -> list[Any]:
    """A mixed offer, best value first: a 5-year fix with a fee, a free one, a 2-year fix."""
    return [product_by_id(i) for i in ("fix5-75", "fix5-85", "fix2-85")]


@pytest.mark.parametrize(
    ("text", "chosen"),
    [
        ("the first one", "fix5-75"),
        ("I'll take the second", "fix5-85"),
        ("third option please", "fix2-85"),
        ("the last one", "fix2-85"),
        ("option 2", "fix5-85"),
        ("number three", "fix2-85"),
        ("first", "fix5-75"),
        ("the cheapest", "fix5-75"),
        ("the lowest rate", "fix5-75"),
        ("the one with no fee", "fix5-85"),
        ("the 2 year fix", "fix2-85"),
        ("5-Year Fixed 85 Fee Free", "fix5-85"),
    ],
)
def test_parse_choice(offered: list[Any], text: str, chosen: str) -> None:
    product = parse_choice(text, offered)
    assert product is not None and product.id == chosen


@pytest.mark.parametrize(
    "text",
    ["option 4", "option 0", "the 5 year fix", "a tracker", "my house is worth 400k", "yes", ""],
)
def test_parse_choice_picks_nothing(offered: list[Any], text: str) -> None:
    assert parse_choice(text, offered) is None


def test_parse_choice_without_an_offer() -> None:
    assert parse_choice("the first one", []) is None


def test_product_table_ids_are_unique() -> None:
    ids = [p.id for p in load_products()]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize(
    ("text", "expected"),
    [("let's start over", True), ("start again", True), ("reset", True), ("start", False)],
)
def test_wants_start_over(text: str, expected: bool) -> None:
    assert wants_start_over(text) is expected
