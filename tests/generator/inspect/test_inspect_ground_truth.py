"""The static inspection agrees with what LangGraph itself builds from the same code.

The fixtures were written for this project and only need langgraph and langchain-core, so a
separate Python process can import them and report the real graph: node names in order, edges,
conditional destinations, state fields and their reducers. The inspector never imports agent
code; this test does, on our own fixtures only, to prove the static reading is right.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from generator.inspect.config import load_config
from generator.models import Graph, Inspection

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "agents"
#: One child process imports LangGraph and builds every graph: slow on a loaded machine.
pytestmark = pytest.mark.timeout(300)
#: Fixtures that run offline with what this project installs (langchain, no model provider).
RUNNABLE = [
    "compiled_basic",
    "src_layout",
    "relative_up",
    "flat_siblings",
    "factories",
    "inheritance",
    "subgraphs",
    "old_keywords",
    "dynamic_nodes",
    "subfolder_config",
    "node_returns",
    "node_loop",
    "uv_workspace",
    "node_table",
    "workspace_factory",
    "agent_middleware",
    "uv_source_workspace",
    "lazy_tool_import",
]

PROBE = r"""
import asyncio, importlib, inspect, json, sys, typing
from pathlib import Path

# Imported once, before the loop, so that only the fixtures' own modules are dropped after each
# graph: re-importing LangGraph per graph cost most of this test's time.
import langchain_core.messages, langchain_core.runnables, langgraph.graph, langgraph.types

def probe(root, roots, path, export):
    sys.path[:0] = [str(Path(root, r)) for r in roots]
    file = Path(root, path).resolve()
    folders = [Path(root, r).resolve() for r in roots]
    base = next(folder for folder in folders if file.is_relative_to(folder))
    parts = list(file.relative_to(base).with_suffix("").parts)
    module = importlib.import_module(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    value = getattr(module, export)
    if not hasattr(value, "builder"):
        result = value(*[{}, None][: len(inspect.signature(value).parameters)])
        value = asyncio.run(result) if inspect.iscoroutine(result) else result
    builder = value.builder
    reducers = {
        name: channel.operator.__name__.lstrip("_")  # add_messages is wrapped as _add_messages
        for name, channel in builder.channels.items()
        if type(channel).__name__ == "BinaryOperatorAggregate"
    }
    branches = {
        f"{source}:{name}": sorted(map(str, (branch.ends or {}).values()))
        for source, named in builder.branches.items() for name, branch in named.items()
    }
    return {
        "nodes": [str(n) for n in builder.nodes],
        "edges": sorted([str(a), str(b)] for a, b in builder.edges),
        "ends": {str(n): sorted(map(str, s.ends)) for n, s in builder.nodes.items() if s.ends},
        "branches": branches,
        "fields": list(typing.get_type_hints(builder.state_schema, include_extras=True)),
        "reducers": reducers,
    }

for line in sys.stdin:
    job = json.loads(line)
    saved_path, saved_modules = list(sys.path), set(sys.modules)
    print(json.dumps(probe(**job)), flush=True)
    sys.path[:] = saved_path
    for name in set(sys.modules) - saved_modules:
        del sys.modules[name]
"""


@pytest.fixture(scope="module")
def real_graphs() -> dict[tuple[str, str], dict[str, Any]]:
    """(fixture, graph id) -> what LangGraph builds, probed in one child process."""
    jobs, keys = [], []
    for shape in RUNNABLE:
        root = FIXTURES / shape
        config = load_config(root)
        for spec in config.graphs:
            job = {"root": str(root), "roots": config.import_roots, "path": spec.path}
            jobs.append(job | {"export": spec.export})
            keys.append((shape, spec.graph_id))
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        input="".join(json.dumps(job) + "\n" for job in jobs),
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONWARNINGS": "ignore"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return dict(zip(keys, map(json.loads, done.stdout.splitlines()), strict=True))


@pytest.mark.parametrize("shape", RUNNABLE)
def test_static_reading_matches_the_real_graph(
    shape: str,
    real_graphs: dict[tuple[str, str], dict[str, Any]],
    inspect_folder: Callable[..., Inspection],
) -> None:
    for graph in inspect_folder(FIXTURES / shape).graphs:
        check(graph, real_graphs[(shape, graph.graph_id)], (shape, graph.graph_id) in PARTIAL)


#: Graphs whose code adds nodes in a loop or an edge chosen at run time, or whose middleware
#: adds nodes inside the library (warned about).
PARTIAL = {
    ("dynamic_nodes", "review"),
    ("factories", "with config"),
    ("agent_middleware", "notes"),
    ("agent_middleware", "custom"),
}


def check(graph: Graph, real: dict[str, Any], partial: bool) -> None:
    assert graph.nodes is not None and graph.state is not None
    names = [node.name for node in graph.nodes]
    plain = sorted([e.source, e.target] for e in graph.edges if not e.conditional)
    if partial:  # what is missing is missing, never invented
        assert names == [n for n in real["nodes"] if n in names]
        assert all(edge in real["edges"] for edge in plain)
    else:
        assert names == real["nodes"]
        assert plain == real["edges"]
    assert graph.nodes_complete == (names == real["nodes"])
    assert [f.name for f in graph.state.fields] == real["fields"]
    reducers = {f.name: f.reducer.rpartition(".")[2] for f in graph.state.fields if f.reducer}
    assert reducers == {k: v for k, v in real["reducers"].items() if k in reducers}
    assert set(reducers) == {k for k in real["reducers"] if k in names_of(graph)}
    for key, targets in real["branches"].items():
        source = key.partition(":")[0]
        ours = sorted({e.target for e in graph.edges if e.conditional and e.source == source})
        assert ours == targets or not targets
    for node, ends in real["ends"].items():  # Command[Literal[...]] destinations
        ours = {e.target for e in graph.edges if e.condition == "Command" and e.source == node}
        assert set(ends) <= ours


def names_of(graph: Graph) -> set[str]:
    return {f.name for f in graph.state.fields} if graph.state else set()
