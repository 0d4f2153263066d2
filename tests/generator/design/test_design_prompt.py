"""The design prompt and the response schema sent with it."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from design_helpers import STRUCTURED_FIELDS

from generator.design.answer import design_schema
from generator.design.facts import agent_facts
from generator.design.mapping import mapping_prompt
from generator.design.prompt import EXAMPLES_DIR, design_prompt
from generator.models import Inspection
from runtime.a2ui import catalog_for_prompt, validate_screen


def _prompt(inspection: Inspection, **facts: Any) -> Any:
    return design_prompt(
        agent_facts(inspection, **facts),
        plugin_id="research",
        input_field="topic",
        output_field="report",
    )


def test_system_part_has_instructions_rules_catalog_and_valid_examples(
    structured: Inspection,
) -> None:
    system = _prompt(structured).system

    assert "voice-first banking assistant" in system
    assert "British English" in system
    assert "under 40 words" in system
    assert 'exactly one component has id "root", and it is a column' in system.lower()
    assert '{"event": {"name": "research.<action>"}}' in system
    assert "`research.restart`" in system and "`research.retry`" in system
    assert "Every screen shows at least one DataCard" in system
    assert catalog_for_prompt() in system
    examples = sorted(EXAMPLES_DIR.glob("*.json"))
    assert len(examples) >= 2
    for path in examples:
        screen = json.loads(path.read_text())
        assert validate_screen(screen) == []
        assert json.dumps(screen["voice_text"]) in system


def test_user_part_carries_the_agents_facts(structured: Inspection) -> None:
    user = _prompt(structured, sample_output="Report: rates rose twice in 2024.").user

    assert "Agent: Research Assistant. Researches a topic on the web" in user
    assert "State `ResearchState` (TypedDict):" in user
    assert "- notes: Annotated[list[str], operator.add], reducer operator.add" in user
    assert "- confidence: float | None, default None" in user
    assert "- search: returns notes, source_count" in user
    assert "Edges: __start__ -> plan; plan -> search; search -> write_report" in user
    assert "README excerpt:\n# Research Assistant" in user
    assert "Sample output of the agent:\nReport: rates rose twice in 2024." in user
    assert "the user's request goes into `topic`, the answer is read from `report`" in user


def test_sha256_names_exactly_what_is_sent(structured: Inspection, chat: Inspection) -> None:
    one, again, other = _prompt(structured), _prompt(structured), _prompt(chat)

    assert re.fullmatch(r"[0-9a-f]{64}", one.sha256)
    assert one.sha256 == again.sha256
    assert one.sha256 != other.sha256
    assert one.sha256 != _prompt(structured, sample_output="x").sha256


def _objects(schema: Any) -> Iterator[dict[str, Any]]:
    if isinstance(schema, dict):
        if schema.get("type") == "object":
            yield schema
        for value in schema.values():
            yield from _objects(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _objects(item)


def _keys(schema: Any) -> set[str]:
    if isinstance(schema, dict):
        return set(schema) | {k for v in schema.values() for k in _keys(v)}
    if isinstance(schema, list):
        return {k for item in schema for k in _keys(item)}
    return set()


def test_response_schemas_stay_within_bedrocks_structured_output_subset(
    shapes: dict[str, Inspection],
) -> None:
    unsupported = {"minimum", "maximum", "minLength", "maxLength", "maxItems", "$ref", "oneOf"}
    for inspection in shapes.values():
        facts = agent_facts(inspection)
        for schema in (design_schema(facts), mapping_prompt(facts).response_schema):
            objects = list(_objects(schema))
            assert objects
            for obj in objects:
                assert obj["additionalProperties"] is False
                assert obj["required"] == list(obj["properties"])  # no optional property
            assert not _keys(schema) & unsupported
            json.dumps(schema)  # a tree, no cycles


def test_schema_enums_are_the_real_fields_and_catalog_types(structured: Inspection) -> None:
    schema = design_schema(agent_facts(structured))
    component = schema["properties"]["result"]["properties"]["components"]["items"]

    assert schema["properties"]["output_field"]["enum"] == STRUCTURED_FIELDS
    assert "DataCard" in component["properties"]["component"]["enum"]
    assert next(iter(schema["properties"])) == "reasoning"  # reasoning is written first
