"""``design()`` over real HTTP against a fake Bedrock endpoint on 127.0.0.1.

boto3 finds the endpoint through ``AWS_ENDPOINT_URL_BEDROCK_RUNTIME``; dummy credentials come from
the environment. botocore's own retries, timeouts and error parsing run for real.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from design_helpers import model_answer
from fake_bedrock import Step, error, text_answer, tool_answer

from generator.design import Design, DesignOptions, design
from generator.design.answer import ANSWER_NAME, parse_design_answer
from generator.design.bedrock import BedrockSettings
from generator.design.checks import check_design
from generator.design.facts import agent_facts
from generator.design.repair import feedback
from generator.models import Inspection

HAIKU = "us.anthropic.claude-haiku-4-5-20251001-v1:0"
SONNET = "us.anthropic.claude-sonnet-4-6"
MAPPING = json.dumps(
    {"reasoning": "topic in, report out", "input_field": "topic", "output_field": "report"}
)
FAST = DesignOptions(bedrock=BedrockSettings(read_timeout=0.5, connect_timeout=1.0))


def _garbage(inspection: Inspection) -> dict[str, Any]:
    """An answer of the right shape with screens the validator rejects."""
    answer = model_answer(inspection, "research")
    result = answer["result"]["components"]
    result[1]["props"] = json.dumps({"text": "Your report", "colour": "red"})  # the title Text
    answer["welcome"]["voice_text"] = "word " * 45
    return answer


def _expected_errors(inspection: Inspection, answer: dict[str, Any]) -> list[str]:
    content = parse_design_answer(json.dumps(answer))
    return check_design(content, facts=agent_facts(inspection), plugin_id="research")


def test_valid_answer_is_used_with_provenance(structured: Inspection, endpoint: Any) -> None:
    answer = model_answer(structured, "research")
    fake = endpoint(
        haiku=[text_answer(MAPPING, input_tokens=300, output_tokens=40)],
        sonnet=[text_answer(json.dumps(answer))],
    )

    result = design(structured, plugin_id="research", options=FAST)

    assert result.provenance.mode == "bedrock"
    assert result.reasoning == "Designed by the model."
    assert result.welcome.voice_text == "Good morning. I can research any topic for you."
    assert (result.input_field, result.output_field) == ("topic", "report")
    p = result.provenance
    assert (p.design_model, p.mapping_model, p.mapping) == (SONNET, HAIKU, "bedrock")
    assert (p.attempts, p.input_tokens, p.output_tokens) == (1, 1300, 240)
    assert [(c.purpose, c.model_id, c.valid) for c in p.calls] == [
        ("mapping", HAIKU, True),
        ("design", SONNET, True),
    ]
    assert p.fallback_reason is None and p.cached is False
    [request] = fake.requests_to("sonnet")
    assert request.model_id == SONNET
    sent_schema = request.body["outputConfig"]["textFormat"]["structure"]["jsonSchema"]
    assert sent_schema["name"] == ANSWER_NAME
    assert (
        json.loads(sent_schema["schema"])["properties"]["input_field"]["enum"]
        == ["topic", "report"]  # the text fields: the user's words fill no list or number
    )
    assert (
        "Proposed field mapping: the user's request goes into `topic`"
        in (request.body["messages"][0]["content"][0]["text"])
    )
    assert request.headers["Authorization"].startswith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/")


def test_invalid_answer_is_repaired_with_the_exact_errors(
    structured: Inspection, endpoint: Any
) -> None:
    garbage = _garbage(structured)
    good = model_answer(structured, "research")
    fake = endpoint(
        haiku=[text_answer(MAPPING)],
        sonnet=[text_answer(json.dumps(garbage)), text_answer(json.dumps(good))],
    )

    result = design(structured, plugin_id="research", options=FAST)

    assert result.provenance.mode == "bedrock"
    assert result.provenance.attempts == 2
    assert [c.valid for c in result.provenance.calls if c.purpose == "design"] == [False, True]
    first, second = fake.requests_to("sonnet")
    errors = _expected_errors(structured, garbage)
    assert errors == [
        "welcome: property 'voice_text': 45 words; voice text must stay under 40",
        "result: component 'title' property 'colour': Text has no such property "
        "(it has: id, component, text, variant)",
    ]
    messages = second.body["messages"]
    assert messages[:2] == [
        first.body["messages"][0],
        {"role": "assistant", "content": [{"text": json.dumps(garbage)}]},
    ]
    assert messages[2] == {"role": "user", "content": [{"text": feedback(errors)}]}


def test_garbage_every_time_falls_back_after_three_answers(
    structured: Inspection, endpoint: Any
) -> None:
    fake = endpoint(haiku=[text_answer(MAPPING)], sonnet=[text_answer("this is not JSON at all")])

    result = design(structured, plugin_id="research", options=FAST)

    assert len(fake.requests_to("sonnet")) == 3
    p = result.provenance
    assert p.mode == "fallback" and p.attempts == 3
    assert p.fallback_reason is not None
    assert p.fallback_reason.startswith(
        f"3 answers from {SONNET} failed validation (last: the answer is not valid JSON"
    )
    assert result.input_field == "topic"  # the model's mapping still stands
    assert p.output_tokens == 200 + 3 * 200


def test_throttling_falls_back_after_botocore_retries(
    structured: Inspection, endpoint: Any
) -> None:
    fake = endpoint(
        haiku=[text_answer(MAPPING)],
        sonnet=[error(429, "ThrottlingException", "Too many requests")],
    )

    result = design(structured, plugin_id="research", options=FAST)

    assert len(fake.requests_to("sonnet")) == 3  # total_max_attempts
    assert result.provenance.mode == "fallback"
    assert (
        result.provenance.fallback_reason
        == "throttled by Bedrock after 3 attempts: Too many requests"
    )


def test_access_denied_falls_back_at_once(structured: Inspection, endpoint: Any) -> None:
    message = "You don't have access to the model with the specified model ID."
    fake = endpoint(
        haiku=[text_answer(MAPPING)], sonnet=[error(403, "AccessDeniedException", message)]
    )

    result = design(structured, plugin_id="research", options=FAST)

    assert len(fake.requests_to("sonnet")) == 1  # not retried
    assert result.provenance.fallback_reason == f"access denied to {SONNET}: {message}"


def test_mapping_model_denied_still_designs_with_the_heuristic_mapping(
    structured: Inspection, endpoint: Any
) -> None:
    answer = model_answer(structured, "research")
    endpoint(
        haiku=[error(403, "AccessDeniedException", "no Haiku here")],
        sonnet=[text_answer(json.dumps(answer))],
    )

    result = design(structured, plugin_id="research", options=FAST)

    assert result.provenance.mode == "bedrock"
    assert result.provenance.mapping == "heuristic"
    assert result.provenance.mapping_reason == (
        "from field names and node returns: 'topic' takes the request, 'report' holds the "
        f"answer ({HAIKU}: access denied to {HAIKU}: no Haiku here)"
    )


def test_mapping_naming_unknown_fields_is_refused(structured: Inspection, endpoint: Any) -> None:
    invented = json.dumps({"reasoning": "x", "input_field": "query", "output_field": "report"})
    endpoint(
        haiku=[text_answer(invented)],
        sonnet=[text_answer(json.dumps(model_answer(structured, "research")))],
    )

    result = design(structured, plugin_id="research", options=FAST)

    assert result.provenance.mapping == "heuristic"
    assert "input_field 'query' is not one of topic, report" in (
        result.provenance.mapping_reason or ""
    )
    assert [c.valid for c in result.provenance.calls if c.purpose == "mapping"] == [False]


def test_slow_endpoint_times_out_into_the_fallback(structured: Inspection, endpoint: Any) -> None:
    fake = endpoint(haiku=[text_answer(MAPPING)], sonnet=[Step(body={}, delay=3.0)])
    options = DesignOptions(bedrock=BedrockSettings(read_timeout=0.2, connect_timeout=1.0))

    result = design(structured, plugin_id="research", options=options)

    assert result.provenance.mode == "fallback"
    assert (result.provenance.fallback_reason or "").startswith(
        "cannot reach Bedrock: Read timeout"
    )
    assert len(fake.requests_to("sonnet")) == 3  # botocore retries timeouts


def test_no_credentials_falls_back_without_any_request(
    structured: Inspection, endpoint: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = endpoint(haiku=[text_answer(MAPPING)], sonnet=[text_answer("{}")])
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")

    result = design(structured, plugin_id="research", options=FAST)

    assert fake.requests == []
    assert result.provenance.mode == "fallback"
    assert (result.provenance.fallback_reason or "").startswith("no AWS credentials found")
    assert result.provenance.calls == []


def test_tool_use_mode_over_http(chat: Inspection, endpoint: Any) -> None:
    mapping = {"reasoning": "chat", "input_field": "messages", "output_field": "messages"}
    answer = model_answer(chat, "chat")
    fake = endpoint(
        haiku=[tool_answer(mapping, name="field_mapping")],
        sonnet=[tool_answer(answer, name=ANSWER_NAME)],
    )
    options = DesignOptions(bedrock=BedrockSettings(output_mode="tool_use", read_timeout=0.5))

    result = design(chat, plugin_id="chat", options=options)

    assert isinstance(result, Design) and result.provenance.mode == "bedrock"
    [request] = fake.requests_to("sonnet")
    assert request.body["toolConfig"]["toolChoice"] == {"tool": {"name": ANSWER_NAME}}
    assert "outputConfig" not in request.body


def test_streamed_answer_arrives_in_pieces_and_designs_the_same(
    structured: Inspection, endpoint: Any
) -> None:
    answer = json.dumps(model_answer(structured, "research"))
    fake = endpoint(haiku=[text_answer(MAPPING)], sonnet=[text_answer(answer)])
    pieces: list[str] = []

    result = design(structured, plugin_id="research", options=FAST, on_text=pieces.append)

    assert result.provenance.mode == "bedrock"
    assert result.reasoning == "Designed by the model."
    assert len(pieces) == 4 and "".join(pieces) == answer
    [request] = fake.requests_to("sonnet")
    assert request.path.endswith("/converse-stream")
    assert [r.path.endswith("/converse") for r in fake.requests_to("haiku")] == [True]
    assert (result.provenance.input_tokens, result.provenance.output_tokens) == (2000, 400)


def test_streamed_tool_use_answer_is_reassembled(chat: Inspection, endpoint: Any) -> None:
    mapping = {"reasoning": "chat", "input_field": "messages", "output_field": "messages"}
    answer = model_answer(chat, "chat")
    endpoint(
        haiku=[tool_answer(mapping, name="field_mapping")],
        sonnet=[tool_answer(answer, name=ANSWER_NAME)],
    )
    options = DesignOptions(bedrock=BedrockSettings(output_mode="tool_use", read_timeout=0.5))
    pieces: list[str] = []

    result = design(chat, plugin_id="chat", options=options, on_text=pieces.append)

    assert result.provenance.mode == "bedrock"
    assert json.loads("".join(pieces)) == answer


def test_refused_stream_falls_back_with_the_reasoning_at_once(
    structured: Inspection, endpoint: Any
) -> None:
    endpoint(
        haiku=[text_answer(MAPPING)],
        sonnet=[error(403, "AccessDeniedException", "no Sonnet for you")],
    )
    pieces: list[str] = []

    result = design(structured, plugin_id="research", options=FAST, on_text=pieces.append)

    assert result.provenance.mode == "fallback"
    assert result.provenance.fallback_reason == f"access denied to {SONNET}: no Sonnet for you"
    assert pieces == [result.reasoning]  # the fallback's reasoning, at once
