"""Loading an agent from a plugin's vendored ``src/`` the way LangGraph's server does."""

from __future__ import annotations

import asyncio
import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from langgraph.store.memory import InMemoryStore

from runtime.adapters.loader import AgentLoadError, graph_for_run, load_export, server_runtime
from runtime.adapters.namespaces import top_level_names
from runtime.contract.agent import AgentFileError, AgentSpec, load_agent_spec

GRAPH = """
from langchain_core.messages import AIMessage
from langgraph.graph import END, START, MessagesState, StateGraph

def answer(state: MessagesState):
    return {"messages": [AIMessage(content="ok")]}

builder = StateGraph(MessagesState)
builder.add_node("answer", answer)
builder.add_edge(START, "answer")
builder.add_edge("answer", END)
"""


def plugin(tmp_path: Path, files: dict[str, str], **spec: Any) -> tuple[Path, AgentSpec]:
    folder = tmp_path / "plugin"
    for name, text in files.items():
        path = folder / "src" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    values = {
        "graph_id": "agent",
        "graph_spec": "./graph.py:graph",
        "config_file": "langgraph.json",
        "python_paths": ["."],
        "input_field": "messages",
        "output_field": "messages",
        **spec,
    }
    (folder / "agent.json").write_text(json.dumps(values))
    return folder, load_agent_spec(folder)


def run(export: Any) -> str:
    async def once() -> str:
        runtime = server_runtime(context=None, user=None, store=InMemoryStore())
        async with graph_for_run(export, {"configurable": {}}, runtime) as graph:
            result = await graph.ainvoke({"messages": [HumanMessage("hi")]})
        return str(result["messages"][-1].content)

    return asyncio.run(once())


def test_an_uncompiled_state_graph_is_compiled(tmp_path: Path) -> None:
    folder, spec = plugin(tmp_path, {"graph.py": GRAPH + "graph = builder\n"})

    assert run(load_export(folder, spec, module_prefix="t_uncompiled")) == "ok"


def test_a_module_spec_is_imported_from_the_agents_paths(tmp_path: Path) -> None:
    folder, spec = plugin(
        tmp_path,
        {"pkg_loader_mod/__init__.py": "", "pkg_loader_mod/g.py": GRAPH + "graph = builder\n"},
        graph_spec="pkg_loader_mod.g:graph",
    )

    assert run(load_export(folder, spec, module_prefix="t_module")) == "ok"


def test_a_factory_gets_the_store_it_is_given_in_its_server_runtime(tmp_path: Path) -> None:
    factory = GRAPH + (
        "from langgraph_sdk.runtime import ServerRuntime\n"
        "async def make(config, runtime: ServerRuntime):\n"
        "    await runtime.store.aput(('made',), 'by', {'factory': True})\n"
        "    return builder.compile()\n"
    )
    folder, spec = plugin(tmp_path, {"graph.py": factory}, graph_spec="./graph.py:make")
    store = InMemoryStore()

    async def once() -> None:
        export = load_export(folder, spec, module_prefix="t_store")
        runtime = server_runtime(context=None, user=None, store=store)
        async with graph_for_run(export, {"configurable": {}}, runtime) as graph:
            await graph.ainvoke({"messages": [HumanMessage("hi")]})

    asyncio.run(once())
    item = store.get(("made",), "by")
    assert item is not None
    assert item.value == {"factory": True}


def test_a_missing_export_names_the_graphs_the_module_has(tmp_path: Path) -> None:
    folder, spec = plugin(tmp_path, {"graph.py": GRAPH + "other = builder.compile()\n"})

    with pytest.raises(AgentLoadError, match=r"has no 'graph'; graphs it defines: .*other"):
        load_export(folder, spec, module_prefix="t_missing")


def test_a_graph_file_outside_src_is_refused(tmp_path: Path) -> None:
    folder, spec = plugin(tmp_path, {"graph.py": GRAPH}, graph_spec="../../evil.py:graph")
    (tmp_path / "evil.py").write_text("raise SystemExit('ran')\n")

    with pytest.raises(AgentLoadError, match="outside the vendored source"):
        load_export(folder, spec, module_prefix="t_outside")


