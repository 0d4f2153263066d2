"""The deterministic designer: useful, valid screens from the inspection alone, with no model.

Used offline, without credentials, and whenever the model's answers stay invalid. Same facts in,
byte-identical screens out (nothing here reads the clock, the environment or a random source).

* welcome: the agent's name, its purpose from the README, and what the user can say;
* collecting: the request being worked on and the steps the graph runs (its nodes, in order);
* result: the answer as a DataCard bound to ``/answer``, simple state fields as StatCards bound to
  ``/state/<field>``, and a button to start again;
* error: what went wrong (``/error``), with buttons to retry or start again.
"""

from __future__ import annotations

import re
from collections import deque
from typing import Any

from generator.design.facts import MESSAGES_FIELD, AgentFacts
from generator.design.models import DesignContent, initial_domain_state
from runtime.a2ui.models import Screen

#: StatCards on the result screen, at most (more would crowd a phone).
MAX_STATS = 4
#: Steps shown on the collecting screen, at most.
MAX_STEPS = 6
_GRAPH_ENDS = {"__start__", "__end__", "START", "END"}


def fallback_content(
    facts: AgentFacts, *, plugin_id: str, input_field: str, output_field: str
) -> DesignContent:
    """Four screens for the agent and the data model they bind to."""
    stats = facts.scalar_fields(exclude={input_field, output_field, MESSAGES_FIELD})[:MAX_STATS]
    names = [f.name for f in stats]
    answer_title = "Answer" if output_field == MESSAGES_FIELD else humanise(output_field)
    reasoning = (
        f"Deterministic design from the inspection: the request goes into `{input_field}`, the "
        f"answer comes from `{output_field}` and is shown as a DataCard"
    )
    if names:
        cards = "StatCards" if len(names) > 1 else "a StatCard"
        reasoning += f", with {', '.join(f'`{name}`' for name in names)} as {cards}"
    return DesignContent(
        welcome=_welcome(facts, input_field),
        collecting=_collecting(facts),
        result=_result(facts, plugin_id, answer_title, names),
        error=_error(plugin_id),
        input_field=input_field,
        output_field=output_field,
        initial_domain_state=initial_domain_state(dict.fromkeys(names)),
        reasoning=reasoning + ".",
    )


def humanise(name: str) -> str:
    """``final_answer`` / ``finalAnswer`` → ``Final answer``."""
    words = re.sub(r"[_\-\s]+", " ", re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name)).strip().lower()
    return words[:1].upper() + words[1:]


def _welcome(facts: AgentFacts, input_field: str) -> Screen:
    if input_field == MESSAGES_FIELD:
        prompt, voice_ask = "Ask a question in your own words.", "What would you like to ask?"
    else:
        what = humanise(input_field).lower()
        prompt, voice_ask = f"Tell me your {what} in your own words.", f"What is your {what}?"
    name = facts.title if len(facts.title.split()) <= 6 else "this assistant"
    return _screen(
        f"Hello, this is {name}. {voice_ask}",
        _column("title", "about", "say"),
        _text("title", facts.title, "h2"),
        _data_card("about", "What this agent does", facts.description),
        _data_card("say", "Try saying", prompt, caption="Speak or type, whichever suits you."),
    )


def _collecting(facts: AgentFacts) -> Screen:
    steps = [{"title": humanise(step)} for step in _steps(facts)[:MAX_STEPS]]
    children = ["title", "request", *(["steps"] if steps else [])]
    return _screen(
        "One moment while I work on that.",
        _column(*children),
        _text("title", "Working on it", "h2"),
        _data_card("request", "Your request", {"path": "/question"}),
        *([{"id": "steps", "component": "Timeline", "items": steps}] if steps else []),
    )


def _result(facts: AgentFacts, plugin_id: str, answer_title: str, stats: list[str]) -> Screen:
    stat_ids = [f"stat_{name}" for name in stats]
    children = ["title", "answer", *(["stats"] if stats else []), "again"]
    return _screen(
        "Here is what I found. It's on screen too.",
        _column(*children),
        _text("title", facts.title, "h2"),
        _data_card("answer", answer_title, {"path": "/answer"}, caption={"path": "/question"}),
        *([{"id": "stats", "component": "Row", "children": stat_ids}] if stats else []),
        *(
            {
                "id": stat_id,
                "component": "StatCard",
                "label": humanise(name),
                "value": {"path": f"/state/{name}"},
                "weight": 1,
            }
            for stat_id, name in zip(stat_ids, stats, strict=True)
        ),
        *_button("again", "Ask something else", f"{plugin_id}.restart", "primary"),
    )


def _error(plugin_id: str) -> Screen:
    return _screen(
        "Sorry, I couldn't finish that. Shall I try again?",
        _column("title", "problem", "actions"),
        _text("title", "Something went wrong", "h2"),
        _data_card("problem", "What happened", {"path": "/error"}, tone="negative"),
        {"id": "actions", "component": "Row", "children": ["retry", "restart"]},
        *_button("retry", "Try again", f"{plugin_id}.retry", "primary"),
        *_button("restart", "Start again", f"{plugin_id}.restart", "borderless"),
    )


def _steps(facts: AgentFacts) -> list[str]:
    """Node names in the order the graph reaches them from its start, then any others."""
    nodes = [node.name for node in facts.graph.nodes or [] if node.name not in _GRAPH_ENDS]
    following: dict[str, list[str]] = {}
    for edge in facts.graph.edges:
        following.setdefault(edge.source, []).append(edge.target)
    ordered: list[str] = []
    queue = deque(["__start__", "START"])
    while queue:
        for target in following.get(queue.popleft(), []):
            if target in nodes and target not in ordered:
                ordered.append(target)
                queue.append(target)
    return ordered + [name for name in nodes if name not in ordered]


def _screen(voice_text: str, *components: dict[str, Any]) -> Screen:
    return Screen(components=list(components), voice_text=voice_text)


def _column(*children: str) -> dict[str, Any]:
    return {"id": "root", "component": "Column", "children": list(children)}


def _text(component_id: str, text: str, variant: str | None = None) -> dict[str, Any]:
    return {"id": component_id, "component": "Text", "text": text} | (
        {"variant": variant} if variant else {}
    )


def _data_card(component_id: str, title: str, value: Any, **optional: Any) -> dict[str, Any]:
    return {"id": component_id, "component": "DataCard", "title": title, "value": value, **optional}


def _button(component_id: str, label: str, action: str, variant: str) -> list[dict[str, Any]]:
    """A Button and the Text holding its label (A2UI buttons have no text of their own)."""
    label_id = f"{component_id}_label"
    return [
        {
            "id": component_id,
            "component": "Button",
            "child": label_id,
            "variant": variant,
            "action": {"event": {"name": action}},
        },
        _text(label_id, label),
    ]
