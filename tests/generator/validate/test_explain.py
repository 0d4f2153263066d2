"""Nova Lite explains a failed validation; Bedrock is faked at the wire (a local endpoint that
boto3 reaches through ``AWS_ENDPOINT_URL_BEDROCK_RUNTIME``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from plugin_repo import agent_repo, echo_agent, options, runtime_repo

from generator.design import DesignOptions
from generator.design.bedrock import BedrockSettings
from generator.design.options import DEFAULT_DIAGNOSIS_MODEL
from generator.pipeline.importer import ValidationFailed, import_agent
from generator.validate.diagnosis import Diagnosis
from generator.validate.explain import TOOL_NAME, explain
from tests.generator.design.fake_bedrock import (
    FakeBedrock,
    error,
    no_aws_configuration,
    tool_answer,
)

NOVA = "nova-lite"
WORDS = "The agent looked up a key its state never had, so its first step stopped."
FAST = DesignOptions(bedrock=BedrockSettings(read_timeout=2.0, connect_timeout=1.0))
RULES_TEXT = "The rules' own words."
TRACEBACK = "Traceback (most recent call last):\n  File \"src/graph.py\", line 3\nKeyError: 'x'"


@pytest.fixture(autouse=True)
def no_aws(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    no_aws_configuration(monkeypatch, tmp_path)


@pytest.fixture
def endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., FakeBedrock]]:
    yield from FakeBedrock.starter(monkeypatch)


def _diagnosis() -> Diagnosis:
    return Diagnosis(
        kind="needs_setting",
        check="turns",
        summary="the agent needs a value for 'x'",
        explanation=RULES_TEXT,
        fix='set agent.json "inputs": {"x": ...}',
        location="src/graph.py:3",
    )


def test_a_failed_import_is_explained_by_nova_from_the_classification_and_traceback(
    endpoint: Callable[..., FakeBedrock], tmp_path: Path
) -> None:
    repo = runtime_repo(tmp_path / "repo")
    files = echo_agent("echo_explained")
    files["echo_explained/replies.py"] = (
        "def reply(text, number):\n    state = {}\n    return state['topic']\n"
    )
    agent = agent_repo(tmp_path / "agent", files)
    # The design models have no script: 404, so the design falls back; Nova answers.
    fake = endpoint(**{NOVA: [tool_answer({"explanation": f"  {WORDS}\n"}, name=TOOL_NAME)]})
    asked = options(agent, "explained", design_options=FAST.model_copy(update={"use_cache": False}))

    with pytest.raises(ValidationFailed) as failed:
        import_agent(asked, root=repo)

    diagnosis = failed.value.report.diagnosis
    assert diagnosis is not None and diagnosis.kind == "needs_setting"
    assert (diagnosis.explanation, diagnosis.explained_by) == (WORDS, DEFAULT_DIAGNOSIS_MODEL)
    assert diagnosis.fix == 'set agent.json "inputs": {"topic": ...}'
    [request] = fake.requests_to(NOVA)
    assert request.model_id == "amazon.nova-lite-v1:0"
    assert request.body["toolConfig"]["toolChoice"] == {"tool": {"name": TOOL_NAME}}
    prompt = request.body["messages"][0]["content"][0]["text"]
    assert "Classification: needs_setting (failure)" in prompt
    assert "KeyError: 'topic'" in prompt and "replies.py" in prompt


def test_a_refusal_keeps_the_rules_explanation(endpoint: Callable[..., FakeBedrock]) -> None:
    fake = endpoint(**{NOVA: [error(403, "AccessDeniedException", "no access to this model")]})

    diagnosis = explain(_diagnosis(), TRACEBACK, FAST)

    assert (diagnosis.explanation, diagnosis.explained_by) == (RULES_TEXT, "rules")
    assert len(fake.requests_to(NOVA)) == 1


def test_an_answer_of_the_wrong_shape_keeps_the_rules_explanation(
    endpoint: Callable[..., FakeBedrock],
) -> None:
    endpoint(**{NOVA: [tool_answer({"explanation": "   "}, name=TOOL_NAME)]})

    assert explain(_diagnosis(), TRACEBACK, FAST).explained_by == "rules"


def test_without_credentials_or_offline_no_request_is_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with FakeBedrock({NOVA: [tool_answer({"explanation": WORDS}, name=TOOL_NAME)]}) as fake:
        monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", fake.url)
        no_credentials = explain(_diagnosis(), TRACEBACK, FAST)
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
        offline = explain(_diagnosis(), TRACEBACK, FAST.model_copy(update={"offline": True}))

    assert no_credentials.explanation == offline.explanation == RULES_TEXT
    assert fake.requests == []
