"""LangGraph's private names the turn engine uses (``runtime.turns._langgraph``) still mean what
the engine takes them to mean: each test fails, by name, on a LangGraph release that moves or
changes one, before a turn would."""

from __future__ import annotations

import operator
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import pytest
from langchain_core.runnables.config import get_executor_for_config
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt
from typing_extensions import TypedDict

from runtime.turns import _langgraph


class State(TypedDict):
    steps: Annotated[list[str], operator.add]


def step(state: State) -> dict[str, Any]:
    return {"steps": ["step"]}


def one_node() -> StateGraph[State]:
    builder = StateGraph(State)
    builder.add_node("step", step)
    builder.add_edge(START, "step")
    builder.add_edge("step", END)
    return builder


def test_a_run_writes_through_the_checkpointer_its_config_names() -> None:
    """``CONFIG_KEY_CHECKPOINTER``: how the engine slips ``TurnWrites`` under a compiled graph."""
    saver = InMemorySaver()
    graph = one_node().compile()  # no checkpointer of its own
    config = {"configurable": {"thread_id": "t", _langgraph.CONFIG_KEY_CHECKPOINTER: saver}}
    graph.invoke({"steps": []}, config)
    assert saver.get_tuple({"configurable": {"thread_id": "t"}}) is not None


def test_a_subgraphs_namespace_joins_its_parents_with_these_separators() -> None:
    """``NS_END`` ends a node's name in a namespace, ``NS_SEP`` separates nested ones."""

    def ask(state: State) -> dict[str, Any]:
        interrupt("continue?")
        return {"steps": ["asked"]}

    inner = StateGraph(State)
    inner.add_node("ask", ask)
    inner.add_edge(START, "ask")
    middle = StateGraph(State)
    middle.add_node("inner", inner.compile())
    middle.add_edge(START, "inner")
    outer = StateGraph(State)
    outer.add_node("middle", middle.compile())
    outer.add_edge(START, "middle")
    graph = outer.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    graph.invoke({"steps": []}, config)
    namespaces = {
        item.config["configurable"]["checkpoint_ns"] for item in graph.checkpointer.list(config)
    }
    nested = [ns for ns in namespaces if _langgraph.NS_SEP in ns]
    assert nested, namespaces
    first, second = nested[0].split(_langgraph.NS_SEP)
    assert first.startswith("middle" + _langgraph.NS_END)
    assert second.startswith("inner" + _langgraph.NS_END)


def test_each_run_takes_its_thread_pool_from_the_function_threads_replaces() -> None:
    """``executor.get_executor_for_config``: what ``threads.share_run_threads`` swaps for one
    shared pool; a LangGraph that makes its pools otherwise never calls it."""
    assert _langgraph.executor.get_executor_for_config in (get_executor_for_config, _spy_target())
    calls: list[object] = []
    original = _langgraph.executor.get_executor_for_config

    @contextmanager
    def spy(config: Any) -> Iterator[Any]:
        calls.append(config)
        with original(config) as pool:
            yield pool

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_langgraph.executor, "get_executor_for_config", spy)
        one_node().compile(checkpointer=InMemorySaver()).invoke(
            {"steps": []}, {"configurable": {"thread_id": "t"}}
        )
    assert calls


def _spy_target() -> object:
    """The shared pool's function, once the serving app has installed it in this process."""
    from runtime.turns.threads import _executor_for

    return _executor_for
