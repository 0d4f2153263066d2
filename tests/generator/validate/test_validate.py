"""``validate`` and the offline smoke test: subprocess checks with scripted chat models."""

from __future__ import annotations

import json
import subprocess
import sys
import typing
from pathlib import Path

import pytest
from plugin_repo import (
    agent_repo,
    chat_model_agent,
    echo_agent,
    options,
    runtime_repo,
    with_env_example,
)
from pydantic import BaseModel

from generator.pipeline.importer import import_agent
from generator.validate.plugin import validate
from runtime.contract.layout import AGENT_FILE, PLUGINS_FOLDER
from runtime.testing.offline_models import SCRIPTED_REPLY, sample_value, scripted_message


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return runtime_repo(tmp_path / "repo")


def test_an_agent_calling_a_chat_model_runs_offline_with_structured_output(
    repo: Path, tmp_path: Path
) -> None:
    agent = agent_repo(tmp_path / "llm", chat_model_agent("llm_agent_pkg"))
    result = import_agent(options(agent, "llm"), root=repo)

    turns = result.validation.checks[-1]
    assert turns.ok and any(SCRIPTED_REPLY in line for line in turns.transcript)


def test_a_plugin_that_stops_importing_is_reported_with_its_traceback(
    repo: Path, tmp_path: Path
) -> None:
    agent = agent_repo(tmp_path / "echo", echo_agent("echo_validate"))
    import_agent(options(agent, "echo"), root=repo)
    plugin = repo / PLUGINS_FOLDER / "echo"
    graph = plugin / "src" / "graph.py"
    graph.write_text("import no_such_module_for_sure\n" + graph.read_text())

    report = validate(plugin)

    assert not report.ok and [c.name for c in report.checks] == ["import"]
    assert report.checks[0].missing_module == "no_such_module_for_sure"
    assert "ModuleNotFoundError" in (report.checks[0].traceback or "")
    assert report.missing is not None and report.missing.requirement is None
    assert "validate echo: FAILED" in report.describe()
    assert "--approve-deps" in report.missing.hint
    # Checked with the requirements installed already: the fix is a requirement, not the flag.
    approved = validate(plugin, python=Path(sys.executable))
    assert approved.missing is not None and "--approve-deps" not in approved.missing.hint
    assert approved.missing.hint == (
        "module 'no_such_module_for_sure' is not installed; its requirements were installed, "
        "and none provides it: add the distribution that does to echo/requirements.txt (its "
        "name may differ from the module's)"
    )


def test_a_plugin_that_validates_describes_what_a_client_received(
    repo: Path, tmp_path: Path
) -> None:
    agent = agent_repo(tmp_path / "echo", echo_agent("echo_describe"))
    import_agent(options(agent, "described"), root=repo)

    report = validate(repo / PLUGINS_FOLDER / "described")

    assert report.ok
    text = report.describe()
    assert "first turn: voice: Hello" in text
    assert "Question 1: you said Hello! What can you help me with?" in text


def test_only_credentials_get_dummies_so_settings_keep_their_defaults(
    repo: Path, tmp_path: Path
) -> None:
    names = ("SEARCH_API_KEY", "FETCH_FULL_PAGE", "LLM_PROVIDER", "AZURE_OPENAI_API_KEY")
    files = with_env_example(echo_agent("echo_settings"), *names)
    files["echo_settings/replies.py"] = """
        import os
        from typing import Literal

        from pydantic import BaseModel


        class Settings(BaseModel):
            fetch_full_page: bool = False
            llm_provider: Literal["openai", "anthropic"] = "openai"


        def reply(text: str, number: int) -> str:
            names = ("FETCH_FULL_PAGE", "LLM_PROVIDER")
            settings = Settings(**{n.lower(): os.environ[n] for n in names if n in os.environ})
            assert os.environ["SEARCH_API_KEY"], "a client refusing to start without a key"
            assert "AZURE_OPENAI_API_KEY" not in os.environ, "Azure mode, needing deployments"
            return f"Question {number}: {settings.llm_provider}, {settings.fetch_full_page}."
    """
    agent = agent_repo(tmp_path / "settings", files)

    result = import_agent(options(agent, "settings"), root=repo)

    recorded = json.loads((repo / PLUGINS_FOLDER / "settings" / AGENT_FILE).read_text())["env"]
    assert recorded == ["AZURE_OPENAI_API_KEY", "FETCH_FULL_PAGE", "LLM_PROVIDER", "SEARCH_API_KEY"]
    turns = result.validation.checks[-1]
    assert turns.ok, turns.traceback
    assert any("Question 1: openai, False." in line for line in turns.transcript)


class Decision(BaseModel):
    topic: typing.Literal["savings", "loans"]
    amount: float
    notes: list[str]
    nested: dict[str, int]


def test_the_scripted_reply_fits_the_schema_asked_for() -> None:
    message = scripted_message(Decision)

    (call,) = message.tool_calls
    assert call["name"] == "Decision"
    assert Decision.model_validate(call["args"]).topic == "savings"
    assert scripted_message().content == SCRIPTED_REPLY


def test_sample_values_follow_refs_unions_and_formats() -> None:
    schema = {
        "type": "object",
        "properties": {
            "when": {"type": "string", "format": "date"},
            "maybe": {"anyOf": [{"type": "null"}, {"type": "integer"}]},
            "item": {"$ref": "#/$defs/Item"},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2},
        },
        "$defs": {"Item": {"type": "object", "properties": {"ok": {"type": "boolean"}}}},
    }

    assert sample_value(schema) == {
        "when": "2024-01-01",
        "maybe": 0,
        "item": {"ok": False},
        "tags": ["offline", "offline"],
    }


def test_outgoing_connections_fail_fast_once_installed() -> None:
    code = (
        "from runtime.testing import offline_models as offline; offline.install(); import socket\n"
        "try:\n    socket.create_connection(('192.0.2.1', 443), timeout=30)\n"
        "except offline.NetworkDisabled as exc:\n    print('refused', exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.startswith("refused network access to 192.0.2.1 is disabled")
