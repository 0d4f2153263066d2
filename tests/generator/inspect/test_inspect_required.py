"""What a run needs besides the user's words, read statically: required context and input
fields, each with the value the import proposes for review."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from generator.models import Graph, Inspection

CONFIG = '{"dependencies": ["."], "graphs": {"agent": "./graph.py:graph"}}'


def graph_of(
    make_project: Callable[[dict[str, str]], Path],
    inspect_folder: Callable[..., Inspection],
    files: dict[str, str],
) -> Graph:
    return inspect_folder(make_project({"langgraph.json": CONFIG, **files})).graphs[0]


def proposals(fields: list[Any]) -> dict[str, tuple[Any, str | None]]:
    return {field.name: (field.proposed, field.because) for field in fields}


CONTEXT_GRAPH = """
import enum
from dataclasses import dataclass
from typing import Literal, TypedDict

from langgraph.graph import START, MessagesState, StateGraph


class Mode(str, enum.Enum):
    BRIEF = "brief"
    FULL = "full"


@dataclass(kw_only=True)
class Context:
    provider: Literal["anthropic", "openai"]
    mode: Mode
    model: str
    api_base: str
    depth: int = 2


class GraphConfig(TypedDict):
    model_name: str


def answer(state: MessagesState):
    return {"messages": []}


builder = StateGraph(MessagesState, context_schema=SCHEMA)
builder.add_node("answer", answer)
builder.add_edge(START, "answer")
graph = builder.compile()
"""


def test_a_context_field_without_default_gets_a_proposal_where_one_is_known(
    make_project: Callable[[dict[str, str]], Path], inspect_folder: Callable[..., Inspection]
) -> None:
    files = {
        "graph.py": CONTEXT_GRAPH.replace("SCHEMA", "Context"),
        ".env.example": "ANTHROPIC_API_KEY=\nMODEL=anthropic/claude-3-5-sonnet\n",
    }

    graph = graph_of(make_project, inspect_folder, files)

    assert proposals(graph.required_context) == {
        "provider": ("anthropic", 'the first value of Literal["anthropic", "openai"]'),
        "mode": ("brief", "the first member of Mode, BRIEF"),
        "model": ("anthropic/claude-3-5-sonnet", "MODEL in .env.example"),
        "api_base": (None, None),
    }


def test_a_model_name_can_come_from_the_readme(
    make_project: Callable[[dict[str, str]], Path], inspect_folder: Callable[..., Inspection]
) -> None:
    files = {
        "graph.py": CONTEXT_GRAPH.replace("SCHEMA", "Context"),
        "README.md": "# Agent\n\nSet the model, e.g. `openai/gpt-4o-mini`, in the context.\n",
    }

    graph = graph_of(make_project, inspect_folder, files)

    assert proposals(graph.required_context)["model"] == (
        "openai/gpt-4o-mini",
        "named in README.md",
    )


def test_a_typeddict_context_key_is_never_required(
    make_project: Callable[[dict[str, str]], Path], inspect_folder: Callable[..., Inspection]
) -> None:
    graph = graph_of(
        make_project, inspect_folder, {"graph.py": CONTEXT_GRAPH.replace("SCHEMA", "GraphConfig")}
    )

    assert graph.context_schema is not None and graph.context_schema.name == "GraphConfig"
    assert graph.required_context == []


FIRST_NODE_READS = """
from typing import Annotated, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph import START, StateGraph, add_messages


class ResearchState(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]
    topic: str
    max_analysts: int
    feedback: str
    sources: list[str]
    strict: bool
    analysts: list[str]


def create_analysts(state: ResearchState):
    topic = state["topic"]
    sources = state["sources"] if "sources" in state else []
    count = state["max_analysts"]
    feedback = state.get("feedback", "")
    return {"analysts": [f"{topic} {i} {feedback}" for i in range(count)]}


def review(state: ResearchState):
    return {"analysts": state["analysts"] + [str(state["strict"])]}


