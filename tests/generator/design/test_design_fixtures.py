"""Every graph of every fixture agent, inspected for real, gets a valid offline design."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.design import DesignOptions, design
from generator.design.checks import check_design
from generator.design.facts import agent_facts
from generator.errors import AgentImportError
from generator.fetch import Workspace, fetch
from generator.inspect import inspect_source
from generator.models import Inspection

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "agents"


def _graphs() -> list[tuple[str, Inspection]]:
    """(label, inspection of one graph) for each fixture graph the inspector can read."""
    found = []
    with Workspace() as workspace:
        for folder in sorted(FIXTURES.iterdir()):
            try:
                inspection = inspect_source(fetch(str(folder), workspace=workspace))
            except AgentImportError:
                continue  # fixtures of inputs the inspector rightly refuses
            for graph in inspection.graphs:
                one = inspection.model_copy(update={"graphs": [graph]})
                found.append((f"{folder.name}/{graph.graph_id}", one))
    return found


GRAPHS = _graphs()


def test_the_fixtures_cover_many_shapes() -> None:
    assert len(GRAPHS) >= 10


@pytest.mark.parametrize(("label", "inspection"), GRAPHS, ids=[label for label, _ in GRAPHS])
def test_offline_design_is_valid(label: str, inspection: Inspection) -> None:
    result = design(inspection, plugin_id="fixture", options=DesignOptions(offline=True))

    assert check_design(result, facts=agent_facts(inspection), plugin_id="fixture") == [], label
    assert result.input_field in agent_facts(inspection).input_fields


def test_a_graph_whose_input_schema_has_no_messages_takes_the_request_in_a_declared_field() -> None:
    """Its state keeps messages, but messages sent to it would never reach it (LangGraph keeps
    only what the input schema declares)."""
    (inspection,) = [one for label, one in GRAPHS if label.startswith("enrichment_input/")]
    result = design(inspection, plugin_id="fixture", options=DesignOptions(offline=True))

    assert (result.input_field, result.output_field) == ("topic", "summary")


def _fixture(label: str) -> Inspection:
    (inspection,) = [one for name, one in GRAPHS if name == label]
    return inspection


def test_the_words_never_go_into_a_dict_input_when_a_text_field_takes_them() -> None:
    """``email_input: dict`` is named like a request, but words there fail the first node
    (``TypeError: string indices must be integers``); ``notes: str`` takes them."""
    inspection = _fixture("email_input/reply")
    result = design(inspection, plugin_id="fixture", options=DesignOptions(offline=True))

    assert result.input_field == "notes"
    assert agent_facts(inspection).input_fields == ("notes",)


def test_an_agent_taking_only_structured_input_gets_the_words_as_a_message() -> None:
    """Its email is left for review in agent.json, and the design says so plainly."""
    inspection = _fixture("email_input/triage")
    facts = agent_facts(inspection)
    result = design(inspection, plugin_id="fixture", options=DesignOptions(offline=True))

    assert (facts.input_fields, facts.structured_inputs) == (("messages",), ("email_input",))
    assert result.input_field == "messages"
    assert "takes structured input ('email_input')" in (result.provenance.mapping_reason or "")
