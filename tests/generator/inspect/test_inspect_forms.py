"""Graph forms real public LangGraph repositories use (and their edges), one small project each."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from generator.errors import AgentImportError
from generator.inspect import evaluate
from generator.models import Graph, Inspection

MakeProject = Callable[[dict[str, str]], Path]
Inspect = Callable[..., Inspection]
CONFIG = '{"dependencies": ["."], "graphs": {"g": "./agent.py:graph"}}'
HEADER = """
from typing import Annotated, TypedDict
from langgraph.graph import END, START, StateGraph


class S(TypedDict):
    a: str
    b: int


def one(state: S):
    return {"a": "x"}
"""


@pytest.fixture
def graph_of(make_project: MakeProject, inspect_folder: Inspect) -> Callable[..., Graph]:
    """``graph_of(agent_py, **other_files)``: the single graph of a one-file project."""

    def run(agent: str, **files: str) -> Graph:
        root = make_project({"langgraph.json": CONFIG, "agent.py": agent, **files})
        return inspect_folder(root).graphs[0]

    return run


@pytest.fixture
def warnings_of(make_project: MakeProject, inspect_folder: Inspect) -> Callable[..., list[str]]:
    def run(agent: str, **files: str) -> list[str]:
        root = make_project({"langgraph.json": CONFIG, "agent.py": agent, **files})
        return [f"{w.file}:{w.line}: {w.message}" for w in inspect_folder(root).warnings]

    return run


def nodes(graph: Graph) -> list[tuple[str, str, list[str] | None]]:
    assert graph.nodes is not None
    return [(n.name, n.target, n.returns) for n in graph.nodes]


def test_graph_re_exported_from_another_module(graph_of: Callable[..., Graph]) -> None:
    graph = graph_of(
        "from pkg.build import graph\n",
        **{
            "pkg/__init__.py": "",
            "pkg/build.py": HEADER + "b = StateGraph(S)\nb.add_node(one)\ngraph = b.compile()\n",
        },
    )
    assert graph.export_kind == "compiled_graph"
    assert nodes(graph) == [("one", "function", ["a"])]
    assert graph.state is not None and graph.state.file == "pkg/build.py"


def test_module_level_builder_compiled_in_an_async_context_manager_factory(
    graph_of: Callable[..., Graph],
) -> None:
    graph = graph_of(
        HEADER
        + """
from contextlib import asynccontextmanager

builder = StateGraph(S)
builder.add_node("one", one)


@asynccontextmanager
async def graph(config):
    yield builder.compile(name="managed")
"""
    )
    assert graph.export_kind == "factory" and graph.factory is not None
    assert (graph.factory.params, graph.factory.is_async) == (["config"], True)
    assert graph.compile_name == "managed" and nodes(graph) == [("one", "function", ["a"])]


def test_a_graph_built_by_an_async_function_run_at_import(
    graph_of: Callable[..., Graph],
) -> None:
    """``agent = asyncio.run(build_agent())``: LangGraph's server imports the module and gets the
    graph, so it is read as what the coroutine returns, never left to be ported."""
    graph = graph_of(
        "import asyncio\n"
        "from langchain.agents import create_agent\n\n"
        "async def build_agent():\n"
        "    return create_agent('openai:gpt-4o-mini', [])\n\n"
        "graph = asyncio.run(build_agent())\n"
    )

    assert (graph.export_kind, graph.prebuilt, graph.strategy) == (
        "prebuilt",
        "create_agent",
        "wrapper",
    )


def test_class_based_graph_with_bound_method_nodes(graph_of: Callable[..., Graph]) -> None:
    graph = graph_of(
        HEADER
        + """
class Agent:
    def __init__(self, name):
        self.name = name
        self.graph = self.build()

    def answer(self, state: S):
        return {"b": 1}

    def build(self):
        builder = StateGraph(S)
        builder.add_node("answer", self.answer)
        builder.add_node(one)
        return builder.compile()


graph = Agent("bot").graph
"""
    )
    assert nodes(graph) == [("answer", "method", ["b"]), ("one", "function", ["a"])]


def test_node_names_from_constants_and_class_attributes(graph_of: Callable[..., Graph]) -> None:
    graph = graph_of(
        HEADER
        + """
