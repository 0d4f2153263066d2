"""An imported agent compiled with a static breakpoint (``interrupt_before=``), as LangChain
Academy's research assistant is: its turn ends on a screen saying where it paused, and the next
turn continues it ("continue", the screen's button, or words that update its input first).

A real LangGraph graph of our own, imported offline (and validated, smoke test included) into a
scratch runtime repository and served over the real WebSocket.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from generator.pipeline.importer import ImportResult, import_agent
from runtime.adapters.breakpoints import says_continue
from runtime.contract.layout import PLUGINS_FOLDER
from runtime.serving.app import create_app
from runtime.serving.launch import serve_in_thread
from runtime.settings import Settings
from runtime.testing.client import RuntimeClient
from tests.generator.plugin_repo import agent_repo, config, options, runtime_repo
from tests.runtime.plugins.turns import check_frames

#: Failed validation before ("no A2UI screen was sent"): its first run stops at the breakpoint.
PAUSING_AGENT = {
    "langgraph.json": config("./graph.py:graph"),
    "graph.py": """
        from typing import TypedDict

        from langgraph.graph import END, START, StateGraph


        class State(TypedDict, total=False):
            topic: str
            analysts: list[str]
            report: str


        def create_analysts(state: State) -> dict:
            return {"analysts": [f"{state['topic']} historian", f"{state['topic']} critic"]}


        def human_feedback(state: State) -> None:
            pass


        def write_report(state: State) -> dict:
            if state["topic"] == "boom":
                raise RuntimeError("the writer failed")
            by = " and ".join(state["analysts"])
            return {"report": f"A report on {state['topic']} by the {by}."}


        builder = StateGraph(State)
        builder.add_node("create_analysts", create_analysts)
        builder.add_node("human_feedback", human_feedback)
        builder.add_node("write_report", write_report)
        builder.add_edge(START, "create_analysts")
        builder.add_edge("create_analysts", "human_feedback")
        builder.add_edge("human_feedback", "write_report")
        builder.add_edge("write_report", END)
        graph = builder.compile(interrupt_before=["human_feedback"])
    """,
}
PAUSED = "The agent paused before human_feedback. Say continue, or tell it what to change."


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ImportResult]:
    tmp = tmp_path_factory.mktemp("breakpoint")
    repo = runtime_repo(tmp / "repo")
    result = import_agent(options(agent_repo(tmp / "pausing", PAUSING_AGENT), "pausing"), root=repo)
    return repo / PLUGINS_FOLDER, result


@pytest.fixture(scope="module")
def server(imported: tuple[Path, ImportResult]) -> Iterator[str]:
    plugins, _ = imported
    settings = Settings(port=0, plugins_dir=plugins, log_level="WARNING")
    with serve_in_thread(create_app(settings, callbacks=[]), settings) as address:
        yield address


def heard(frames: list[dict[str, Any]]) -> str:
    """A turn's final transcript, checked to be what was said too."""
    texts = {
        kind: [f["payload"]["text"] for f in check_frames("pausing", frames) if f["type"] == kind]
        for kind in ("server.voice.say", "server.transcript.final")
    }
    (voice,), (final,) = texts.values()
    assert voice == final
    return final


@pytest.mark.parametrize(
    ("said", "goes_on"),
    [
        ("continue", True),
        ("Yes!", True),
        ("go ahead", True),
        ("no", False),
        ("don't continue", False),
        ("spring tides", False),
    ],
)
def test_says_continue_takes_the_yes_words_of_approvals(said: str, goes_on: bool) -> None:
    assert says_continue(said) is goes_on


def test_validation_hears_the_pause(imported: tuple[Path, ImportResult]) -> None:
    _, result = imported
    assert result.validation.ok
    assert result.validation.checks[1].transcript[-1].endswith(f"text: {PAUSED}")


def test_continue_goes_on_from_the_breakpoint(server: str) -> None:
    with RuntimeClient(server, agent="pausing") as client:
        client.receive_turn()
        assert heard(client.say("tides")) == PAUSED
        assert "The agent paused" in str(client.surfaces["pausing"].components)
        assert heard(client.say("continue")) == (
            "A report on tides by the tides historian and tides critic."
        )
        # Not paused any more: words start a new run, which stops at the breakpoint again.
        assert heard(client.say("moons")) == PAUSED
        (button,) = client.surfaces["pausing"].clickables()
        assert heard(client.click(button)) == (
            "A report on moons by the moons historian and moons critic."
        )


def test_other_words_update_the_input_then_the_agent_goes_on(server: str) -> None:
    with RuntimeClient(server, agent="pausing") as client:
        client.receive_turn()
        assert heard(client.say("tides")) == PAUSED
        assert heard(client.say("spring tides")) == (
            "A report on spring tides by the tides historian and tides critic."
        )


def test_a_failed_continuation_leaves_the_agent_paused_as_it_was(server: str) -> None:
    with RuntimeClient(server, agent="pausing") as client:
        client.receive_turn()
        assert heard(client.say("tides")) == PAUSED
        check_frames("pausing", client.say("boom"))
        assert client.surfaces["pausing"].data["error"]  # the error screen
        assert heard(client.say("continue")) == (
            "A report on tides by the tides historian and tides critic."
        )
