"""The checkpointer and store each ``--storage`` URL opens, on the real backends."""

from __future__ import annotations

import asyncio
import sqlite3
from functools import partial
from pathlib import Path
from typing import Any, TypedDict

import psycopg
import pytest
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.config import get_store
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from runtime.storage.backend import backend
from runtime.storage.persistence import (
    PersistenceError,
    open_persistence,
    write_alone,
    write_together,
)
from runtime.storage.plugin_store import PluginStore


class AgentState(TypedDict, total=False):
    text: str
    heard: list[str]
    recalled: list[str]


async def remember(state: AgentState, runtime: Runtime[None]) -> dict[str, Any]:
    """An async agent node shaped like LangChain's memory agent: ``runtime.store``, async API."""
    assert runtime.store is not None
    await runtime.store.aput(("memories",), state["text"], {"text": state["text"]})
    found = await runtime.store.asearch(("memories",))
    return {
        "heard": [*state.get("heard", []), state["text"]],
        "recalled": sorted(item.value["text"] for item in found),
    }


def agent() -> Any:
    builder = StateGraph(AgentState)
    builder.add_node("remember", remember)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", END)
    return builder.compile(checkpointer=True)  # a stateful subgraph, as imported agents run


def host_node(state: AgentState) -> dict[str, Any]:
    """What an imported plugin's node does: run the async agent in its own event loop."""
    graph = agent()
    result: dict[str, Any] = asyncio.run(graph.ainvoke({"text": state["text"]}))
    assert get_store() is not None
    return {"heard": result["heard"], "recalled": result["recalled"]}


def host_graph(checkpointer: Any, store: Any) -> Any:
    builder = StateGraph(AgentState)
    builder.add_node("host", host_node)
    builder.add_edge(START, "host")
    builder.add_edge("host", END)
    return builder.compile(checkpointer=checkpointer, store=PluginStore(store, "agent"))


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "postgres":
        postgres_url: str = request.getfixturevalue("postgres_url")
        return postgres_url
    return "memory" if request.param == "memory" else f"sqlite:{tmp_path / 'runtime.sqlite'}"


def test_an_async_agent_keeps_its_state_and_its_store_on_every_backend(url: str) -> None:
    with open_persistence(backend(url)) as persistence:
        graph = host_graph(persistence.checkpointer, persistence.store)
        config: Any = {"configurable": {"thread_id": "s1"}}
        graph.invoke({"text": "tea"}, config)
        second = graph.invoke({"text": "jazz"}, config)
        other_session = graph.invoke({"text": "rain"}, {"configurable": {"thread_id": "s2"}})
        stored = persistence.store.search(("plugins", "agent", "memories"))
    assert second["heard"] == ["tea", "jazz"]  # the agent's own state, kept per session
    assert other_session["heard"] == ["rain"]
    assert other_session["recalled"] == ["jazz", "rain", "tea"]  # the store spans sessions
    assert sorted(item.key for item in stored) == ["jazz", "rain", "tea"]


def test_sqlite_keeps_sessions_and_store_in_one_file_across_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "runtime.sqlite"
    with open_persistence(backend(f"sqlite:{path}")) as persistence:
        host_graph(persistence.checkpointer, persistence.store).invoke(
            {"text": "tea"}, {"configurable": {"thread_id": "s1"}}
        )
    with open_persistence(backend(f"sqlite:{path}")) as persistence:
        again = host_graph(persistence.checkpointer, persistence.store).invoke(
            {"text": "jazz"}, {"configurable": {"thread_id": "s1"}}
        )
    assert again["heard"] == ["tea", "jazz"]
    with sqlite3.connect(path) as conn:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    assert {"checkpoints", "writes", "store"} <= tables


def test_postgres_migrations_run_once_for_workers_starting_together(postgres_url: str) -> None:
    """Three processes' worth of start-ups at once: none fails on a half-made schema, and each
    migration is recorded once (the store's are not idempotent: run twice, they fail)."""

    async def start_three() -> None:
        def start(n: int) -> None:
            with open_persistence(backend(postgres_url)) as persistence:
                persistence.store.put(("ok",), f"k{n}", {"v": n})

        await asyncio.gather(*(asyncio.to_thread(start, n) for n in range(3)))

    asyncio.run(start_three())
    with psycopg.connect(postgres_url) as conn:
        for table in ("checkpoint_migrations", "store_migrations"):
            versions = [row[0] for row in conn.execute(f"SELECT v FROM {table}")]
            assert versions and len(versions) == len(set(versions)), table
        keys = {row[0] for row in conn.execute("SELECT key FROM store WHERE prefix = 'ok'")}
    assert keys == {"k0", "k1", "k2"}


def test_opening_an_unreachable_postgres_fails_in_one_line_without_the_password() -> None:
    url = "postgresql://app:s3cret@127.0.0.1:1/sessions"
    with pytest.raises(PersistenceError) as caught, open_persistence(backend(url)):
        pass
    message = str(caught.value)
    assert message.startswith("cannot connect to PostgreSQL at postgresql://app:***@127.0.0.1:1/")
    assert "s3cret" not in message
    assert "\n" not in message


