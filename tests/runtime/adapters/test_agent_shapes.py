"""Agents of the shapes third-party projects have, run as LangGraph's server runs them.

* Functional-API agents (``@entrypoint``): the user's words go in as the entrypoint takes them (a
  bare list of messages, or a string), its return value is the answer, and its ``previous`` is
  kept per session.
* An agent that reads, when it loads, a settings file its repository ships only as an example
  (``settings.example.json``): the import proposes the file, made from the example.
* A configuration dataclass requiring the ``user_id`` LangGraph's server puts in
  ``configurable``: given the session's user (validation's session has one).
* A graph an async function builds at import (``agent = asyncio.run(build_agent())``).
* A graph file in a folder named like the library (``langgraph/langgraph.py``, no
  ``__init__.py``; or ``src/langgraph/agent.py`` where ``src`` is a package): its ``from
  langgraph.graph import ...`` finds the installed LangGraph, as Python's import rules (and the
  server) have it.

Fixture agents of our own (``tests/fixtures/agents/``), imported offline into a scratch runtime
repository, validated, then served over the real WebSocket.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from generator.pipeline.importer import ImportResult, import_agent
from runtime.contract.layout import AGENT_FILE, PLUGINS_FOLDER
from runtime.testing.client import RuntimeClient
from runtime.testing.offline_models import SCRIPTED_REPLY
from tests.generator.pipeline.fixture_agents import fixture_repo
from tests.generator.plugin_repo import options, runtime_repo
from tests.runtime.conftest import runtime_process

#: Plugin id: the fixture, and the input shape the inspection must read from its entrypoint.
AGENTS = {
    "chat": ("functional_chat", "messages"),
    "lookup": ("functional_query", "text"),
    "essay": ("entrypoint", "messages"),
    "helper": ("package_named_folder", "state"),
    "todo": ("src_package", "state"),
    "docs": ("async_built", "state"),
    "greeter": ("config_example", "state"),
    "memory": ("memory_user", "state"),
}


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, ImportResult]]:
    tmp = tmp_path_factory.mktemp("functional")
    repo = runtime_repo(tmp / "repo")
    results = {
        plugin_id: import_agent(options(fixture_repo(name, tmp / name), plugin_id), root=repo)
        for plugin_id, (name, _) in AGENTS.items()
    }
    return repo / PLUGINS_FOLDER, results


@pytest.fixture(scope="module")
def server(imported: tuple[Path, dict[str, ImportResult]]) -> Iterator[str]:
    """``a2ui-runtime serve --offline-models`` in a process of its own (the scripted models
    patch every chat model of the process they are installed in)."""
    plugins, _ = imported
    with runtime_process("--plugins-dir", str(plugins), "--offline-models") as address:
        yield address


def final(frames: list[dict[str, Any]]) -> str:
    (text,) = [f["payload"]["text"] for f in frames if f["type"] == "server.transcript.final"]
    return str(text)


def test_each_agent_is_wrapped_with_the_input_its_graph_takes(
    imported: tuple[Path, dict[str, ImportResult]],
) -> None:
    plugins, results = imported
    for plugin_id, (_, shape) in AGENTS.items():
        result = results[plugin_id]
        agent = json.loads((plugins / plugin_id / AGENT_FILE).read_text())
        assert (result.strategy, agent.get("input_shape", "state")) == ("wrapper", shape)
        assert result.validation.ok and result.validation.diagnosis is None, plugin_id


def test_validation_hears_each_entrypoints_own_answer(
    imported: tuple[Path, dict[str, ImportResult]],
) -> None:
    _, results = imported
    heard = {
        plugin_id: results[plugin_id].validation.checks[1].transcript[-1] for plugin_id in AGENTS
    }
    assert heard["chat"].endswith("text: Message 1 heard: Hello! What can you help me with?")
    assert heard["lookup"].endswith(
        "text: Nothing known about 'hello! what can you help me with?'."
    )
    assert "How Hello! What can you help me with? works" in heard["essay"]
    assert heard["helper"].endswith("text: The helper heard: Hello! What can you help me with?")
    assert heard["greeter"].endswith(
        "text: Welcome aboard! You said: Hello! What can you help me with?. Have a good day."
    )
    assert heard["memory"].endswith("text: Noted for smoke-user: Hello! What can you help me with?")
    assert heard["todo"].endswith("text: Added to your list: HELLO! WHAT CAN YOU HELP ME WITH?")


def test_a_message_list_entrypoint_keeps_its_conversation_in_previous(server: str) -> None:
    with RuntimeClient(server, agent="chat") as client:
        client.receive_turn()
        replies = [final(client.say(text)) for text in ("hello", "and again")]
    with RuntimeClient(server, agent="chat") as other:  # another session starts afresh
        other.receive_turn()
        replies.append(final(other.say("hi")))

    assert replies == [
        "Message 1 heard: hello",
        "Message 2 heard: and again",
        "Message 1 heard: hi",
    ]


def test_a_string_entrypoint_gets_the_words_and_its_returned_text_is_the_answer(
    server: str,
) -> None:
    with RuntimeClient(server, agent="lookup") as client:
        client.receive_turn()
        answer = final(client.say("What is LangGraph?"))

    assert answer == "Langgraph is a library for stateful agents."


def test_a_graph_built_by_asyncio_run_at_import_is_served(server: str) -> None:
    """The runtime loads it outside any running event loop, as LangGraph's server does."""
    with RuntimeClient(server, agent="docs") as client:
        client.receive_turn()
        answer = final(client.say("What is the leave policy?"))

    assert answer == SCRIPTED_REPLY


def test_a_settings_file_shipped_as_an_example_is_proposed_for_review(
    imported: tuple[Path, dict[str, ImportResult]],
) -> None:
    plugins, results = imported
    src = plugins / "greeter" / "src"
    render = next(step for step in results["greeter"].steps if step.name == "render")

    assert (src / "settings.json").read_text() == (src / "settings.example.json").read_text()
    assert "proposed src/settings.json from settings.example.json: review it" in render.summary


@pytest.mark.parametrize("graph", ["configured", "made", "rebound"])
def test_exports_as_projects_write_them_are_wrapped_and_answer(tmp_path: Path, graph: str) -> None:
    """``.with_config()`` on a compiled graph, a no-argument function returning one, and a
    builder's name rebound to its compiled graph (fixture ``bound_exports``)."""
    repo = runtime_repo(tmp_path / "repo")
    source = fixture_repo("bound_exports", tmp_path / "agent")

    result = import_agent(options(source, graph, graph=graph), root=repo)

    assert result.strategy == "wrapper" and result.validation.ok
    heard = result.validation.checks[-1].transcript[-1]
    assert heard.endswith("text: Heard 'Hello! What can you help me with?'.")