ONE = "first"


class Names:
    TWO = "second"


builder = StateGraph(S)
builder.add_node(ONE, one)
builder.add_node(Names.TWO, one)
builder.add_edge(ONE, Names.TWO)
graph = builder.compile()
"""
    )
    assert [n[0] for n in nodes(graph)] == ["first", "second"]
    assert [(e.source, e.target) for e in graph.edges] == [("first", "second")]


def test_dynamic_node_names_are_warned_about_not_invented(
    graph_of: Callable[..., Graph], warnings_of: Callable[..., list[str]]
) -> None:
    source = (
        HEADER
        + """
import os

builder = StateGraph(S)
builder.add_node(os.environ["NODE"], one)
builder.add_node(f"node_{1}", one)
graphs = [builder.add_node(n, one) for n in ("x", "y")]
graph = builder.compile()
"""
    )
    graph = graph_of(source)
    assert graph.nodes == [] and not graph.nodes_complete
    assert warnings_of(source) == [
        "agent.py:16: node name not known statically",
        "agent.py:17: node name not known statically",
        "agent.py:18: node added inside a loop: names and count not known statically",
    ]


def test_state_given_as_a_plain_dict_is_unknown(
    graph_of: Callable[..., Graph], warnings_of: Callable[..., list[str]]
) -> None:
    source = (
        HEADER + "builder = StateGraph(dict)\nbuilder.add_node(one)\ngraph = builder.compile()\n"
    )
    graph = graph_of(source)
    assert graph.state is None and graph.strategy == "port"
    assert warnings_of(source) == [
        "agent.py:12: state of graph 'g' not known statically: builtins.dict"
    ]


def test_reducer_behind_a_pep_695_alias_and_not_required_fields(
    graph_of: Callable[..., Graph],
) -> None:
    graph = graph_of(
        """
import operator
from typing import Annotated, NotRequired, TypedDict
from langgraph.graph import StateGraph

type Total = Annotated[int, operator.add]


class S(TypedDict, total=False):
    total: Total
    seen: NotRequired[Annotated[list[str], lambda a, b: a + b]]
    label: Annotated[str, "just a note"]


graph = StateGraph(S).compile()
"""
    )
    assert graph.state is not None
    assert [(f.name, f.reducer) for f in graph.state.fields] == [
        ("total", "operator.add"),
        ("seen", "lambda a, b: a + b"),
        ("label", None),
    ]


def test_generic_pydantic_state(graph_of: Callable[..., Graph]) -> None:
    graph = graph_of(
        """
from typing import Generic, TypeVar
from pydantic import BaseModel
from langgraph.graph import StateGraph

T = TypeVar("T")


class Box(BaseModel, Generic[T]):
    item: T | None = None


graph = StateGraph(Box[int]).compile()
"""
    )
    assert graph.state is not None and (graph.state.name, graph.state.style) == ("Box", "pydantic")


def test_command_goto_from_a_variable_is_a_warning(warnings_of: Callable[..., list[str]]) -> None:
    source = (
        HEADER
        + """
from langgraph.types import Command


def hop(state: S):
    target = state["a"]
    return Command(update={"b": 2}, goto=target)


builder = StateGraph(S)
builder.add_node(hop)
graph = builder.compile()
"""
    )
    assert warnings_of(source) == [
        "agent.py:18: node 'hop' returns a Command goto `target`; "
        "the keys it writes are not known statically"
    ]


def test_conditional_edge_without_knowable_targets(
    graph_of: Callable[..., Graph], warnings_of: Callable[..., list[str]]
) -> None:
    source = (
        HEADER
        + """
def route(state):
    return state["a"]


builder = StateGraph(S)
builder.add_node(one)
builder.add_conditional_edges("one", route)
graph = builder.compile()
"""
    )
    assert [e for e in graph_of(source).edges if e.conditional] == []
    assert warnings_of(source) == [
        "agent.py:19: targets of the conditional edge from 'one' (route) not known statically"
    ]


def test_import_cycles_and_star_imports_do_not_hang(graph_of: Callable[..., Graph]) -> None:
    graph = graph_of(
        "from helpers import *\nfrom helpers import graph\n",
        **{
            "helpers.py": HEADER + "from helpers import loop\nfrom agent import *\n"
            "loop = 1\nb = StateGraph(S)\nb.add_node(one)\ngraph = b.compile()\n"
        },
    )
    assert nodes(graph) == [("one", "function", ["a"])]


def test_base_classes_rebound_into_a_cycle(graph_of: Callable[..., Graph]) -> None:
    graph = graph_of(
        HEADER
        + """
