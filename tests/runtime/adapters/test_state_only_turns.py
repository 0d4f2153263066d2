"""Turns that end with no new AI message, as LangGraph's server would still answer them.

Real LangGraph agents of our own, imported offline into a scratch runtime repository (which
validates each in a process of its own) and served over the real WebSocket: a message graph whose
node only counts (and answers in words only when asked), and a structured graph that never sets
its output field. Each turn shows the result screen with what changed, says it, and sends it as
the transcript. A graph that stops on an ``interrupt()`` before writing anything validates too:
its turn ends on the approval screen the runtime draws.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from generator.pipeline.importer import ImportResult, import_agent
from runtime.contract.layout import AGENT_FILE, PLUGINS_FOLDER, SCREENS_FOLDER
from runtime.serving.app import create_app
from runtime.serving.launch import serve_in_thread
from runtime.settings import Settings
from runtime.testing.client import RuntimeClient
from tests.generator.plugin_repo import agent_repo, config, options, runtime_repo
from tests.runtime.plugins.turns import check_frames

TALLY_AGENT = {
    "langgraph.json": config("./graph.py:graph"),
    "graph.py": """
        from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
        from langgraph.graph import END, START, StateGraph
        from langgraph.graph.message import add_messages
        from typing import Annotated, TypedDict


        class State(TypedDict):
            messages: Annotated[list[AnyMessage], add_messages]
            count: int


        def tick(state: State) -> dict:
            count = state.get("count", 0) + 1
            last = state["messages"][-1]
            if isinstance(last, HumanMessage) and last.content == "how many?":
                return {"count": count, "messages": [AIMessage(f"You have sent {count}.")]}
            return {"count": count}


        builder = StateGraph(State)
        builder.add_node("tick", tick)
        builder.add_edge(START, "tick")
        builder.add_edge("tick", END)
        graph = builder.compile()
    """,
}
WORDS_AGENT = {
    "langgraph.json": config("./graph.py:graph"),
    "graph.py": """
        from typing import TypedDict

        from langgraph.graph import END, START, StateGraph


        class State(TypedDict, total=False):
            query: str
            summary: str
            words: int
            seen: list[str]


        def count(state: State) -> dict:
            query = state["query"]
            return {"words": len(query.split()), "seen": [*state.get("seen", []), query]}


        builder = StateGraph(State)
        builder.add_node("count", count)
        builder.add_edge(START, "count")
        builder.add_edge("count", END)
        graph = builder.compile()
    """,
}
#: Failed validation before ("no A2UI screen was sent"): its first turn only asks.
ASKING_AGENT = {
    "langgraph.json": config("./graph.py:graph"),
    "graph.py": """
        from langchain_core.messages import AIMessage
        from langgraph.graph import END, START, MessagesState, StateGraph
        from langgraph.types import interrupt


        def ask(state: MessagesState) -> dict:
            answer = interrupt({"question": "Shall I go on?"})
            return {"messages": [AIMessage(f"You said {answer}.")]}


        builder = StateGraph(MessagesState)
        builder.add_node("ask", ask)
        builder.add_edge(START, "ask")
        builder.add_edge("ask", END)
        graph = builder.compile()
    """,
}
AGENTS = {"tally": TALLY_AGENT, "words": WORDS_AGENT, "asking": ASKING_AGENT}


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, ImportResult]]:
    """The three agents imported (and validated) into one runtime repository."""
    tmp = tmp_path_factory.mktemp("state_only")
    repo = runtime_repo(tmp / "repo")
    results = {
        plugin_id: import_agent(options(agent_repo(tmp / plugin_id, files), plugin_id), root=repo)
        for plugin_id, files in AGENTS.items()
    }
    return repo / PLUGINS_FOLDER, results


@pytest.fixture(scope="module")
def server(imported: tuple[Path, dict[str, ImportResult]]) -> Iterator[str]:
    plugins, _ = imported
    settings = Settings(port=0, plugins_dir=plugins, log_level="WARNING")
    with serve_in_thread(create_app(settings, callbacks=[]), settings) as address:
        yield address


def said(frames: list[dict[str, Any]]) -> tuple[str, str]:
    """A turn's voice line and final transcript."""
    (voice,) = [f["payload"]["text"] for f in frames if f["type"] == "server.voice.say"]
    (final,) = [f["payload"]["text"] for f in frames if f["type"] == "server.transcript.final"]
    return voice, final


def result_screen_ids(plugins: Path, plugin_id: str) -> set[str]:
    screen = json.loads((plugins / plugin_id / SCREENS_FOLDER / "result.json").read_text())
    return {component["id"] for component in screen["components"]}


def test_validation_hears_what_changed_and_accepts_a_turn_that_only_asks(
    imported: tuple[Path, dict[str, ImportResult]],
) -> None:
    _, results = imported
    assert all(result.validation.ok for result in results.values())
    heard = {plugin_id: results[plugin_id].validation.checks[1].transcript for plugin_id in AGENTS}
    assert heard["tally"][-1].endswith("text: The agent updated count to 1.")
    assert heard["words"][-1].endswith("text: The agent updated words to 7 and seen to 1 item.")
    assert heard["asking"][-1].endswith("text: Shall I go on? Say yes or no.")


def test_a_message_graph_that_only_counts_shows_the_count_and_never_an_old_answer(
    imported: tuple[Path, dict[str, ImportResult]], server: str
) -> None:
    plugins, _ = imported
    with RuntimeClient(server, agent="tally") as client:
        client.receive_turn()
        surface = client.surfaces["tally"]
        replies = []
        for text in ("hello", "how many?", "hello again"):
            frames = check_frames("tally", client.say(text))
            assert result_screen_ids(plugins, "tally") <= set(surface.components)
            replies.append((said(frames), surface.data["answer"], surface.data["state"]["count"]))
    assert replies == [
        (("The agent updated count to 1.",) * 2, "The agent updated count to 1.", 1),
        (("You have sent 2.",) * 2, "You have sent 2.", 2),
        (("The agent updated count to 3.",) * 2, "The agent updated count to 3.", 3),
    ]


def test_a_structured_graph_without_its_output_shows_the_fields_it_changed(
    imported: tuple[Path, dict[str, ImportResult]], server: str
) -> None:
    plugins, _ = imported
    agent = json.loads((plugins / "words" / AGENT_FILE).read_text())
    assert (agent["input_field"], agent["output_field"]) == ("query", "summary")
    with RuntimeClient(server, agent="words") as client:
        client.receive_turn()
        check_frames("words", client.say("tides and moons"))
        frames = check_frames("words", client.say("tides"))
        surface = client.surfaces["words"]
        assert result_screen_ids(plugins, "words") <= set(surface.components)
    answer = "The agent updated words to 1 and seen to 2 items."
    assert said(frames) == (answer, answer)
    assert surface.data["answer"] == answer
    assert surface.data["state"] == {"words": 1, "seen": ["tides and moons", "tides"]}
