"""The worker runs in the agent's environment, where the runtime's packages are not: it and the
two runtime files it loads by path may import only the standard library and what every LangGraph
environment has."""

from __future__ import annotations

import ast
import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph

from runtime import redaction
from runtime.adapters.isolated import _encode_input
from runtime.isolated.process import PROGRAM_DIR
from runtime.isolated.worker import saver
from runtime.isolated.worker.agent import LoadError, compiled
from runtime.isolated.worker.runs import _input, compact
from runtime.testing import offline_models

CARD = "4111 1111 1111 1111"

#: What an agent's environment always has (LangGraph brings langchain-core, which brings pydantic).
ENVIRONMENT = {"langgraph", "langchain_core", "pydantic"}


def imported(path: Path) -> set[str]:
    """The top-level names of the absolute imports of ``path``."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name.partition(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.partition(".")[0])
    return names


def test_the_worker_and_the_files_it_loads_need_nothing_the_environment_lacks() -> None:
    files = [*sorted((PROGRAM_DIR / "worker").glob("*.py"))]
    files += [Path(offline_models.__file__), Path(redaction.__file__)]
    allowed = set(sys.stdlib_module_names) | ENVIRONMENT | {"__future__"}
    extra = {str(path.name): imported(path) - allowed for path in files}
    assert {name: names for name, names in extra.items() if names} == {}


def test_the_worker_masks_every_channel_it_keeps(monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole checkpoint goes back to the runtime, whose state holds it as bytes: a channel a
    node changed in place without writing it (no new version) is masked too."""
    monkeypatch.setattr(saver, "mask", redaction.redact_values)
    snapshot = saver.SnapshotSaver()
    checkpoint = {**empty_checkpoint(), "channel_values": {"profile": {"note": f"card {CARD}"}}}
    config = {"configurable": {"thread_id": "t", "checkpoint_ns": ""}}
    snapshot.put(config, checkpoint, {}, {})  # no channel has a new version
    kept = snapshot.saved[""]["checkpoint"]["channel_values"]
    assert kept == {"profile": {"note": "card ****1111"}}
    assert CARD.encode() not in snapshot.dump()


def _graph() -> Any:
    builder = StateGraph(MessagesState)
    builder.add_node("answer", lambda state: {"messages": [("ai", "hi")]})
    builder.add_edge(START, "answer")
    return builder


@asynccontextmanager
async def async_factory(config: dict[str, Any]) -> AsyncIterator[Any]:
    OPENED.append("async")
    yield _graph().compile()
    OPENED.append("async closed")


@contextmanager
def sync_factory() -> Iterator[Any]:
    OPENED.append("sync")
    yield _graph()
    OPENED.append("sync closed")


async def awaited_factory(config: dict[str, Any]) -> Any:
    return _graph().compile()


OPENED: list[str] = []


@pytest.mark.parametrize(
    ("export", "opened"),
    [
        (async_factory, ["async", "async closed"]),
        (sync_factory, ["sync", "sync closed"]),
        (awaited_factory, []),
        (_graph, []),
        (_graph(), []),
    ],
    ids=["async-context-manager", "context-manager", "async", "builder-factory", "builder"],
)
def test_every_factory_shape_the_server_runs_gets_the_runs_checkpointer(
    export: Any, opened: list[str]
) -> None:
    """Kept open for the run, closed after it, with the run's checkpointer (the async context
    manager factory failed with ``'_AsyncGeneratorContextManager' object has no attribute
    'copy'``)."""
    OPENED.clear()
    checkpointer = InMemorySaver()
    config = {"configurable": {"thread_id": "t"}}

    async def run() -> Any:
        async with compiled(export, config, checkpointer, None) as graph:
            assert graph.checkpointer is checkpointer
            return await graph.ainvoke({"messages": [("user", "hello")]}, config)

    result = asyncio.run(run())

    assert result["messages"][-1].content == "hi"
    assert opened == OPENED
    assert checkpointer.get_tuple(config) is not None


def test_an_export_that_makes_no_graph_is_named() -> None:
    async def run() -> None:
        async with compiled(lambda: 42, {}, InMemorySaver(), None):
            pass

    with pytest.raises(LoadError, match="the graph export produced int, not a graph"):
        asyncio.run(run())


def test_an_entrypoints_bare_input_and_returned_value_cross_the_worker() -> None:
    """A functional-API entrypoint takes a bare list of messages (made messages again: nothing
    coerces an entrypoint's input) or text, and its final state is what it returned."""
    fresh, encoded = _encode_input([HumanMessage(content="hello", id="h1")])
    restored = _input(encoded)
    started, final = compact({}, AIMessage(content="hi there", id="a1"))

    assert not fresh and _encode_input("what is it?") == (False, "what is it?")
    assert [(m.type, m.content, m.id) for m in restored] == [("human", "hello", "h1")]
    assert _input(None) == {} and _input("text") == "text"
    assert started == {} and final["lc_message"]["content"] == "hi there"


LOAD = """
import json, sys
from pathlib import Path
from worker.agent import load_export
export, _ = load_export(Path(sys.argv[1]), Path(sys.argv[2]))
print(export.invoke({"messages": [("user", "hi")]})["messages"][-1].content)
"""


@pytest.mark.parametrize(
    ("spec", "heard"), [("./01/graph.py", "first"), ("./02/graph.py", "second")]
)
def test_the_worker_loads_the_graph_file_named_even_when_an_earlier_folder_has_its_name(
    tmp_path: Path, spec: str, heard: str
) -> None:
    src = tmp_path / "src"
    for folder, said in (("01", "first"), ("02", "second")):
        (src / folder).mkdir(parents=True)
        (src / folder / "graph.py").write_text(
            "from langgraph.graph import START, MessagesState, StateGraph\n"
            "b = StateGraph(MessagesState)\n"
            f"b.add_node('a', lambda s: {{'messages': [('ai', '{said}')]}})\n"
            "b.add_edge(START, 'a')\ngraph = b.compile()\n"
        )
    agent = {
        "graph_spec": f"{spec}:graph",
        "config_file": "langgraph.json",
        "python_paths": ["01", "02"],
    }
    (tmp_path / "agent.json").write_text(json.dumps(agent))

    done = subprocess.run(
        [sys.executable, "-c", LOAD, str(tmp_path / "agent.json"), str(src)],
        env={**os.environ, "PYTHONPATH": str(PROGRAM_DIR)},
        capture_output=True,
        text=True,
        check=False,
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == heard