def save_turn(checkpointer: Any, session: str, *, fail: bool = False) -> None:
    """A finished turn's writes: one checkpoint of ``session`` (then a failure, with ``fail``)."""
    config = {"configurable": {"thread_id": session, "checkpoint_ns": ""}}
    checkpoint = empty_checkpoint()
    checkpointer.put(config, checkpoint, {"source": "loop", "step": 1}, {})
    if fail:
        raise ValueError(f"{session} cannot be saved")


def saved(database: Path) -> set[str]:
    """The sessions another process would read in ``database``."""
    with open_persistence(backend(f"sqlite:{database}")) as reader:
        return {item.config["configurable"]["thread_id"] for item in reader.checkpointer.list(None)}


def test_turns_that_finish_together_commit_once_on_sqlite(tmp_path: Path) -> None:
    database = tmp_path / "runtime.sqlite"
    statements: list[str] = []

    async def finish_together(checkpointer: Any) -> None:
        await asyncio.gather(
            *(
                write_together(checkpointer, partial(save_turn, checkpointer, f"s{n}"))
                for n in range(5)
            )
        )

    with open_persistence(backend(f"sqlite:{database}")) as persistence:
        persistence.checkpointer.conn.set_trace_callback(statements.append)  # type: ignore[attr-defined]
        asyncio.run(finish_together(persistence.checkpointer))
    assert [s for s in statements if s.upper().startswith("COMMIT")] == ["COMMIT"]
    assert saved(database) == {f"s{n}" for n in range(5)}


def test_a_turn_whose_writes_fail_fails_alone(tmp_path: Path) -> None:
    """The others of its transaction are rolled back with it, then written again each alone."""
    database = tmp_path / "runtime.sqlite"

    async def finish_together(checkpointer: Any) -> list[BaseException | None]:
        writes = [partial(save_turn, checkpointer, s, fail=s == "s1") for s in ("s0", "s1", "s2")]
        return await asyncio.gather(
            *(write_together(checkpointer, write) for write in writes), return_exceptions=True
        )

    with open_persistence(backend(f"sqlite:{database}")) as persistence:
        outcomes = asyncio.run(finish_together(persistence.checkpointer))
    assert outcomes[0] is None and outcomes[2] is None
    assert str(outcomes[1]) == "s1 cannot be saved"
    assert saved(database) == {"s0", "s2"}  # nothing of s1, though its checkpoint was put


def test_a_copy_with_an_allowlist_writes_in_the_group_transaction(tmp_path: Path) -> None:
    """LangGraph's strict msgpack mode gives a run a copy of the checkpointer
    (``with_allowlist``) that shares its connection and lock: its writes join the group."""
    database = tmp_path / "runtime.sqlite"

    async def finish(checkpointer: Any) -> None:
        copy = checkpointer.with_allowlist([("decimal", "Decimal")])
        assert copy is not checkpointer
        writes = [partial(save_turn, saver, s) for saver, s in ((checkpointer, "s0"), (copy, "s1"))]
        await asyncio.wait_for(
            asyncio.gather(*(write_together(checkpointer, write) for write in writes)), 10
        )

    with open_persistence(backend(f"sqlite:{database}")) as persistence:
        persistence.checkpointer.serde = JsonPlusSerializer(allowed_msgpack_modules=None)
        asyncio.run(finish(persistence.checkpointer))
    assert saved(database) == {"s0", "s1"}


def test_a_turn_whose_waiter_left_is_committed_all_the_same(tmp_path: Path) -> None:
    """A finished turn is kept (``TurnGuard.finish``), even if its transport stopped listening."""
    database = tmp_path / "runtime.sqlite"

    async def leave(checkpointer: Any) -> None:
        waiter = asyncio.ensure_future(
            write_together(checkpointer, partial(save_turn, checkpointer, "s0"))
        )
        await asyncio.sleep(0)  # asked for; the transaction runs in the loop's next pass
        waiter.cancel()
        await asyncio.sleep(0.01)

    with open_persistence(backend(f"sqlite:{database}")) as persistence:
        asyncio.run(leave(persistence.checkpointer))
    assert saved(database) == {"s0"}


def test_a_turn_written_alone_is_kept_whole_or_not_at_all(tmp_path: Path) -> None:
    """A run in a worker thread commits its turn in one transaction too (``write_alone``)."""
    database = tmp_path / "runtime.sqlite"
    with open_persistence(backend(f"sqlite:{database}")) as persistence:
        checkpointer = persistence.checkpointer
        write_alone(checkpointer, partial(save_turn, checkpointer, "s0"))
        with pytest.raises(ValueError, match="s1 cannot be saved"):
            write_alone(checkpointer, partial(save_turn, checkpointer, "s1", fail=True))
    assert saved(database) == {"s0"}
