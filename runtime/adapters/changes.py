"""What one run of an agent changed in its state, and how to say so when it gave no answer.

LangGraph's server answers every run with the new state, whether or not the agent wrote a message:
a node may only count something, file something away or set a flag. The runtime's answer is its
result screen, so a run that leaves no new answer says what changed instead: its changed fields
go under ``/state`` and the answer (shown, spoken and sent as the transcript) names them in plain
words ("The agent updated count to 2.").

"Changed" is measured against the state the run started from: the agent's state with this
turn's input applied (the first ``values`` chunk LangGraph streams), so the user's own message is
never taken for something the agent did.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from pydantic_core import to_jsonable_python

#: How many characters of a changed text value the answer quotes.
QUOTED_CHARS = 60
#: How many changed fields the answer names (the rest are counted): all are under ``/state``.
NAMED = 4
NOTHING_CHANGED = "The agent finished without an answer and changed nothing."


def is_message_list(value: Any) -> bool:
    """Whether ``value`` is a conversation (a list of messages), not a field to show."""
    return (
        isinstance(value, list | tuple)
        and bool(value)
        and all(isinstance(item, BaseMessage) for item in value)
    )


def new_messages(before: Any, after: Any) -> list[BaseMessage]:
    """The messages of ``after`` that ``before`` did not hold (by id, else by equality)."""
    if not is_message_list(after):
        return []
    old = list(before) if is_message_list(before) else []
    ids = {message.id for message in old if message.id}
    return [m for m in after if not (m.id in ids if m.id else m in old)]


def awaits_tool_results(messages: Sequence[BaseMessage]) -> bool:
    """Whether the run ended on an AI message calling tools nobody ran yet: a client's frontend
    tools, whose results continue the run (so it has not finished, nor changed anything yet)."""
    return bool(messages) and isinstance(messages[-1], AIMessage) and bool(messages[-1].tool_calls)


def changed_fields(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """The fields the run set to a new value (as JSON, compared as JSON: values of any type
    compare), conversations aside."""
    changed = {}
    for name, value in after.items():
        if is_message_list(value):
            continue
        now = to_jsonable_python(value, fallback=str)
        if name not in before or to_jsonable_python(before[name], fallback=str) != now:
            changed[name] = now
    return changed


def change_summary(changed: Mapping[str, Any]) -> str:
    """One sentence naming each changed field and its new value, in plain words."""
    if not changed:
        return NOTHING_CHANGED
    items = list(changed.items())
    parts = [_describe(name.replace("_", " ").strip(), value) for name, value in items[:NAMED]]
    if len(items) > NAMED:
        more = len(items) - NAMED
        parts.append(f"{more} more field{'' if more == 1 else 's'}")
    listed = parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"
    return f"The agent updated {listed}."


def _describe(label: str, value: Any) -> str:
    if value is None:
        return f"{label} to nothing"
    if isinstance(value, bool):
        return f"{label} to {'yes' if value else 'no'}"
    if isinstance(value, int | float):
        return f"{label} to {value}"
    if isinstance(value, str):
        text = " ".join(value.split())
        quoted = text if len(text) <= QUOTED_CHARS else f"{text[:QUOTED_CHARS].rstrip()}…"
        return f'{label} to "{quoted}"'
    if isinstance(value, list):
        return f"{label} to {len(value)} item{'' if len(value) == 1 else 's'}"
    return label
