"""What a run changed, and the answer of a run that wrote no message (``adapters.changes``)."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage

from runtime.adapters.changes import (
    NOTHING_CHANGED,
    awaits_tool_results,
    change_summary,
    changed_fields,
    new_messages,
)


def test_changed_fields_are_the_new_values_and_never_the_conversation() -> None:
    before = {"messages": [HumanMessage("hi", id="h1")], "count": 1, "notes": ["a"], "same": 3}
    after = {
        "messages": [HumanMessage("hi", id="h1"), AIMessage("ok", id="a1")],
        "count": 2,
        "notes": ["a", "b"],
        "same": 3,
        "flag": True,
    }
    assert changed_fields(before, after) == {"count": 2, "notes": ["a", "b"], "flag": True}


def test_a_summary_names_each_change_in_plain_words() -> None:
    assert change_summary({"count": 2}) == "The agent updated count to 2."
    summary = change_summary({"max_analysts": 3, "topic": "tides", "done": True, "seen": ["x"]})
    assert summary == (
        'The agent updated max analysts to 3, topic to "tides", done to yes and seen to 1 item.'
    )
    assert change_summary({}) == NOTHING_CHANGED


def test_a_summary_of_many_changes_names_the_first_and_counts_the_rest() -> None:
    summary = change_summary({f"field_{n}": n for n in range(6)})
    assert summary.endswith("field 3 to 3 and 2 more fields.")


def test_new_messages_are_those_the_run_added() -> None:
    old = [HumanMessage("hi", id="h1"), AIMessage("first answer", id="a1")]
    added = AIMessage("second answer", id="a2")
    assert new_messages(old, [*old, added]) == [added]
    assert new_messages(old, old) == []


def test_a_run_ending_on_a_tool_call_awaits_its_results() -> None:
    call = AIMessage("", tool_calls=[{"name": "get_location", "args": {}, "id": "c1"}])
    assert awaits_tool_results([call])
    assert not awaits_tool_results([AIMessage("done")])
    assert not awaits_tool_results([])
