"""A plugin's settings: recorded at import in agent.json (the README points there), and whatever
still needs a value named with how to set it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from plugin_repo import agent_repo, echo_agent, options, runtime_repo, write_files

from generator.models import Inspection, StateField
from generator.pipeline.importer import import_agent
from generator.render.settings import has_default, literal_default, plugin_settings
from runtime.adapters.agent import AgentSpec
from runtime.layout import PLUGINS_FOLDER

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
    assert settings.unset == [
        f"context field 'api_base' has no default: set it under \"context\" in {where}",
        f"input field 'extraction_schema' is required and has no default: set it under "
        f'"inputs" in {where}',
    ]


@pytest.mark.parametrize(
    ("default", "value", "given"),
    [
        ('"x"', "x", True),
        ("5", 5, True),
        ('field(default="x")', "x", True),
        ('Field("x", description="d")', "x", True),
        ("Field(default_factory=list)", None, True),
        ('Field(description="d")', None, False),
        ("Field(..., description='d')", None, False),
        ("os.environ['X']", None, True),
        ("{1, 2}", None, True),
        (None, None, False),
    ],
)
def test_literal_defaults(default: str | None, value: object, given: bool) -> None:
    field = StateField(name="f", type="str", default=default)

    found = literal_default(field)

    assert (found if value is not None else None) == value
    assert has_default(field) is given


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
