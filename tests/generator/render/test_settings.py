"""A plugin's settings: recorded at import in agent.json (the README points there), and whatever
still needs a value named with how to set it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from plugin_repo import agent_repo, echo_agent, options, runtime_repo, write_files

from generator.models import Inspection
from generator.pipeline.importer import import_agent
from generator.render.settings import Unset, plugin_settings
from runtime.contract.agent import AgentSpec
from runtime.contract.layout import PLUGINS_FOLDER

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "agents"


def test_context_defaults_and_variable_names_are_recorded(
    inspect_folder: Callable[..., Inspection],
) -> None:
    inspection = inspect_folder(FIXTURES / "create_agent_prebuilt")
    graph = inspection.graphs[0]

    settings = plugin_settings(inspection, graph, plugin_id="helper", input_field="messages")

    assert settings.context == {
        "model": "anthropic:claude-sonnet-4-5",
        "system_prompt": "You are a helpful assistant.",
        "max_results": 5,
        "user_id": "anonymous",
    }
    assert settings.env == ["ANTHROPIC_API_KEY", "SEARCH_API_KEY"]
    assert settings.optional_env == ["SEARCH_URL"]
    assert settings.unset == []


def test_required_fields_without_a_value_are_named_with_how_to_set_them(
    tmp_path: Path, inspect_folder: Callable[..., Inspection]
) -> None:
    write_files(
        tmp_path,
        {
            "langgraph.json": '{"dependencies": ["."], "graphs": {"enrich": "./enrich.py:graph"}}',
            "enrich.py": """
                from dataclasses import dataclass, field
                from typing import Any

                from langgraph.graph import START, StateGraph
                from pydantic import BaseModel, Field


                class Settings(BaseModel):
                    api_base: str = Field(description="Where to send queries")
                    limit: int = Field(10, description="Most results")


                @dataclass(kw_only=True)
                class State:
                    topic: str
                    extraction_schema: dict[str, Any]
                    notes: list[str] = field(default_factory=list)


                def research(state: State):
                    return {"notes": [state.topic]}


                builder = StateGraph(State, context_schema=Settings)
                builder.add_node("research", research)
                builder.add_edge(START, "research")
                graph = builder.compile()
            """,
        },
    )
    inspection = inspect_folder(tmp_path)

    settings = plugin_settings(
        inspection, inspection.graphs[0], plugin_id="enrich", input_field="topic"
    )

    assert settings.context == {"limit": 10}
    where = f"{PLUGINS_FOLDER}/enrich/agent.json"
    assert [unset.how for unset in settings.unset] == [
        f"context field 'api_base' has no default: set it under \"context\" in {where}",
        "input field 'extraction_schema' takes structured input (dict[str, Any]) and has no "
        f'default: set it under "inputs" in {where}',
    ]
    assert [unset.name for unset in settings.unset] == ["api_base", "extraction_schema"]
    assert settings.inputs == {}


def test_an_import_writes_the_settings_into_agent_json_only(tmp_path: Path) -> None:
    """agent.json is the one record of the settings: the README points there, and lists only
    what agent.json does not hold (the variables read when set)."""
    repo = runtime_repo(tmp_path / "repo")
    files = echo_agent("greeter")
    files["graph.py"] = """
        import os
        from dataclasses import dataclass

        from langchain_core.messages import AIMessage
        from langgraph.graph import START, MessagesState, StateGraph

        STYLE = os.environ.get("GREETER_STYLE", "plain")


        @dataclass
        class Tone:
            greeting: str = "Hello"
            shout: bool = False


        def answer(state: MessagesState):
            return {"messages": [AIMessage(content="Hello there.")]}


        builder = StateGraph(MessagesState, context_schema=Tone)
        builder.add_node("answer", answer)
        builder.add_edge(START, "answer")
        graph = builder.compile()
    """
    files["langgraph.json"] = json.dumps(
        {
            "dependencies": ["."],
            "graphs": {"agent": "./graph.py:graph"},
            "env": {"GREETER_KEY": "sk-do-not-copy"},
        }
    )
    agent = agent_repo(tmp_path / "agent", files)

    result = import_agent(options(agent, "greeter"), root=repo)

    folder = repo / PLUGINS_FOLDER / "greeter"
    spec = AgentSpec.model_validate_json((folder / "agent.json").read_text())
    assert spec.context == {"greeting": "Hello", "shout": False}
    assert spec.env == ["GREETER_KEY"]
    assert spec.inputs == {}
    readme = (folder / "README.md").read_text()
    answers = (folder / ".copier-answers.yml").read_text()
    assert "`agent.json` holds them" in readme and "- `GREETER_STYLE`" in readme
    assert not any(
        name in text for name in ("greeting", "GREETER_KEY") for text in (readme, answers)
    )
    written = [p.read_bytes() for p in folder.rglob("*") if p.is_file() and "src" not in p.parts]
    assert not any(b"sk-do-not-copy" in content for content in written)  # names, never values
    render = next(step for step in result.steps if step.name == "render")
    assert "environment variables GREETER_KEY, GREETER_STYLE (optional)" in render.summary


#: A research graph whose first node reads inputs besides the messages (``KeyError`` without).
RESEARCH = """
    from typing import Annotated, TypedDict

    from langchain_core.messages import AIMessage, AnyMessage
    from langgraph.graph import START, StateGraph, add_messages


    class ResearchState(TypedDict):
        messages: Annotated[list[AnyMessage], add_messages]
        topic: str
        max_analysts: int


    def create_analysts(state: ResearchState):
        count, topic = state["max_analysts"], state["topic"]
        return {"messages": [AIMessage(content=f"{count} analysts on {topic!r}")]}


    builder = StateGraph(ResearchState)
    builder.add_node("create_analysts", create_analysts)
    builder.add_edge(START, "create_analysts")
    graph = builder.compile()
