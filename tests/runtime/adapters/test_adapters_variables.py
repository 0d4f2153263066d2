"""Environment variables of ``agent.json`` are never a gate: a warning, and named when a run fails.

The agent is imported from its own git repository (its ``.env.example`` lists the variables, as
templates do) and served by a real uvicorn, as after a restart of the runtime.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from generator.pipeline.importer import import_agent
from runtime.adapters.variables import missing_variable, unset_warning
from runtime.contract.layout import AGENT_FILE, PLUGINS_FOLDER
from runtime.serving.app import create_app
from runtime.serving.launch import serve_in_thread
from runtime.settings import Settings
from runtime.testing.client import RuntimeClient
from tests.generator.plugin_repo import (
    agent_repo,
    echo_agent,
    options,
    runtime_repo,
    with_env_example,
)
from tests.runtime.plugins.turns import check_frames

TRACING = "LANGSMITH_API_KEY"
KEY = "SOME_API_KEY"
HOW = "set it in the environment the runtime is started in, then restart the runtime"


@pytest.fixture(scope="module")
def plugins(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An echo agent whose ``.env.example`` lists a tracing key and a key it reads on "boom", and
    one that reads its key when it is imported."""
    workdir = tmp_path_factory.mktemp("variables")
    files = with_env_example(echo_agent("echo_variables"), TRACING, KEY)
    files["echo_variables/replies.py"] = f"""
        import os


        def reply(text: str, number: int) -> str:
            if "boom" in text:
                os.environ["{KEY}"]  # KeyError when unset
            return f"Question {{number}}: you said {{text}}."
    """
    repo = runtime_repo(workdir / "repo")
    import_agent(options(agent_repo(workdir / "echo", files), "keyed"), root=repo)
    loading = with_env_example(echo_agent("echo_loading"), KEY)
    loading["echo_loading/__init__.py"] = f"import os\n\nKEY = os.environ['{KEY}']\n"
    import_agent(options(agent_repo(workdir / "loading", loading), "loading"), root=repo)
    return repo / PLUGINS_FOLDER


@pytest.fixture
def address(plugins: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    for name in (TRACING, KEY):
        monkeypatch.delenv(name, raising=False)
    settings = Settings(port=0, plugins_dir=plugins, log_level="WARNING")
    with serve_in_thread(create_app(settings, callbacks=[]), settings) as served:
        yield served


def test_unset_variables_are_a_warning_and_the_agent_answers(plugins: Path, address: str) -> None:
    recorded = json.loads((plugins / "keyed" / AGENT_FILE).read_text())["env"]
    listed = httpx.get(f"http://{address}/plugins").json()["plugins"]["keyed"]
    with RuntimeClient(address, agent="keyed") as client:
        client.receive_turn()
        frames = check_frames("keyed", client.say("hello"))

    assert recorded == [TRACING, KEY]
    assert listed["needs"] == []
    assert listed["warnings"] == [  # the tracing key is optional: never warned about
        f"reads {KEY}, which is not set: it may fail when it uses it "
        "(set it in the environment the runtime is started in, then restart the runtime)"
    ]
    finals = [f["payload"]["text"] for f in frames if f["type"] == "server.transcript.final"]
    assert finals == ["Question 1: you said hello."]


def test_an_agent_that_reads_an_unset_variable_when_it_loads_needs_it(address: str) -> None:
    listed = httpx.get(f"http://{address}/plugins").json()["plugins"]["loading"]

    assert listed["needs"] == [
        f"needs {KEY}, which is not set: {HOW} (the agent reads it when it loads)"
    ]


def test_a_run_failing_on_an_unset_variable_names_it_and_how_to_set_it(
    address: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR), RuntimeClient(address, agent="keyed") as client:
        client.receive_turn()
        frames = check_frames("keyed", client.say("boom"))
        shown = client.surfaces["keyed"].data["error"]
        again = check_frames("keyed", client.say("fine now"))

    assert shown.endswith(f" agent needs {KEY}, which is not set: {HOW}.")
    errors = [f["payload"] for f in frames if f["type"] == "server.error"]
    assert errors == [{"message": shown, "code": "agent_error"}]
    assert f"agent 'keyed' raised while answering: it needs {KEY}, which is not set" in caplog.text
    # the failed turn was rolled back, as any failed turn is
    assert any("Question 1: you said fine now." in str(f["payload"]) for f in again)


@pytest.mark.parametrize(
    "error",
    [
        KeyError("OPENAI_API_KEY"),
        ValueError(
            "Did not find openai_api_key, please add an environment variable `OPENAI_API_KEY` "
            "which contains it, or pass `openai_api_key` as a named parameter."
        ),
        RuntimeError(
            "The api_key client option must be set either by passing api_key to the client or "
            "by setting the OPENAI_API_KEY environment variable"
        ),
    ],
)
def test_a_failure_naming_an_unset_variable_is_told_apart(
    error: Exception, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    wrapped = RuntimeError("the graph failed")
    wrapped.__cause__ = error

    assert missing_variable(error, ["TAVILY_API_KEY", "OPENAI_API_KEY"]) == "OPENAI_API_KEY"
    assert missing_variable(wrapped, ["OPENAI_API_KEY"]) == "OPENAI_API_KEY"


def test_only_an_unset_variable_named_as_a_whole_word_is_blamed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("TAVILY_API_KEY", "set")

    assert missing_variable(KeyError("AZURE_OPENAI_API_KEY"), ["OPENAI_API_KEY"]) is None
    assert missing_variable(ValueError("set AZURE_OPENAI_API_KEY"), ["OPENAI_API_KEY"]) is None
    assert missing_variable(KeyError("TAVILY_API_KEY"), ["TAVILY_API_KEY"]) is None
    assert unset_warning(["TAVILY_API_KEY"]) is None
    assert unset_warning(["LANGSMITH_API_KEY", "LANGCHAIN_PROJECT", "LANGFUSE_HOST"]) is None
    assert unset_warning(["TAVILY_API_KEY", "LANGSMITH_PROJECT", "OPENAI_API_KEY"]) == (
        f"reads OPENAI_API_KEY, which is not set: it may fail when it uses it ({HOW})"
    )
