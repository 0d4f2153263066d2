"""The state every plugin runs on: its reducers, on their own and in a real session."""

from __future__ import annotations

import uuid

from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage

from runtime.contract.state import MAX_MESSAGES, recent_messages
from runtime.discovery import discover
from runtime.storage.backend import backend
from runtime.storage.persistence import open_persistence


def test_messages_keep_the_latest_and_still_update_and_remove_by_id() -> None:
    log = recent_messages([], [HumanMessage(f"m{n}", id=f"m{n}") for n in range(MAX_MESSAGES + 5)])
    assert [m.id for m in log] == [f"m{n}" for n in range(5, MAX_MESSAGES + 5)]

    log = recent_messages(log, [AIMessage("changed", id="m10"), RemoveMessage(id="m11")])
    assert next(m for m in log if m.id == "m10").content == "changed"
    assert "m11" not in {m.id for m in log} and len(log) == MAX_MESSAGES - 1


def test_a_long_session_keeps_a_bounded_log() -> None:
    with open_persistence(backend("memory")) as persistence:
        registry = discover(checkpointer=persistence.checkpointer)
        plugin, graph = registry.plugins["mortgage"], registry.graph("mortgage")
        config = {"configurable": {"thread_id": uuid.uuid4().hex}}
        graph.invoke({**plugin.create_initial_state(), "outbox": None}, config)
        for n in range(MAX_MESSAGES // 2 + 10):  # each turn logs what was said and the answer
            update = {"transcript": f"my house is worth {400 + n}k", "outbox": None}
            graph.invoke({**update, "pendingAction": None}, config)
        messages = graph.get_state(config).values["messages"]

    assert len(messages) == MAX_MESSAGES
    assert messages[-2].content == f"my house is worth {400 + MAX_MESSAGES // 2 + 9}k"
