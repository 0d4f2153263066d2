"""Which state field takes the user's request, and which holds the agent's answer.

A small model (Haiku) is asked first, with the real field names as the only allowed answers; an
answer naming anything else is refused and the heuristic decides. The heuristic: agents that
speak in messages use ``messages`` both ways; structured states use the first field named like a
request (question, query, input...) and the first named like an answer (answer, result,
output...), preferring exact names over names that merely contain the word.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from generator.design.facts import MESSAGES_FIELD, AgentFacts, is_scalar
from generator.design.prompt import Prompt, describe_agent
from generator.design.repair import InvalidAnswer
from generator.models import END

MAPPING_NAME = "field_mapping"

INPUT_WORDS = (
    "question",
    "query",
    "input",
    "request",
    "prompt",
    "user_input",
    "message",
    "task",
    "goal",
    "topic",
    "instructions",
    "text",
)
OUTPUT_WORDS = (
    "answer",
    "final_answer",
    "result",
    "output",
    "response",
    "summary",
    "report",
    "final_report",
    "reply",
    "draft",
    "content",
    "generation",
)

_SYSTEM = """\
You map a LangGraph agent's state onto a voice assistant's turn: which state field receives the \
user's spoken or typed request, and which field holds the answer to read back. Agents whose \
conversation lives in a `messages` list use `messages` for both. Answer only with field names \
from the lists you are given."""


class FieldMapping(BaseModel):
    """The chosen fields and why."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input_field: str
    output_field: str
    mode: Literal["bedrock", "heuristic"]
    reason: str


class _MappingAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    reasoning: str
    input_field: str
    output_field: str


def heuristic_mapping(facts: AgentFacts) -> FieldMapping:
    """The mapping read from field names alone (deterministic)."""
    if facts.messages_based:
        reason = (
            "the agent speaks in messages"
            if facts.fields
            else "no state fields could be read; assuming a message-based agent"
        )
        return FieldMapping(
            input_field=MESSAGES_FIELD, output_field=MESSAGES_FIELD, mode="heuristic", reason=reason
        )
    input_field = (
        _best(facts.input_fields, INPUT_WORDS) or _first_text(facts) or facts.input_fields[0]
    )
    outputs = [name for name in facts.output_fields if name != input_field] or [input_field]
    output_field = _best(tuple(outputs), OUTPUT_WORDS) or _last_returned(facts, outputs)
    reason = (
        f"from field names and node returns: {input_field!r} takes the request, "
        f"{output_field!r} holds the answer"
    )
    if facts.structured_inputs:
        names = ", ".join(repr(name) for name in facts.structured_inputs)
        reason += (
            f"; the agent takes structured input ({names}), which the user's words cannot fill: "
            "it needs a value, left for review in agent.json"
        )
    return FieldMapping(
        input_field=input_field, output_field=output_field, mode="heuristic", reason=reason
    )


def mapping_prompt(facts: AgentFacts) -> Prompt:
    """The question for the mapping model, its schema constrained to the real field names."""
    user = (
        f"{describe_agent(facts)}\n"
        f"Input field candidates: {', '.join(facts.input_fields)}\n"
        f"Output field candidates: {', '.join(facts.output_fields)}\n"
        "Which field receives the user's request, and which holds the answer?"
    )
    schema = {
        "type": "object",
        "properties": {
            "reasoning": {"type": "string", "description": "One sentence, first."},
            "input_field": {"type": "string", "enum": list(facts.input_fields)},
            "output_field": {"type": "string", "enum": list(facts.output_fields)},
        },
        "required": ["reasoning", "input_field", "output_field"],
        "additionalProperties": False,
    }
    return Prompt(system=_SYSTEM, user=user, response_schema=schema, name=MAPPING_NAME)


def parse_mapping(text: str, facts: AgentFacts) -> FieldMapping:
    """The model's mapping; ``InvalidAnswer`` unless it names real fields."""
    try:
        answer = _MappingAnswer.model_validate_json(text)
    except ValidationError as exc:
        raise InvalidAnswer([f"not a field mapping: {exc.errors()[0]['msg']}"]) from None
    errors = [
        f"{key} {value!r} is not one of {', '.join(allowed)}"
        for key, value, allowed in (
            ("input_field", answer.input_field, facts.input_fields),
            ("output_field", answer.output_field, facts.output_fields),
        )
        if value not in allowed
    ]
    if errors:
        raise InvalidAnswer(errors)
    return FieldMapping(
        input_field=answer.input_field,
        output_field=answer.output_field,
        mode="bedrock",
        reason=" ".join(answer.reasoning.split())[:300],
    )


def _best(names: tuple[str, ...], words: tuple[str, ...]) -> str | None:
    """The first name equal to a word (in word order), else the first containing one."""
    for word in words:
        if word in names:
            return word
    for word in words:
        for name in names:
            if word in name.lower().split("_"):
                return name
    return None


def _last_returned(facts: AgentFacts, outputs: list[str]) -> str:
    """The first non-flag field the finishing nodes return, else the first output.

    Nodes with an edge to END finish the work, so they are asked first; then the others, last
    added first (a node added late is not necessarily the one that answers).
    """
    types = {f.name: f.type for f in facts.fields}
    nodes = list(reversed(facts.graph.nodes or []))
    finishing = {e.source for e in facts.graph.edges if e.target == END}
    for node in sorted(nodes, key=lambda node: node.name not in finishing):
        for name in node.returns or []:
            if name in outputs and types.get(name) != "bool":
                return name
    return outputs[0]


def _first_text(facts: AgentFacts) -> str | None:
    """The first ``str`` input field: a request is text."""
    types = {f.name: f.type for f in facts.fields}
    for name in facts.input_fields:
        if is_scalar(types.get(name, "")) and "str" in types.get(name, ""):
            return name
    return None
