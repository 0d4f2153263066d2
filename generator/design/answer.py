"""The shape of the design model's answer, as a JSON schema for Bedrock and as pydantic models.

Constrained decoding on Bedrock accepts a subset of JSON Schema: every object needs
``additionalProperties: false``, recursion and numeric/length bounds are refused, and a request may
hold at most 24 optional properties and 16 ``anyOf``/type-array properties across its schemas. Our
catalog has 17 component types with about 50 props, most optional and most "literal or binding"
unions, so "any catalog component" cannot be spelt out as typed optional props within those
limits. Each component is therefore ``{"id", "component", "props"}``: ``component`` is an enum of
the catalog's types (so no invented component gets through decoding) and ``props`` is a JSON
*string* holding the component's other properties. We parse that string and check it with the same
validator the runtime uses; its exact errors go back to the model in the repair turn. The schema
stays small, has no optional property at all, and needs nothing Bedrock might refuse.
``initial_domain_state`` is a JSON string for the same reason (a free-form object).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from generator.design.facts import AgentFacts
from generator.design.models import DesignContent
from generator.design.repair import InvalidAnswer
from runtime.a2ui.catalog import COMPONENT_TYPES
from runtime.a2ui.models import Screen
from runtime.contract.screens import SCREEN_NAMES, SCREEN_PURPOSES, ScreenName

#: The tool / schema name Bedrock sees.
ANSWER_NAME = "a2ui_design"


class _Wire(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class WireComponent(_Wire):
    id: str
    component: str
    props: str


class WireScreen(_Wire):
    components: list[WireComponent]
    voice_text: str


class DesignAnswer(_Wire):
    """The answer exactly as the schema asks for it."""

    reasoning: str
    input_field: str
    output_field: str
    initial_domain_state: str
    welcome: WireScreen
    collecting: WireScreen
    result: WireScreen
    error: WireScreen


def design_schema(facts: AgentFacts) -> dict[str, Any]:
    """The JSON schema of ``DesignAnswer``, with the agent's real fields as enums."""
    component = _object(
        id={"type": "string", "description": "Unique within the screen; the top one is 'root'."},
        component={"type": "string", "enum": sorted(COMPONENT_TYPES)},
        props={
            "type": "string",
            "description": "The component's other properties as one JSON object, "
            'e.g. {"text": "Hello", "variant": "h2"}; "{}" when it has none.',
        },
    )
    screen: dict[str, dict[str, Any]] = {
        "components": {"type": "array", "items": component},
        "voice_text": {"type": "string", "description": "What the assistant says; under 40 words."},
    }
    screens = {
        name: {**_object(**screen), "description": SCREEN_PURPOSES[name]} for name in SCREEN_NAMES
    }
    return _object(
        reasoning={"type": "string", "description": "Your design reasoning, briefly, first."},
        input_field={"type": "string", "enum": list(facts.input_fields)},
        output_field={"type": "string", "enum": list(facts.output_fields)},
        initial_domain_state={
            "type": "string",
            "description": "The data model as one JSON object: question, answer, error, state.",
        },
        **screens,
    )


def _object(**properties: dict[str, Any]) -> dict[str, Any]:
    """A closed object whose properties are all required (Bedrock's subset prefers that)."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def parse_design_answer(text: str) -> DesignContent:
    """The answer as A2UI screens and a data model; not yet checked against the catalog.

    Raises ``InvalidAnswer`` naming every problem found in the answer's shape and JSON strings.
    """
    try:
        answer = DesignAnswer.model_validate_json(text)
    except ValidationError as exc:
        raise InvalidAnswer([pydantic_problem(error) for error in exc.errors()]) from None
    errors: list[str] = []
    screens: dict[ScreenName, Screen] = {}
    for name in SCREEN_NAMES:
        wire: WireScreen = getattr(answer, name)
        components = []
        for component in wire.components:
            props = _json_object(
                component.props, f"{name}: component '{component.id}': props", errors
            )
            for key in ("id", "component"):
                if key in props:
                    errors.append(
                        f"{name}: component '{component.id}': props: must not repeat {key!r}"
                    )
            components.append({"id": component.id, "component": component.component, **props})
        screens[name] = Screen(components=components, voice_text=wire.voice_text)
    domain = _json_object(answer.initial_domain_state, "initial_domain_state", errors)
    if errors:
        raise InvalidAnswer(errors)
    return DesignContent(
        **screens,
        input_field=answer.input_field,
        output_field=answer.output_field,
        initial_domain_state=domain,
        reasoning=answer.reasoning,
    )


def _json_object(text: str, where: str, errors: list[str]) -> dict[str, Any]:
    """Parse a JSON object held in a string; on failure record why and return ``{}``."""
    try:
        value = json.loads(text)
    except ValueError as exc:
        errors.append(f"{where}: not valid JSON ({exc})")
        return {}
    if not isinstance(value, dict):
        errors.append(f"{where}: must be a JSON object, got {type(value).__name__}")
        return {}
    return value


def pydantic_problem(error: Any) -> str:
    """One pydantic error as one line: ``welcome.components: field required``."""
    where = ".".join(str(part) for part in error["loc"])
    if error["type"] == "json_invalid":
        return f"the answer is not valid JSON ({error['ctx']['error']})"
    return f"{where or 'answer'}: {error['msg'][:1].lower()}{error['msg'][1:]}"
