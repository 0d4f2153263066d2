"""An imported agent written for CopilotKit, over AG-UI with the official client.

The agent (imported offline by ``agent-import`` into a scratch runtime repository) reads the
frontend tools where ``ag-ui-langgraph`` puts them (``state["tools"]``), calls ``get_location``
itself, and answers with the result once the client has sent it; its model's tokens stream.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from generator.pipeline.importer import import_agent
from runtime.contract.layout import PLUGINS_FOLDER
from runtime.serving.app import create_app
from runtime.serving.launch import serve_in_thread
from runtime.settings import Settings
from tests.generator.plugin_repo import agent_repo, config, options, runtime_repo
from tests.runtime.scripted_models import location_agent
from tests.runtime.serving.agui.official_client import AguiClient
from tests.runtime.serving.agui.wire import post_run

ANSWER = "You are at 53.41, -2.99."
COPILOT_AGENT = {
    "langgraph.json": config("./graph.py:graph"),
    "LICENSE": "MIT License\n",
    "graph.py": location_agent(streams_itself=False),
}
GET_LOCATION = {
    "name": "get_location",
    "description": "Where the device is.",
    "parameters": {"type": "object", "properties": {}},
    "result": {"lat": 53.4084, "lon": -2.9916},
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("copilot")
    repo = runtime_repo(tmp / "runtime-repo")
    result = import_agent(options(agent_repo(tmp / "agent", COPILOT_AGENT), "copilot"), root=repo)
    assert result.strategy == "wrapper" and result.validation.ok
    settings = Settings(port=0, plugins_dir=repo / PLUGINS_FOLDER, log_level="WARNING")
    with serve_in_thread(create_app(settings, callbacks=[]), settings) as address:
        yield f"http://{address}/agui/copilot"


def run_types(run: dict[str, Any]) -> list[str]:
    return [e["type"] for e in run["events"]]


def test_a_copilotkit_agent_calls_a_frontend_tool_and_answers_with_its_result(
    server: str, agui_client: AguiClient
) -> None:
    report = agui_client(
        {
            "url": server,
            "threadId": uuid.uuid4().hex,
            "steps": [{"say": "where am I?"}],
            "frontendTools": [GET_LOCATION],
        }
    )
    asked, answered = report["runs"]
    (start,) = [e for e in asked["events"] if e["type"] == "TOOL_CALL_START"]
    assert start["toolCallName"] == "get_location"
    assert asked["pendingToolCallIds"] == ["call_loc_1"]
    assert "TOOL_CALL_START" not in run_types(answered)
    deltas = [e["delta"] for e in answered["events"] if e["type"] == "TEXT_MESSAGE_CONTENT"]
    assert "".join(deltas) == ANSWER
    # the model's tokens, as they came, but for the numbers at its end: held until they end,
    # as they might have been a card number (runtime.redaction.StreamMasker)
    assert deltas[:3] == ["You", " are", " at"] and len(deltas) == 4


def test_without_frontend_tools_the_agent_answers_at_once(
    server: str, agui_client: AguiClient
) -> None:
    report = agui_client(
        {"url": server, "threadId": uuid.uuid4().hex, "steps": [{"say": "where am I?"}]}
    )
    (run,) = report["runs"]
    assert "TOOL_CALL_START" not in run_types(run)
    text = "".join(e["delta"] for e in run["events"] if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert text == "I cannot tell where you are."


def test_an_answered_call_is_never_sent_to_the_agent_again(server: str) -> None:
    thread = uuid.uuid4().hex
    tools = [{k: v for k, v in GET_LOCATION.items() if k != "result"}]
    user = {"id": "u1", "role": "user", "content": "where am I?"}
    history: list[dict[str, Any]] = [
        user,
        {"id": "a1", "role": "assistant", "toolCalls": [
            {"id": "call_loc_1", "type": "function",
             "function": {"name": "get_location", "arguments": "{}"}}]},
        {"id": "t1", "role": "tool", "toolCallId": "call_loc_1", "content": '{"lat":1,"lon":2}'},
    ]  # fmt: skip

    def said(messages: list[dict[str, Any]]) -> str:
        events = post_run(server, thread, messages=messages, tools=tools)
        assert events[-1]["type"] == "RUN_FINISHED"
        return "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")

    assert said([user]) == ""
    assert said(history) == "You are at 1.00, 2.00."
    assert said(history) == ""  # the client replays its history: nothing runs again
