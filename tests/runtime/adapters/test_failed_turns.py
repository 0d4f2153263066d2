"""A failed turn leaves the agent's conversation as it was, so the next turn is still the first
of the conversation: it gets the reviewed ``inputs`` (``agent.json``), as the failed one did.
A real LangGraph agent of our own, imported offline and served over the real WebSocket."""

from __future__ import annotations

import json
from pathlib import Path

from generator.pipeline.importer import import_agent
from runtime.contract.layout import AGENT_FILE, PLUGINS_FOLDER
from runtime.serving.app import create_app
from runtime.serving.launch import serve_in_thread
from runtime.settings import Settings
from runtime.testing.client import RuntimeClient
from tests.generator.plugin_repo import agent_repo, config, options, runtime_repo

GREETER = {
    "langgraph.json": config("./graph.py:graph"),
    "graph.py": """
        from typing import Annotated, TypedDict

        from langchain_core.messages import AIMessage, AnyMessage
        from langgraph.graph import END, START, StateGraph
        from langgraph.graph.message import add_messages


        class State(TypedDict):
            messages: Annotated[list[AnyMessage], add_messages]
            greeting: str


        def greet(state: State) -> dict:
            text = state["messages"][-1].content
            if text == "boom":
                raise RuntimeError("the greeter tripped")
            return {"messages": [AIMessage(f"{state['greeting']}, you said {text}.")]}


        builder = StateGraph(State)
        builder.add_node("greet", greet)
        builder.add_edge(START, "greet")
        builder.add_edge("greet", END)
        graph = builder.compile()
    """,
}


def test_after_a_failed_first_turn_the_next_one_still_gets_the_reviewed_inputs(
    tmp_path: Path,
) -> None:
    repo = runtime_repo(tmp_path / "repo")
    import_agent(options(agent_repo(tmp_path / "greeter", GREETER), "greeter"), root=repo)
    plugins = repo / PLUGINS_FOLDER
    agent_file = plugins / "greeter" / AGENT_FILE
    agent = json.loads(agent_file.read_text())
    assert "greeting" in agent["inputs"]  # proposed by the import, set by the reviewer:
    agent["inputs"]["greeting"] = "Hello"
    agent_file.write_text(json.dumps(agent))
    settings = Settings(port=0, plugins_dir=plugins, log_level="WARNING")
    with (
        serve_in_thread(create_app(settings, callbacks=[]), settings) as address,
        RuntimeClient(address, agent="greeter") as client,
    ):
        client.receive_turn()
        failed = client.say("boom")
        answered = client.say("hi")
    finals = [f["payload"]["text"] for f in answered if f["type"] == "server.transcript.final"]
    assert not [f for f in failed if f["type"] == "server.transcript.final"]  # it failed
    assert finals == ["Hello, you said hi."]
