"""The deterministic designer: valid, useful and byte-identical screens for every agent shape."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from generator.design import DesignOptions, design
from generator.design.checks import check_design
from generator.design.facts import agent_facts
from generator.models import Inspection
from runtime.a2ui import validate_screen
from runtime.contract.screens import SCREEN_NAMES

OFFLINE = DesignOptions(offline=True)


def _by_id(components: list[dict[str, object]]) -> dict[object, dict[str, object]]:
    return {c["id"]: c for c in components}


@pytest.mark.parametrize(
    "shape", ["structured", "messages", "prebuilt", "io_schemas", "unresolvable"]
)
def test_every_shape_gets_four_screens_that_pass_the_runtime_validator(
    shapes: dict[str, Inspection], shape: str
) -> None:
    result = design(shapes[shape], plugin_id="imported", options=OFFLINE)

    for name, screen in result.screens().items():
        assert validate_screen(screen, plugin_id="imported") == [], name
        assert any(c["component"] == "DataCard" for c in screen.components), name
    facts = agent_facts(shapes[shape])
    assert check_design(result, facts=facts, plugin_id="imported") == []
    assert result.provenance.mode == "fallback"
    assert result.provenance.fallback_reason == "offline: no model was asked (--offline)"
    assert result.provenance.calls == []


def test_same_inspection_gives_a_byte_identical_design(structured: Inspection) -> None:
    first = design(structured, plugin_id="research", options=OFFLINE).model_dump_json(indent=2)
    second = design(structured, plugin_id="research", options=OFFLINE).model_dump_json(indent=2)

    assert first == second


def test_structured_state_maps_request_and_answer_fields_and_shows_scalars(
    structured: Inspection,
) -> None:
    result = design(structured, plugin_id="research", options=OFFLINE)

    assert (result.input_field, result.output_field) == ("topic", "report")
    result_screen = _by_id(result.result.components)
    assert result_screen["answer"]["component"] == "DataCard"
    assert result_screen["answer"]["value"] == {"path": "/answer"}
    assert result_screen["answer"]["title"] == "Report"
    stats = [c for c in result.result.components if c["component"] == "StatCard"]
    assert [s["value"] for s in stats] == [
        {"path": "/state/source_count"},
        {"path": "/state/confidence"},
        {"path": "/state/finished"},
    ]
    assert result.initial_domain_state == {
        "question": "",
        "answer": "",
        "error": "",
        "state": {"source_count": None, "confidence": None, "finished": None},
    }


def test_messages_agent_maps_messages_both_ways_without_stat_cards(chat: Inspection) -> None:
    result = design(chat, plugin_id="chat", options=OFFLINE)

    assert (result.input_field, result.output_field) == ("messages", "messages")
    assert _by_id(result.result.components)["answer"]["title"] == "Answer"
    # remaining_steps is LangGraph's own bookkeeping (RemainingSteps): not a card
    assert not [c for c in result.result.components if c["component"] == "StatCard"]


def test_welcome_uses_the_readme_title_and_purpose(structured: Inspection) -> None:
    result = design(structured, plugin_id="research", options=OFFLINE)
    welcome = _by_id(result.welcome.components)

    assert result.title == "Research Assistant"
    assert result.description == (
        "Researches a topic on the web and writes a short report with its sources."
    )
    assert welcome["title"]["text"] == "Research Assistant"
    assert welcome["about"]["value"] == result.description
    assert welcome["say"]["value"] == "Tell me your topic in your own words."
    assert result.welcome.voice_text == "Hello, this is Research Assistant. What is your topic?"


def test_collecting_lists_the_graph_steps_in_edge_order(structured: Inspection) -> None:
    result = design(structured, plugin_id="research", options=OFFLINE)
    steps = _by_id(result.collecting.components)["steps"]

    assert steps["items"] == [{"title": "Plan"}, {"title": "Search"}, {"title": "Write report"}]


def test_error_screen_binds_the_error_and_offers_retry_and_restart(structured: Inspection) -> None:
    result = design(structured, plugin_id="research", options=OFFLINE)
    error = _by_id(result.error.components)

    assert error["problem"]["value"] == {"path": "/error"}
    assert error["retry"]["action"] == {"event": {"name": "research.retry"}}
    assert error["restart"]["action"] == {"event": {"name": "research.restart"}}
    assert result.actions() == ["restart", "retry"]


def test_without_readme_the_title_comes_from_the_graph_id(shapes: dict[str, Inspection]) -> None:
    result = design(shapes["unresolvable"], plugin_id="mystery", options=OFFLINE)

    assert result.title == "Mystery"
    assert result.description == "A LangGraph agent (mystery)."
    assert result.input_field == result.output_field == "messages"
    assert result.provenance.mapping_reason == (
        "no state fields could be read; assuming a message-based agent"
    )


def test_voice_texts_stay_short(shapes: dict[str, Inspection]) -> None:
    for inspection in shapes.values():
        result = design(inspection, plugin_id="x_agent", options=OFFLINE)
        for name in SCREEN_NAMES:
            assert 0 < len(result.screens()[name].voice_text.split()) < 40


def test_a_private_channel_of_the_state_is_no_field_to_give_or_show(
    inspect_folder: Callable[..., Inspection],
) -> None:
    """``create_agent``'s ``jump_to`` is in its state but out of its input and output."""
    fixture = Path(__file__).resolve().parents[2] / "fixtures" / "agents" / "agent_middleware"
    inspection = inspect_folder(fixture)

    facts = agent_facts(inspection, "notes")

    assert facts.graph.state is not None and "jump_to" in [f.name for f in facts.graph.state.fields]
    assert facts.output_fields == ("messages", "structured_response", "notes")
    assert facts.input_fields == ("messages",)  # the words fill no list or model
    assert "jump_to" not in [f.name for f in facts.fields]
