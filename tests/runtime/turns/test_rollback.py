"""``TurnWrites`` keeps no card number, whichever way a node writes one."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from langgraph._internal._constants import CONFIG_KEY_CHECKPOINTER
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages

from runtime.turns.rollback import TurnWrites
from runtime.turns.runs import DURABILITY

CARD = "4111 1111 1111 1111"


class Chat(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


def reply(state: Chat) -> dict[str, Any]:
    return {"messages": [AIMessage(f"you said: {state['messages'][-1].content}")]}


def chat(saver: SqliteSaver) -> Any:
    """A conversation graph: each turn adds the customer's message and a reply."""
    graph = StateGraph(Chat).add_node("reply", reply).add_edge(START, "reply")
    return graph.add_edge("reply", END).compile(checkpointer=saver)


@pytest.fixture
def saver(tmp_path: Path) -> Iterator[SqliteSaver]:
    conn = sqlite3.connect(tmp_path / "sessions.db", check_same_thread=False)
    yield SqliteSaver(conn)
    conn.close()


def turn(graph: Any, saver: SqliteSaver, thread: str, text: str) -> TurnWrites:
    """One committed turn, as the engine runs it: its writes held, then written through."""
    writes = TurnWrites(saver)
    config: RunnableConfig = {
        "configurable": {"thread_id": thread, CONFIG_KEY_CHECKPOINTER: writes}
    }
    graph.invoke({"messages": [HumanMessage(text)]}, config, durability=DURABILITY)
    writes.commit()
    return writes


def test_a_stored_conversation_holds_no_card_number(saver: SqliteSaver) -> None:
    graph = chat(saver)
    thread = uuid.uuid4().hex
    for text in ("hi", f"card {CARD}", "and again", f"{CARD} once more"):
        turn(graph, saver, thread, text)
    stored = saver.conn.execute("SELECT checkpoint FROM checkpoints").fetchall()
    assert stored
    assert all(b"4111 1111" not in row[0] and b"4111111111111111" not in row[0] for row in stored)
    contents = [
        m.content
        for m in graph.get_state({"configurable": {"thread_id": thread}}).values["messages"]
    ]
    assert contents[-2:] == ["****1111 once more", "you said: ****1111 once more"]


def recall(state: Chat) -> dict[str, Any]:
    """A node that changes a stored message in place and returns it (LangGraph replaces it by
    id): the object came back from the database, masked, but holds a card number now."""
    first = state["messages"][0]
    first.content = f"card {CARD}"
    return {"messages": [first]}


def test_a_stored_message_changed_in_place_is_masked_again(saver: SqliteSaver) -> None:
    thread = uuid.uuid4().hex
    turn(chat(saver), saver, thread, "hello")
    builder = StateGraph(Chat).add_node("recall", recall).add_edge(START, "recall")
    graph = builder.add_edge("recall", END).compile(checkpointer=saver)
    turn(graph, saver, thread, "what was my card?")
    contents = [
        m.content
        for m in graph.get_state({"configurable": {"thread_id": thread}}).values["messages"]
    ]
    assert contents[0] == "card ****1111"
    stored = saver.conn.execute("SELECT checkpoint FROM checkpoints").fetchall()
    assert all(b"4111 1111" not in row[0] for row in stored)


class Profiled(TypedDict, total=False):
    profile: dict[str, str]
    text: str


def note_in_place(state: Profiled) -> dict[str, Any]:
    """The first turn writes a profile; the next changes it in place and writes something else:
    the profile channel keeps its version, yet SQLite's saver stores every channel again."""
    if "profile" not in state:
        return {"profile": {"note": "nothing yet"}, "text": "noted"}
    state["profile"]["note"] = f"card {CARD}"
    return {"text": "changed in place"}


def test_a_channel_changed_in_place_without_a_write_is_masked_too(saver: SqliteSaver) -> None:
    builder = StateGraph(Profiled).add_node("note", note_in_place).add_edge(START, "note")
    graph = builder.add_edge("note", END).compile(checkpointer=saver)
    thread = uuid.uuid4().hex
    for text in ("first", "second"):
        writes = TurnWrites(saver)
        config: RunnableConfig = {
            "configurable": {"thread_id": thread, CONFIG_KEY_CHECKPOINTER: writes}
        }
        graph.invoke({"text": text}, config, durability=DURABILITY)
        writes.commit()
    stored = saver.conn.execute("SELECT checkpoint FROM checkpoints").fetchall()
    assert len(stored) == 2
    assert all(b"4111 1111" not in row[0] for row in stored)
    profile = graph.get_state({"configurable": {"thread_id": thread}}).values["profile"]
    assert profile == {"note": "card ****1111"}


def test_a_checkpoints_metadata_is_masked(saver: SqliteSaver) -> None:
    """LangGraph copies a run's config metadata into each checkpoint's (an agent's own
    ``with_config(metadata=...)`` too)."""
    graph = chat(saver)
    writes = TurnWrites(saver)
    config: RunnableConfig = {
        "configurable": {"thread_id": uuid.uuid4().hex, CONFIG_KEY_CHECKPOINTER: writes},
        "metadata": {"note": f"card {CARD}", "session_id": "s-1"},
    }
    graph.invoke({"messages": [HumanMessage("hi")]}, config, durability=DURABILITY)
    writes.commit()
    stored = [row[0] for row in saver.conn.execute("SELECT metadata FROM checkpoints")]
    assert stored and all(b"****1111" in row and b"4111 1111" not in row for row in stored)