"""
#: A graph whose first node is a compiled subgraph reading ``raw_logs``.
LOG_TRIAGE = """
    from typing import Annotated, TypedDict

    from langchain_core.messages import AIMessage, AnyMessage
    from langgraph.graph import START, StateGraph, add_messages


    class State(TypedDict):
        messages: Annotated[list[AnyMessage], add_messages]
        raw_logs: list[dict]


    def clean(state: State):
        return {"messages": [AIMessage(content=f"{len(state['raw_logs'])} log lines")]}


    inner = StateGraph(State)
    inner.add_node("clean", clean)
    inner.add_edge(START, "clean")

    builder = StateGraph(State)
    builder.add_node("triage", inner.compile())
    builder.add_edge(START, "triage")
    graph = builder.compile()
"""
#: Settings a template reads from a TypedDict config with ``.get`` and a context dataclass.
CONFIGURED = """
    from dataclasses import dataclass
    from typing import Literal, TypedDict

    from langchain_core.messages import AIMessage
    from langchain_core.runnables import RunnableConfig
    from langgraph.graph import START, MessagesState, StateGraph
    from langgraph.runtime import Runtime


    class GraphConfig(TypedDict):
        model_name: str


    @dataclass(kw_only=True)
    class Context:
        provider: Literal["bedrock", "openai"]
        model: str


    def from_config(state: MessagesState, config: RunnableConfig):
        name = config["configurable"].get("model_name", "anthropic")
        return {"messages": [AIMessage(content=f"model {name}")]}


    def from_context(state: MessagesState, runtime: Runtime[Context]):
        context = runtime.context
        return {"messages": [AIMessage(content=f"{context.provider} {context.model}")]}


    builder = StateGraph(MessagesState, context_schema=SCHEMA)
    builder.add_node("answer", NODE)
    builder.add_edge(START, "answer")
    graph = builder.compile()
"""


def import_graph(
    tmp_path: Path, plugin_id: str, code: str, **files: str
) -> tuple[AgentSpec, str, list[str]]:
    """Import a one-file agent: its agent.json, the render step's summary, what validation heard."""
    repo = runtime_repo(tmp_path / "repo")
    agent_files = {**echo_agent(plugin_id), "graph.py": code, **files}
    result = import_agent(
        options(agent_repo(tmp_path / "agent", agent_files), plugin_id), root=repo
    )
    folder = repo / PLUGINS_FOLDER / plugin_id
    spec = AgentSpec.model_validate_json((folder / "agent.json").read_text())
    render = next(step for step in result.steps if step.name == "render")
    return spec, render.summary, result.validation.checks[-1].transcript


@pytest.mark.parametrize(
    ("code", "inputs", "heard"),
    [
        (RESEARCH, {"topic": "", "max_analysts": 3}, "3 analysts on ''"),
        (LOG_TRIAGE, {"raw_logs": []}, "0 log lines"),
    ],
)
def test_inputs_the_first_nodes_read_are_proposed_and_the_smoke_test_uses_them(
    tmp_path: Path, code: str, inputs: dict[str, object], heard: str
) -> None:
    spec, summary, transcript = import_graph(tmp_path, "reader", code)

    assert spec.input_field == "messages"
    assert spec.inputs == inputs
    for name, value in inputs.items():
        assert f"proposed input field {name!r} = {value!r} (a value of type " in summary
    assert any(heard in line for line in transcript), transcript


def test_a_typeddict_config_key_read_with_get_needs_no_setting(tmp_path: Path) -> None:
    code = CONFIGURED.replace("SCHEMA", "GraphConfig").replace("NODE", "from_config")

    spec, summary, transcript = import_graph(tmp_path, "configured", code)

    assert spec.context == {}
    assert "needs a value" not in summary
    assert any("model anthropic" in line for line in transcript), transcript


def test_a_context_field_without_default_runs_with_the_proposed_values(tmp_path: Path) -> None:
    code = CONFIGURED.replace("SCHEMA", "Context").replace("NODE", "from_context")
    example = {".env.example": "OPENAI_API_KEY=\nLLM_MODEL=openai/gpt-4o-mini\n"}

    spec, summary, transcript = import_graph(tmp_path, "contextual", code, **example)

    assert spec.context == {"provider": "bedrock", "model": "openai/gpt-4o-mini"}
    where = f"{PLUGINS_FOLDER}/contextual/agent.json"
    assert (
        "proposed context field 'model' = 'openai/gpt-4o-mini' (LLM_MODEL in .env.example): "
        f'review it under "context" in {where}'
    ) in summary
    assert "proposed context field 'provider' = 'bedrock' (the first value of " in summary
    assert any("bedrock openai/gpt-4o-mini" in line for line in transcript), transcript


def test_a_structured_input_is_left_for_review_saying_so(
    inspect_folder: Callable[..., Inspection],
) -> None:
    inspection = inspect_folder(FIXTURES / "email_input")
    graph = next(graph for graph in inspection.graphs if graph.graph_id == "triage")

    settings = plugin_settings(inspection, graph, plugin_id="mail", input_field="messages")

    assert settings.inputs == {}
    assert settings.unset == [
        Unset(
            name="email_input",
            how="input field 'email_input' takes structured input (dict) and has no default: "
            f'set it under "inputs" in {PLUGINS_FOLDER}/mail/agent.json',
        )
    ]
