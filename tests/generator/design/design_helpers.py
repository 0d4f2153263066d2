"""Builders shared by the design tests: inspections of several agent shapes, model answers."""

from __future__ import annotations

import json
from typing import Any

from generator.design.facts import agent_facts
from generator.design.fallback import fallback_content
from generator.design.models import DesignContent
from generator.models import Edge, Graph, Inspection, Node, Source, StateField, StateSchema

README = """\
# Research Assistant

[![CI](https://example.com/badge.svg)](https://example.com)

Researches a topic on the web and writes a short report with its sources.

## Setup
Set `TAVILY_API_KEY`.
"""


def inspection_of(*graphs: Graph, readme: str = README) -> Inspection:
    return Inspection(
        source=Source(url="https://github.com/example/agent", path="/tmp/agent", commit="a" * 40),
        config_file="langgraph.json",
        graphs=list(graphs),
        readme_excerpt=readme,
    )


#: The state fields of ``structured_graph``, in declaration order.
STRUCTURED_FIELDS = ["topic", "notes", "report", "source_count", "confidence", "finished"]


def structured_graph(graph_id: str = "research") -> Graph:
    """A TypedDict state with a request field, an answer field and a few scalars."""
    return Graph(
        graph_id=graph_id,
        file="agent/graph.py",
        export="graph",
        export_kind="compiled_graph",
        state=StateSchema(
            name="ResearchState",
            style="TypedDict",
            file="agent/state.py",
            fields=[
                StateField(name="topic", type="str"),
                StateField(
                    name="notes", type="Annotated[list[str], operator.add]", reducer="operator.add"
                ),
                StateField(name="report", type="str"),
                StateField(name="source_count", type="int"),
                StateField(name="confidence", type="float | None", default="None"),
                StateField(name="finished", type="bool"),
            ],
        ),
        nodes=[
            Node(name="plan", target="function", returns=["notes"]),
            Node(name="search", target="function", returns=["notes", "source_count"]),
            Node(name="write_report", target="function", returns=["report", "confidence"]),
        ],
        edges=[
            Edge(source="__start__", target="plan"),
            Edge(source="plan", target="search"),
            Edge(source="search", target="write_report"),
            Edge(source="write_report", target="__end__"),
        ],
        strategy="subgraph",
    )


def messages_graph() -> Graph:
    """A MessagesState chat agent with a tool loop."""
    return Graph(
        graph_id="agent",
        file="src/agent/graph.py",
        export="graph",
        export_kind="compiled_graph",
        state=StateSchema(
            name="State",
            style="MessagesState",
            fields=[
                StateField(
                    name="messages",
                    type="Annotated[list[AnyMessage], add_messages]",
                    reducer="add_messages",
                    inherited_from="MessagesState",
                ),
                StateField(name="remaining_steps", type="RemainingSteps"),
            ],
        ),
        nodes=[
            Node(name="call_model", target="function", returns=["messages"]),
            Node(name="tools", target="ToolNode"),
        ],
        edges=[
            Edge(source="__start__", target="call_model"),
            Edge(source="call_model", target="tools", conditional=True, condition="route"),
            Edge(source="tools", target="call_model"),
        ],
        input_is_messages=True,
        strategy="wrapper",
    )


def prebuilt_graph() -> Graph:
    """``create_react_agent`` with a library state: no fields readable from the repo."""
    return Graph(
        graph_id="react",
        file="agent.py",
        export="agent",
        export_kind="prebuilt",
        prebuilt="create_react_agent",
        state=StateSchema(name="AgentState", style="library"),
        input_is_messages=True,
        strategy="wrapper",
    )


def io_schema_graph() -> Graph:
    """A pydantic state with separate input and output schemas."""
    return Graph(
        graph_id="qa",
        file="qa.py",
        export="build",
        export_kind="factory",
        state=StateSchema(
            name="QAState",
            style="pydantic",
            fields=[
                StateField(name="question", type="str"),
                StateField(name="context", type="list[str]"),
                StateField(name="final_answer", type="Optional[str]"),
                StateField(name="score", type="Optional[float]"),
            ],
        ),
        input_schema=StateSchema(
            name="QAInput", style="pydantic", fields=[StateField(name="question", type="str")]
        ),
        output_schema=StateSchema(
            name="QAOutput",
            style="pydantic",
            fields=[
                StateField(name="final_answer", type="Optional[str]"),
                StateField(name="score", type="Optional[float]"),
            ],
        ),
        nodes=[Node(name="retrieve", target="function"), Node(name="answer", target="function")],
    )


def wire(content: DesignContent) -> dict[str, Any]:
    """A design as the model answers it: components carry their props as a JSON string."""
    answer: dict[str, Any] = {
        "reasoning": content.reasoning,
        "input_field": content.input_field,
        "output_field": content.output_field,
        "initial_domain_state": json.dumps(content.initial_domain_state),
    }
    for name, screen in content.screens().items():
        components = [
            {
                "id": c["id"],
                "component": c["component"],
                "props": json.dumps({k: v for k, v in c.items() if k not in ("id", "component")}),
            }
            for c in screen.components
        ]
        answer[name] = {"components": components, "voice_text": screen.voice_text}
    return answer


def model_answer(inspection: Inspection, plugin_id: str) -> dict[str, Any]:
    """A valid model answer for an agent, distinguishable from the fallback design."""
    facts = agent_facts(inspection)
    fields = ("messages", "messages") if facts.messages_based else ("topic", "report")
    content = fallback_content(
        facts, plugin_id=plugin_id, input_field=fields[0], output_field=fields[1]
    )
    answer = wire(content)
    answer["reasoning"] = "Designed by the model."
    answer["welcome"]["voice_text"] = "Good morning. I can research any topic for you."
    return answer
