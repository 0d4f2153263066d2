"""The Bedrock interface: exact ``converse`` requests in both modes, replies, and error reasons.

botocore's ``Stubber`` checks each request against the service model and against the exact
parameters expected, offline.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from generator.design import DesignOptions
from generator.design.bedrock import (
    BedrockSettings,
    BedrockUnavailable,
    Conversation,
    OutputMode,
    connect,
)
from generator.errors import AgentImportError

MODEL = "us.anthropic.claude-sonnet-4-6"
SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string"}},
    "required": ["answer"],
    "additionalProperties": False,
}
INFERENCE = {"maxTokens": 12000, "temperature": 0.0}


@pytest.fixture
def client() -> Any:
    return boto3.client(
        "bedrock-runtime",
        region_name="us-east-1",
        aws_access_key_id="AKIDEXAMPLE",
        aws_secret_access_key="secret",
    )


@pytest.fixture
def stub(client: Any) -> Iterator[Stubber]:
    with Stubber(client) as stubber:
        yield stubber
        stubber.assert_no_pending_responses()


def _conversation(client: Any, mode: OutputMode) -> Conversation:
    return Conversation(
        client,
        model_id=MODEL,
        system="You design screens.",
        prompt="Design them.",
        schema=SCHEMA,
        name="a2ui_design",
        output_mode=mode,
    )


def _response(content: list[dict[str, Any]], stop: str = "end_turn") -> dict[str, Any]:
    return {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": stop,
        "usage": {"inputTokens": 1200, "outputTokens": 340, "totalTokens": 1540},
        "metrics": {"latencyMs": 900},
    }


STRUCTURED_OUTPUT = {
    "textFormat": {
        "type": "json_schema",
        "structure": {"jsonSchema": {"schema": json.dumps(SCHEMA), "name": "a2ui_design"}},
    }
}
TOOL_CONFIG = {
    "tools": [{"toolSpec": {"name": "a2ui_design", "inputSchema": {"json": SCHEMA}}}],
    "toolChoice": {"tool": {"name": "a2ui_design"}},
}
FIRST_TURN = {"role": "user", "content": [{"text": "Design them."}]}


def test_structured_output_request_and_correction(client: Any, stub: Stubber) -> None:
    first_answer = {"role": "assistant", "content": [{"text": '{"answer": 1}'}]}
    stub.add_response(
        "converse",
        _response(first_answer["content"]),
        {
            "modelId": MODEL,
            "system": [{"text": "You design screens."}],
            "messages": [FIRST_TURN],
            "inferenceConfig": INFERENCE,
            "outputConfig": STRUCTURED_OUTPUT,
        },
    )
    stub.add_response(
        "converse",
        _response([{"text": '{"answer": "one"}'}]),
        {
            "modelId": MODEL,
            "system": [{"text": "You design screens."}],
            "messages": [
                FIRST_TURN,
                first_answer,
                {"role": "user", "content": [{"text": "answer: must be a string"}]},
            ],
            "inferenceConfig": INFERENCE,
            "outputConfig": STRUCTURED_OUTPUT,
        },
    )
    conversation = _conversation(client, "structured_output")

    first = conversation.ask()
    second = conversation.correct("answer: must be a string")

    assert first.text == '{"answer": 1}'
    assert (first.input_tokens, first.output_tokens, first.stop_reason) == (1200, 340, "end_turn")
    assert second.text == '{"answer": "one"}'


def test_tool_use_request_and_correction_as_tool_result(client: Any, stub: Stubber) -> None:
    tool_use = {"toolUseId": "tooluse_abc", "name": "a2ui_design", "input": {"answer": 1}}
    stub.add_response(
        "converse",
        _response([{"toolUse": tool_use}], stop="tool_use"),
        {
            "modelId": MODEL,
            "system": [{"text": "You design screens."}],
            "messages": [FIRST_TURN],
            "inferenceConfig": INFERENCE,
            "toolConfig": TOOL_CONFIG,
        },
    )
    error_result = {
        "toolResult": {
            "toolUseId": "tooluse_abc",
            "content": [{"text": "answer: must be a string"}],
            "status": "error",
        }
    }
    stub.add_response(
        "converse",
        _response([{"toolUse": {**tool_use, "input": {"answer": "one"}}}], stop="tool_use"),
        {
            "modelId": MODEL,
            "system": [{"text": "You design screens."}],
            "messages": [
                FIRST_TURN,
                {"role": "assistant", "content": [{"toolUse": tool_use}]},
                {"role": "user", "content": [error_result]},
            ],
            "inferenceConfig": INFERENCE,
            "toolConfig": TOOL_CONFIG,
        },
    )
    conversation = _conversation(client, "tool_use")

    assert json.loads(conversation.ask().text) == {"answer": 1}
    assert json.loads(conversation.correct("answer: must be a string").text) == {"answer": "one"}


INVALID_ID = "The provided model identifier is invalid."


@pytest.mark.parametrize(
    ("code", "status", "message", "expected"),
    [
        ("AccessDeniedException", 403, "nope", f"access denied to {MODEL}: nope"),
        ("ResourceNotFoundException", 404, "nope", f"model {MODEL} not found: nope"),
        (
            "ValidationException",
            400,
            "nope",
            f"Bedrock rejected the request to {MODEL}: nope "
            "(the model may not support structured output: try --tool-use)",
        ),
        ("ValidationException", 400, INVALID_ID, f"unknown model id {MODEL}: {INVALID_ID}"),
        ("ThrottlingException", 429, "nope", "throttled by Bedrock after 1 attempt: nope"),
        (
            "ModelTimeoutException",
            408,
            "nope",
            f"Bedrock error ModelTimeoutException from {MODEL}: nope",
        ),
    ],
)
def test_refusals_become_one_line_reasons(
    client: Any, stub: Stubber, code: str, status: int, message: str, expected: str
) -> None:
    stub.add_client_error("converse", code, message, http_status_code=status)

    with pytest.raises(BedrockUnavailable) as raised:
        _conversation(client, "structured_output").ask()

    assert str(raised.value) == expected
    assert raised.value.everywhere is False


def test_region_comes_from_aws_region(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_REGION", "eu-central-1")

    assert DesignOptions.from_env().bedrock.region == "eu-central-1"
    assert DesignOptions.from_env(bedrock={"region": "us-west-2"}).bedrock.region == "us-west-2"
    assert DesignOptions.from_env(bedrock={"region": None}).bedrock.region == "eu-central-1"


def test_connect_without_credentials_fails_before_any_network() -> None:
    with pytest.raises(BedrockUnavailable) as raised:
        connect(BedrockSettings())

    assert str(raised.value).startswith("no AWS credentials found")
    assert raised.value.everywhere is True


def test_connect_with_unknown_profile_names_it() -> None:
    with pytest.raises(BedrockUnavailable, match="nosuchprofile"):
        connect(BedrockSettings(profile="nosuchprofile"))


def test_connect_configures_retries_timeouts_and_region(dummy_credentials: None) -> None:
    client = connect(
        BedrockSettings(region="eu-west-2", read_timeout=7.5, connect_timeout=2.0, max_attempts=3)
    )
    config = client.meta.config

    assert client.meta.region_name == "eu-west-2"
    assert config.retries == {"mode": "standard", "total_max_attempts": 3}
    assert (config.read_timeout, config.connect_timeout) == (7.5, 2.0)


def test_models_and_timeout_from_the_environment_flags_win(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_IMPORT_DESIGN_MODEL", "eu.anthropic.claude-sonnet-4-6")
    monkeypatch.setenv("AGENT_IMPORT_MAPPING_MODEL", "eu.anthropic.claude-haiku-4-5-20251001-v1:0")
    monkeypatch.setenv("AGENT_IMPORT_BEDROCK_READ_TIMEOUT", "42")

    options = DesignOptions.from_env(mapping_model="my-haiku", design_model=None)

    assert options.design_model == "eu.anthropic.claude-sonnet-4-6"
    assert options.mapping_model == "my-haiku"
    assert options.bedrock.read_timeout == 42.0
    monkeypatch.setenv("AGENT_IMPORT_BEDROCK_READ_TIMEOUT", "soon")
    with pytest.raises(AgentImportError, match="AGENT_IMPORT_BEDROCK_READ_TIMEOUT='soon' is not"):
        DesignOptions.from_env()