def test_agent_json_paths_must_stay_inside_src(tmp_path: Path) -> None:
    with pytest.raises(AgentFileError, match="must be a path inside src/"):
        plugin(tmp_path, {"graph.py": GRAPH}, python_paths=["../.."])


def agent_package(answer: str) -> dict[str, str]:
    """A template-shaped agent: ``agent/graph.py`` importing ``agent.state`` absolutely."""
    return {
        "langgraph.json": "{}",
        "agent/__init__.py": "",
        "agent/state.py": f"ANSWER = {answer!r}\n",
        "agent/graph.py": GRAPH.replace('"ok"', "ANSWER")
        + "from agent.state import ANSWER\nimport agent.state\ngraph = builder.compile()\n",
    }


def test_two_agents_with_the_same_package_name_run_side_by_side(tmp_path: Path) -> None:
    first, first_spec = plugin(
        tmp_path / "one", agent_package("first"), graph_spec="agent.graph:graph"
    )
    second, second_spec = plugin(
        tmp_path / "two", agent_package("second"), graph_spec="./agent/graph.py:graph"
    )

    one = load_export(first, first_spec, module_prefix="t_side")
    two = load_export(second, second_spec, module_prefix="t_side")

    assert (run(one), run(two)) == ("first", "second")
    assert "agent" not in sys.modules
    assert not {name for name in sys.modules if name.startswith("agent.")}


def test_an_agent_cannot_import_another_agents_modules(tmp_path: Path) -> None:
    first, first_spec = plugin(
        tmp_path / "one",
        {**agent_package("first"), "secret.py": "K = 1\n"},
        graph_spec="agent.graph:graph",
    )
    files = {**agent_package("second"), "agent/graph.py": "import secret\n"}
    second, second_spec = plugin(tmp_path / "two", files, graph_spec="agent.graph:graph")
    load_export(
        first,
        first_spec,
        module_prefix="t_sealed",
    )

    with pytest.raises(ModuleNotFoundError, match="'secret'"):
        load_export(second, second_spec, module_prefix="t_sealed")


def test_a_folder_named_like_an_installed_package_never_hides_it(tmp_path: Path) -> None:
    """Python finds a regular package or module before a folder without ``__init__.py``: the
    agent's ``langgraph/`` folder holds its graph file, and ``langgraph.graph`` is LangGraph's."""
    files = {
        "langgraph/langgraph.py": GRAPH + "graph = builder.compile()\n",
        "helpers/__init__.py": "",
    }
    folder, spec = plugin(tmp_path, files, graph_spec="./langgraph/langgraph.py:graph")

    export = load_export(folder, spec, module_prefix="t_shadow")

    assert run(export) == "ok"
    assert top_level_names(folder / "src") == {"helpers"}


def test_graph_files_of_the_same_name_in_two_dependency_folders_are_each_their_own(
    tmp_path: Path,
) -> None:
    """``./01/graph.py`` and ``./02/graph.py``, both folders on the path: each spec loads its own
    file, as LangGraph's server loads a file spec by its path."""
    answer = GRAPH + "graph = builder.compile()\n"
    files = {
        "01/graph.py": answer.replace('content="ok"', 'content="first"'),
        "02/graph.py": answer.replace('content="ok"', 'content="second"'),
    }
    paths = {"python_paths": ["01", "02"]}
    first, first_spec = plugin(tmp_path / "a", files, graph_spec="./01/graph.py:graph", **paths)
    second, second_spec = plugin(tmp_path / "b", files, graph_spec="./02/graph.py:graph", **paths)

    one = load_export(first, first_spec, module_prefix="t_twins_a")
    two = load_export(second, second_spec, module_prefix="t_twins_b")

    assert (run(one), run(two)) == ("first", "second")
