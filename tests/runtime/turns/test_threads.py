"""LangGraph's run threads, shared: no thread started per run, the same results."""

from __future__ import annotations

import contextvars
import operator
import threading
import uuid
from typing import Annotated, Any, TypedDict

import langgraph.pregel._executor as langgraph_executor
import pytest
from langchain_core.runnables.config import get_executor_for_config
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from runtime.turns.runs import DURABILITY
from runtime.turns.threads import running_inline, share_run_threads


class Fan(TypedDict):
    seen: Annotated[list[str], operator.add]


def noting(name: str) -> Any:
    return lambda state: {"seen": [name]}


def inner_graph() -> Any:
    graph = StateGraph(Fan).add_node("deep", noting("deep")).add_edge(START, "deep")
    return graph.add_edge("deep", END).compile()


def fan_out() -> Any:
    """Two branches in one step (LangGraph runs them in its pool), one of them a nested run."""
    inner = inner_graph()
    graph = StateGraph(Fan)
    graph.add_node("left", noting("left"))
    graph.add_node("right", lambda state: {"seen": ["right", *inner.invoke({"seen": []})["seen"]]})
    graph.add_edge(START, "left").add_edge(START, "right")
    graph.add_edge("left", END).add_edge("right", END)
    return graph.compile(checkpointer=InMemorySaver())


@pytest.fixture
def own_pools(monkeypatch: pytest.MonkeyPatch) -> None:
    """LangGraph as it comes: a pool per run (a server app built earlier in this process shared
    them; put back after the test)."""
    monkeypatch.setattr(langgraph_executor, "get_executor_for_config", get_executor_for_config)


@pytest.fixture
def shared(own_pools: None) -> None:
    """The pool shared for this test only."""
    share_run_threads()


@pytest.fixture
def thread_starts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    started: list[str] = []
    start = threading.Thread.start

    def counting(thread: threading.Thread) -> None:
        started.append(thread.name)
        start(thread)

    monkeypatch.setattr(threading.Thread, "start", counting)
    return started


def run_turns(graph: Any, turns: int, **config: Any) -> list[list[str]]:
    thread = {"configurable": {"thread_id": uuid.uuid4().hex}, **config}
    return [
        sorted(graph.invoke({"seen": []}, thread, durability=DURABILITY)["seen"])
        for _ in range(turns)
    ]


def test_runs_start_no_thread_each_once_the_pool_is_shared(
    shared: None, thread_starts: list[str]
) -> None:
    graph = fan_out()
    run_turns(graph, 2)  # the pool grows to what one run needs at once
    before = len(thread_starts)
    seen = run_turns(graph, 20)
    assert len(thread_starts) == before  # the same threads, run after run
    assert seen[-1] == sorted(["left", "right", "deep"] * 20)


def test_without_the_shared_pool_each_run_starts_threads(
    own_pools: None, thread_starts: list[str]
) -> None:
    """What the shared pool saves (and what would tell that LangGraph makes its pools otherwise)."""
    run_turns(fan_out(), 20)
    assert len(thread_starts) >= 20


def test_a_run_that_bounds_its_concurrency_keeps_a_pool_of_its_own(
    shared: None, thread_starts: list[str]
) -> None:
    graph = fan_out()
    run_turns(graph, 2)
    before = len(thread_starts)
    seen = run_turns(graph, 3, max_concurrency=1)
    assert len(thread_starts) >= before + 3
    assert seen[-1] == sorted(["left", "right", "deep"] * 3)


def test_a_run_on_the_event_loop_hands_nothing_to_a_thread(
    shared: None, thread_starts: list[str]
) -> None:
    """Parallel branches, a nested run and the last checkpoint's save all run where it runs."""
    where: set[int] = set()

    def node(name: str) -> Any:
        def noted(state: Fan) -> dict[str, Any]:
            where.add(threading.get_ident())
            return {"seen": [name]}

        return noted

    graph = StateGraph(Fan).add_node("left", node("left")).add_node("right", node("right"))
    graph.add_edge(START, "left").add_edge(START, "right")
    compiled = (
        graph.add_edge("left", END).add_edge("right", END).compile(checkpointer=InMemorySaver())
    )
    context = contextvars.copy_context()
    context.run(running_inline.set, True)
    seen = context.run(run_turns, compiled, 3)
    assert seen[-1] == sorted(["left", "right"] * 3)
    assert where == {threading.get_ident()}
    assert thread_starts == []
