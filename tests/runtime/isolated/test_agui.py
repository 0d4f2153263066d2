"""An isolated agent over AG-UI: it reads the client's frontend tools where ``ag-ui-langgraph``
puts them, calls one itself, and answers with the client's result, its model's tokens streaming
one by one, all in its worker on LangGraph 0.2."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from runtime.contract.layout import SOURCE_FOLDER
from runtime.isolated.envs import ENVS_DIR_ENV
from runtime.isolated.process import WORKERS
from runtime.serving.app import create_app
from runtime.serving.launch import serve_in_thread
from runtime.settings import Settings
from tests.runtime.conftest import FIXTURE_PLUGINS
from tests.runtime.isolated.conftest import CACHE
from tests.runtime.scripted_models import location_agent
from tests.runtime.serving.agui.wire import post_run

ANSWER = "You are at 1.00, 2.00."
#: A CopilotKit-style agent whose node streams its scripted model itself.
GRAPH = location_agent(streams_itself=True)


@pytest.fixture
def server(envs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv(ENVS_DIR_ENV, str(CACHE))
    folder = tmp_path / "plugins"
    shutil.copytree(FIXTURE_PLUGINS / "legacy", folder / "legacy")
    (folder / "legacy" / SOURCE_FOLDER / "graph.py").write_text(GRAPH)
    settings = Settings(port=0, plugins_dir=folder, log_level="WARNING")
    with serve_in_thread(create_app(settings, callbacks=[]), settings) as address:
        yield f"http://{address}/agui/legacy"
    WORKERS.close()


def test_an_isolated_agent_calls_a_frontend_tool_and_streams_its_answer(server: str) -> None:
    thread = uuid.uuid4().hex
    tools = [{"name": "get_location", "description": "Where the device is.", "parameters": {}}]
    user = {"id": "u1", "role": "user", "content": "where am I?"}
    asked = post_run(server, thread, messages=[user], tools=tools)
    (start,) = [e for e in asked if e["type"] == "TOOL_CALL_START"]
    assert start["toolCallName"] == "get_location" and start["toolCallId"] == "call_loc_1"
    call = {"name": "get_location", "arguments": "{}"}
    history = [
        user,
        {"id": "a1", "role": "assistant", "toolCalls": [
            {"id": "call_loc_1", "type": "function", "function": call}]},
        {"id": "t1", "role": "tool", "toolCallId": "call_loc_1", "content": '{"lat":1,"lon":2}'},
    ]  # fmt: skip
    answered = post_run(server, thread, messages=history, tools=tools)
    deltas = [e["delta"] for e in answered if e["type"] == "TEXT_MESSAGE_CONTENT"]
    assert "".join(deltas) == ANSWER
    # the model's tokens, as they came, but for the numbers at its end: held until they end,
    # as they might have been a card number (runtime.redaction.StreamMasker)
    assert deltas[:3] == ["You", " are", " at"] and len(deltas) == 4