builder = StateGraph(ResearchState)
builder.add_node("create_analysts", create_analysts)
builder.add_node("review", review)
builder.add_edge(START, "create_analysts")
builder.add_edge("create_analysts", "review")
graph = builder.compile()
"""


def test_keys_the_first_node_reads_are_required_and_get_a_value_by_type(
    make_project: Callable[[dict[str, str]], Path], inspect_folder: Callable[..., Inspection]
) -> None:
    graph = graph_of(make_project, inspect_folder, {"graph.py": FIRST_NODE_READS})

    # state.get("feedback") and a key checked first are optional; review is not a first node;
    # messages are the user's.
    assert proposals(graph.required_inputs) == {
        "topic": ("", "a value of type str"),
        "max_analysts": (3, "a value of type int"),
    }


def test_a_value_shown_in_the_readme_is_proposed_before_one_by_type(
    make_project: Callable[[dict[str, str]], Path], inspect_folder: Callable[..., Inspection]
) -> None:
    readme = 'Run it with `graph.invoke({"topic": "AI safety", "max_analysts": 2})`.\n'
    files = {"graph.py": FIRST_NODE_READS, "README.md": readme}

    graph = graph_of(make_project, inspect_folder, files)

    assert proposals(graph.required_inputs) == {
        "topic": ("AI safety", "shown in README.md"),
        "max_analysts": (2, "shown in README.md"),
    }


SUBGRAPH_FIRST = """
from typing import TypedDict

from langgraph.graph import START, StateGraph


class LogState(TypedDict):
    raw_logs: list[dict]
    summary: str


def clean(state: LogState):
    return {"summary": str(len(state["raw_logs"]))}


inner = StateGraph(LogState)
inner.add_node("clean", clean)
inner.add_edge(START, "clean")
triage = inner.compile()


class State(TypedDict):
    question: str
    raw_logs: list[dict]
    summary: str


def report(state: State):
    return {"summary": state["summary"]}


builder = StateGraph(State)
builder.add_node("triage", triage)
builder.add_node("report", report)
builder.add_edge(START, "triage")
builder.add_edge("triage", "report")
graph = builder.compile()
"""


def test_a_compiled_subgraph_as_first_node_is_followed_to_its_first_node(
    make_project: Callable[[dict[str, str]], Path], inspect_folder: Callable[..., Inspection]
) -> None:
    graph = graph_of(make_project, inspect_folder, {"graph.py": SUBGRAPH_FIRST})

    assert proposals(graph.required_inputs) == {"raw_logs": ([], "a value of type list")}


SCHEMAS = """
from dataclasses import dataclass, field
from typing import Literal, NotRequired, TypedDict

from langgraph.graph import START, StateGraph
from pydantic import BaseModel


class Question(TypedDict):
    question: str
    language: Literal["en", "fr"]
    hint: NotRequired[str]


class Loose(TypedDict, total=False):
    question: str
    language: str


class State(TypedDict):
    question: str
    language: str
    hint: str
    answer: str


@dataclass
class Job:
    url: str
    retries: int | None
    depth: int = 1
    tags: list[str] = field(default_factory=list)


class Order(BaseModel):
    item: str
    quantity: int
    urgent: bool = False


def answer(state):
    return {"answer": "ok"}


builder = StateGraph(STATE, input=INPUT)
builder.add_node("answer", answer)
builder.add_edge(START, "answer")
graph = builder.compile()
"""


def test_input_schemas_and_state_classes_name_their_required_fields(
    make_project: Callable[[dict[str, str]], Path], inspect_folder: Callable[..., Inspection]
) -> None:
    def required(state: str, input_schema: str) -> dict[str, tuple[Any, str | None]]:
        code = SCHEMAS.replace("STATE", state).replace("INPUT", input_schema)
        return proposals(graph_of(make_project, inspect_folder, {"graph.py": code}).required_inputs)

    assert required("State", "Question") == {
        "question": ("", "a value of type str"),
        "language": ("en", 'the first value of Literal["en", "fr"]'),
    }
    assert required("State", "Loose") == {}
    assert required("State", "State") == {}
    assert required("Job", "Job") == {
        "url": ("", "a value of type str"),
        "retries": (None, "the type allows None"),
    }
    assert required("Order", "Order") == {
        "item": ("", "a value of type str"),
        "quantity": (3, "a value of type int"),
    }


def test_a_default_the_code_reads_elsewhere_is_proposed(
    make_project: Callable[[dict[str, str]], Path], inspect_folder: Callable[..., Inspection]
) -> None:
    code = FIRST_NODE_READS.replace('str(state["strict"])', 'str(state.get("max_analysts", 5) > 1)')

    graph = graph_of(make_project, inspect_folder, {"graph.py": code})

    assert proposals(graph.required_inputs)["max_analysts"] == (5, "shown in graph.py")