class A:
    pass


class B(A):
    pass


class A(B):
    pass


builder = StateGraph(S)
builder.add_node("a", A().missing)
builder.add_node("b", A())
graph = builder.compile()
"""
    )
    assert nodes(graph) == [("a", "unknown", None), ("b", "unknown", None)]


def test_relative_import_above_the_root_is_not_followed(graph_of: Callable[..., Graph]) -> None:
    graph = graph_of("from ...outside import graph\n")
    assert graph.export_kind == "unresolvable"
    assert graph.export_reason == "relative import ...outside is not in the repository"


def test_syntax_error_in_an_imported_module_names_file_and_line(
    make_project: MakeProject, inspect_folder: Inspect
) -> None:
    root = make_project(
        {
            "langgraph.json": CONFIG,
            "agent.py": "from state import S\ngraph = S\n",
            "state.py": "class S(TypedDict):\n    a: int =\n",
        }
    )
    with pytest.raises(AgentImportError, match=r"^state\.py:2: syntax error"):
        inspect_folder(root)


def test_step_budget_stops_reading_with_a_warning(
    warnings_of: Callable[..., list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(evaluate, "MAX_STEPS", 5)
    found = warnings_of("a = 1\nb = 2\nc = 3\nd = 4\ne = 5\nf = 6\ngraph = 7\n")
    assert found[0] == "agent.py:3: code too large; stopped reading here"  # a line is 2 steps
    assert "'graph' is not defined at the top level" in found[1]


def test_readme_and_optional_files_never_follow_symlinks_out(
    make_project: MakeProject, inspect_folder: Inspect, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("TOP SECRET")
    root = make_project({"langgraph.json": CONFIG, "agent.py": HEADER + "graph = StateGraph(S)\n"})
    os.symlink(secret, root / "README.md")
    inspection = inspect_folder(root)
    assert inspection.readme_excerpt == ""
    assert inspection.warnings[0].file == "README.md"
    assert "symlink pointing out of the source tree" in inspection.warnings[0].message


def test_readme_excerpt_prefers_the_config_folder_and_is_500_characters(
    make_project: MakeProject, inspect_folder: Inspect
) -> None:
    root = make_project(
        {
            "backend/langgraph.json": CONFIG,
            "backend/agent.py": "graph = 1\n",
            "backend/README.md": "B" * 600,
            "README.md": "root",
        }
    )
    assert inspect_folder(root).readme_excerpt == "B" * 500


def test_dependencies_are_merged_once_by_normalised_name(
    make_project: MakeProject, inspect_folder: Inspect
) -> None:
    root = make_project(
        {
            "langgraph.json": '{"dependencies": [".", "./lib", "LangGraph>=1", "./reqs/extra.txt"],'
            ' "graphs": {"g": "./agent.py:graph"}}',
            "agent.py": HEADER + "graph = StateGraph(S)\n",
            "pyproject.toml": '[project]\ndependencies = ["langgraph==0.9", "Pydantic_Core"]\n',
            "lib/requirements.txt": "pydantic-core\n-e .\n--index-url https://x\n-r ../../up.txt\n",
            "reqs/extra.txt": "boto3 @ https://example.invalid/boto3.whl\n",
        }
    )
    inspection = inspect_folder(root)
    assert [(d.name, d.spec, d.origin) for d in inspection.dependencies] == [
        ("LangGraph", "LangGraph>=1", "langgraph.json"),
        ("Pydantic_Core", "Pydantic_Core", "pyproject.toml"),
        ("boto3", "boto3 @ https://example.invalid/boto3.whl", "reqs/extra.txt"),
    ]
    assert [w.message for w in inspection.warnings] == [
        "file lib/../../up.txt leaves the source tree; skipped"  # the -r include
    ]
