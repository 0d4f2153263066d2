"""The mortgage graph, turn by turn: compiled with a checkpointer and invoked as the runtime does.

Every turn's A2UI messages and voice lines are checked by ``Turns`` (schema, integrity, house
rules, under 40 words).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from runtime.a2ui import load_screens
from runtime.plugins.mortgage.dialogue import DID_NOT_CATCH, GREETING, NOT_ON_OFFER, STARTING_AGAIN
from runtime.plugins.mortgage.plugin import MortgagePlugin
from tests.runtime.plugins.turns import Turns, data_model, screen_ids, voice

HEADLINE = "my house is worth 400k and I owe 250k, 5 year fix over 25 years"
WELCOME = {"intro", "example", "needs"}
MISSING = {"question", "known", "needed"}
PRODUCTS = {"products", "product_card", "product_badge", "product_choose"}
SELECTION = {"chosen", "monthly", "total", "start_over"}
ERROR = {"problem", "start_over"}


@pytest.fixture
def turns() -> Turns:
    turns = Turns(MortgagePlugin())
    turns.start()
    return turns


def test_a_new_session_is_welcomed() -> None:
    events = Turns(MortgagePlugin()).start()
    assert screen_ids(events) >= WELCOME
    assert voice(events).startswith(GREETING)
    transcript = [e for e in events if e["type"] == "server.transcript.final"]
    assert [e["payload"]["text"] for e in transcript] == [voice(events)]


def test_headline_sentence_offers_five_year_fixes(turns: Turns) -> None:
    events = turns.say(HEADLINE)
    assert screen_ids(events) >= PRODUCTS
    data = data_model(events)
    assert (data["loan"], data["ltvPercent"], data["term"]) == ("£250,000", 62.5, "25 years")
    products = data["products"]
    assert 1 <= len(products) <= 3
    assert all("5-year fix" in p["subtitle"] for p in products)
    assert [p["badge"] for p in products] == ["Best value"] + ["Costs more"] * (len(products) - 1)
    assert voice(events) == (
        "At 62.5% loan-to-value, the best value is the 5-Year Fixed 75: 4.14%, "
        "£1,338.99 a month. Which would you like?"
    )


def test_the_button_carries_the_product_id_through_the_template(turns: Turns) -> None:
    events = turns.say(HEADLINE)
    components = {
        c["id"]: c
        for e in events
        if "updateComponents" in e["payload"]
        for c in e["payload"]["updateComponents"]["components"]
    }
    assert components["products"]["children"] == {"componentId": "product", "path": "/products"}
    event = components["product_choose"]["action"]["event"]
    assert event == {"name": "mortgage.select_product", "context": {"productId": {"path": "id"}}}


def test_missing_facts_are_asked_for_one_at_a_time(turns: Turns) -> None:
    events = turns.say("my house is worth 400k")
    assert screen_ids(events) >= MISSING
    assert voice(events) == "How much would you like to borrow?"
    data = data_model(events)
    assert data["known"] == [{"label": "Property value", "value": "£400,000"}]
    assert [n["label"] for n in data["needed"]] == [
        "Amount to borrow",
        "Type of deal",
        "Mortgage term",
    ]

    assert voice(turns.say("250k")).startswith("Would you like a 2, 3, 5 or 10-year fix")
    assert voice(turns.say("5 years")) == "Over how many years would you like to repay?"
    events = turns.say("25 years")
    assert screen_ids(events) >= PRODUCTS
    assert turns.domain["facts"] == {
        "property_value": 400_000,
        "loan_amount": 250_000,
        "deposit": None,
        "deal": {"kind": "fixed", "years": 5},
        "term_years": 25,
    }


def test_a_fix_without_a_length_asks_for_the_length(turns: Turns) -> None:
    events = turns.say("worth 400k, borrowing 250k, fixed rate over 25 years")
    assert voice(events) == "How long would you like to fix for: 2, 3, 5 or 10 years?"
    assert screen_ids(turns.say("two years")) >= PRODUCTS


def test_a_later_statement_corrects_an_earlier_one(turns: Turns) -> None:
    turns.say(HEADLINE)
    events = turns.say("sorry, I meant a 2 year fix")
    assert all("2-year fix" in p["subtitle"] for p in data_model(events)["products"])
    events = turns.say("actually I owe 300k")
    assert data_model(events)["loan"] == "£300,000"
    assert turns.domain["facts"]["deal"] == {"kind": "fixed", "years": 2}


def test_clicking_a_product_shows_the_summary(turns: Turns) -> None:
    offered = data_model(turns.say(HEADLINE))["products"]
    events = turns.click("select_product", productId=offered[1]["id"])
    assert screen_ids(events) >= SELECTION
    data = data_model(events)
    assert (data["name"], data["monthly"], data["rate"]) == (
        "5-Year Fixed 85 Fee Free",
        "£1,374.02",
        "4.39%",
    )
    assert (data["ltv"], data["total"], data["fee"]) == ("62.5%", "£412,206", "None")
    assert voice(events).startswith("Good choice: the 5-Year Fixed 85 Fee Free at 4.39%")


@pytest.mark.parametrize(
    ("said", "chosen"),
    [("the first one", "5-Year Fixed 75"), ("option two please", "5-Year Fixed 85 Fee Free")],
)
def test_choosing_by_voice(turns: Turns, said: str, chosen: str) -> None:
    turns.say(HEADLINE)
    events = turns.say(said)
    assert screen_ids(events) >= SELECTION
    assert data_model(events)["name"] == chosen


def test_naming_a_deal_chooses_it_from_a_mixed_offer(turns: Turns) -> None:
    events = turns.say("worth 400k, I owe 250k over 25 years, no preference")
    deals = {p["subtitle"].split(" ", 1)[1] for p in data_model(events)["products"]}
    assert len(deals) > 1, "an offer for any deal mixes deal types"
    three_year = next(p for p in data_model(events)["products"] if "3-year fix" in p["subtitle"])
    events = turns.say("the 3 year fix")
    assert data_model(events)["name"] == three_year["name"]


def test_naming_another_deal_changes_the_offer(turns: Turns) -> None:
    turns.say(HEADLINE)
    events = turns.say("the 2 year fix")
    assert screen_ids(events) >= PRODUCTS
    assert turns.domain["facts"]["deal"] == {"kind": "fixed", "years": 2}


def test_start_over_by_button_and_by_voice(turns: Turns) -> None:
    turns.say(HEADLINE)
    turns.say("the first one")
    events = turns.click("start_over")
    assert screen_ids(events) >= WELCOME
    assert voice(events).startswith(STARTING_AGAIN)
    assert turns.domain["facts"]["property_value"] is None

    turns.say(HEADLINE)
    assert screen_ids(turns.say("let's start again")) >= WELCOME


@pytest.mark.parametrize(
    ("said", "title"),
    [
        ("my house is worth 400k and I owe 390k, 5 year fix over 25 years", "too high"),
        ("my house is worth 400k and I owe 450k, 5 year fix over 25 years", "above"),
        ("my house is worth 400k and I owe 250k, 5 year fix over 45 years", "Term"),
        ("my house is worth 400k and I owe 360k, 10 year fix over 25 years", "10-year fix"),
    ],
)
def test_refusals_are_screens_not_exceptions(turns: Turns, said: str, title: str) -> None:
    events = turns.say(said)
    assert screen_ids(events) >= ERROR
    assert title in data_model(events)["title"]
    assert voice(events) == data_model(events)["message"]


def test_correcting_after_a_refusal_gets_an_offer(turns: Turns) -> None:
    turns.say("my house is worth 400k and I owe 390k, 5 year fix over 25 years")
    assert screen_ids(turns.say("OK, I'll borrow 350k")) >= PRODUCTS


def test_what_is_not_understood_is_said_and_the_screen_stays(turns: Turns) -> None:
    before = screen_ids(turns.say("my house is worth 400k"))
    events = turns.say("what's the weather like?")
    assert voice(events) == f"{DID_NOT_CATCH} How much would you like to borrow?"
    assert screen_ids(events) == before
    assert voice(turns.say("250k")).startswith("Would you like")  # no sorry carried over


def test_a_product_not_on_offer_is_refused_in_words(turns: Turns) -> None:
    turns.say(HEADLINE)
    events = turns.click("select_product", productId="fix2-60")  # ours, but not a 5-year fix
    assert voice(events).startswith(NOT_ON_OFFER)
    assert screen_ids(events) >= PRODUCTS
    assert turns.domain["chosen"] is None


def test_state_is_plain_json_with_ui_and_history(turns: Turns) -> None:
    events = turns.say(HEADLINE)
    json.dumps(turns.state["domain"])  # checkpoint-friendly: no Decimal, no models
    assert turns.state["ui"]["mortgage"] == [
        e["payload"] for e in events if e["type"] == "server.a2ui.patch"
    ]
    assert turns.state["transcript"] == ""
    history = turns.state["messages"]
    assert isinstance(history[-2], HumanMessage) and history[-2].content == HEADLINE
    assert isinstance(history[-1], AIMessage) and history[-1].content == voice(events)


def test_other_plugins_domain_is_kept(turns: Turns) -> None:
    turns.run({"domain": {**turns.state["domain"], "other": {"x": 1}}, "transcript": "400k"})
    assert turns.state["domain"]["other"] == {"x": 1}


@pytest.mark.parametrize(
    ("action_id", "data", "reason"),
    [
        ("mortgage.select_product", {"productId": "fix5-75"}, None),
        ("mortgage.start_over", {}, None),
        ("mortgage.select_product", {}, "needs the productId"),
        ("mortgage.select_product", {"productId": "nope"}, "needs the productId"),
        ("mortgage.select_product", {"productId": 3}, "needs the productId"),
        ("mortgage.apply_now", {}, "unknown action"),
    ],
)
def test_validate_action(action_id: str, data: dict[str, object], reason: str | None) -> None:
    refusal = MortgagePlugin().validate_action(action_id, data)
    assert refusal is None if reason is None else reason in (refusal or "")


def test_capabilities_and_shipped_screens() -> None:
    plugin = MortgagePlugin()
    capabilities = plugin.capabilities()
    assert capabilities.actions == ["mortgage.select_product", "mortgage.start_over"]
    screens = load_screens(Path(plugin.folder) / "screens", plugin_id="mortgage")
    assert (
        set(capabilities.screens)
        == set(screens)
        == {
            "welcome",
            "missing_inputs",
            "product_list",
            "selection",
            "error",
        }
    )
