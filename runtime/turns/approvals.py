"""Approvals: what a pending interrupt shows and says, and which answer resumes it.

An ``interrupt(value)`` becomes an approval screen (A2UI v0.9 on the plugin's surface: a root
Column, a DataCard per question, buttons) and a short spoken question. The value may be:

* a string: the question, answered yes or no;
* a mapping with ``question`` (str), optional ``details`` (a mapping shown as "key: value" lines,
  or a string) and optional ``options`` (strings, or ``{"label": ..., "value": ...}``);
* anything else: shown as its details under "Shall I go ahead?".

A mapping with ``"shown": True`` says the plugin drew the question itself (its own screen and
line): the runtime adds nothing and only waits for the answer; words that answer nothing then go
to the plugin as a new turn. Its ``"answeredBy"`` lists the plugin's own actions
(``<plugin_id>.<name>``) whose buttons answer it: a press of one resumes the interrupt with the
click itself (``{"id", "data"}``, its data checked as any click's), not a new turn.

Answers: the buttons ``<plugin_id>.approve`` / ``<plugin_id>.reject`` (resume value ``True`` /
``False``) or, when the interrupt has options, ``<plugin_id>.choose`` with the option's index
(resume value: the option's ``value``, by default its label); every button names its
``interruptId``. By voice: yes or no words, or an option's words, answer the first question.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from runtime.a2ui import Screen, screen_events
from runtime.a2ui.validate import MAX_VOICE_WORDS
from runtime.actions import resolve_action
from runtime.contracts import PendingAction, ServerEventDict, event
from runtime.plugin import PluginBase
from runtime.turns.events import PendingInterrupt, is_client_tool_call

APPROVE: Final = "approve"
REJECT: Final = "reject"
CHOOSE: Final = "choose"
ANSWERS: Final = (APPROVE, REJECT, CHOOSE)
#: The key of a ``shown`` question's value that lists the plugin's own buttons answering it.
ANSWERED_BY: Final = "answeredBy"
DEFAULT_QUESTION = "Shall I go ahead?"
YES = frozenset({"yes", "yeah", "yep", "sure", "ok", "okay", "approve", "confirm", "go ahead"})
NO = frozenset({"no", "nope", "cancel", "reject", "stop", "don't", "do not", "not now"})
#: Room left in a spoken line for "Say yes or no." and the options.
QUESTION_WORDS = 24


@dataclass(frozen=True)
class Option:
    label: str
    value: Any


@dataclass(frozen=True)
class Approval:
    """An interrupt's value, read as a question."""

    question: str
    details: tuple[tuple[str, str], ...] = ()
    options: tuple[Option, ...] = ()
    #: The plugin shows and says the question itself.
    shown: bool = False
    #: The plugin's own actions whose buttons answer it (``<plugin_id>.<name>``).
    answered_by: tuple[str, ...] = ()

    @classmethod
    def of(cls, value: Any) -> Approval:
        if isinstance(value, str) and value.strip():
            return cls(value.strip())
        if not isinstance(value, Mapping):
            return cls(DEFAULT_QUESTION, (("Details", str(value)),))
        question = str(value.get("question") or DEFAULT_QUESTION).strip()
        details = value.get("details")
        if isinstance(details, Mapping):
            lines = tuple((str(k), str(v)) for k, v in details.items())
        else:
            lines = (("Details", str(details)),) if details else ()
        answered_by = value.get(ANSWERED_BY)
        return cls(
            question,
            lines,
            _options(value.get("options")),
            value.get("shown") is True,
            tuple(a for a in answered_by if isinstance(a, str))
            if isinstance(answered_by, Sequence) and not isinstance(answered_by, str)
            else (),
        )

    def spoken(self) -> str:
        """The question and how to answer it, under the voice limit."""
        words = self.question.split()
        question = " ".join(words[:QUESTION_WORDS]) + ("…" if len(words) > QUESTION_WORDS else "")
        if not self.options:
            return f"{question} Say yes or no."
        labels = [o.label for o in self.options]
        line = f"{question} Say {', '.join(labels[:-1])} or {labels[-1]}."
        return line if len(line.split()) < MAX_VOICE_WORDS else f"{question} Choose on screen."


def _options(raw: Any) -> tuple[Option, ...]:
    if not isinstance(raw, Sequence) or isinstance(raw, str):
        return ()
    options = []
    for item in raw:
        if isinstance(item, Mapping) and "label" in item:
            options.append(Option(str(item["label"]), item.get("value", item["label"])))
        elif isinstance(item, str | int | float):
            options.append(Option(str(item), item))
    return tuple(options)


def approval_events(
    plugin_id: str, interrupts: Sequence[PendingInterrupt]
) -> list[ServerEventDict]:
    """The approval screen for ``interrupts`` on the plugin's surface, and its spoken question
    (client tool calls are the transport's to answer, a ``shown`` question the plugin's own:
    neither draws anything)."""
    interrupts = [
        i for i in interrupts if not (is_client_tool_call(i) or Approval.of(i.value).shown)
    ]
    if not interrupts:
        return []
    children: list[str] = ["approval_heading"]
    components: list[dict[str, Any]] = [
        {"id": "approval_heading", "component": "Text", "text": "Your approval", "variant": "h2"}
    ]
    for index, pending in enumerate(interrupts):
        approval = Approval.of(pending.value)
        card, row = f"approval_{index}", f"approval_{index}_answers"
        children += [card, row]
        components.append(
            {
                "id": card,
                "component": "DataCard",
                "title": "Question",
                "value": approval.question,
                **({"caption": _caption(approval)} if approval.details else {}),
                "tone": "warning",
            }
        )
        buttons = _buttons(plugin_id, pending.id, approval, prefix=row)
        components.append(
            {"id": row, "component": "Row", "children": [b["id"] for b in buttons[::2]]}
        )
        components.extend(buttons)
    components.insert(0, {"id": "root", "component": "Column", "children": children})
    screen = Screen(components=components, voice_text=Approval.of(interrupts[0].value).spoken())
    line = screen.voice_text
    return [
        *screen_events(plugin_id, screen),
        event("server.voice.say", text=line),
        event("server.transcript.final", text=line, role="agent"),
    ]


def _caption(approval: Approval) -> str:
    return " · ".join(f"{key}: {value}" for key, value in approval.details)


def _buttons(
    plugin_id: str, interrupt_id: str, approval: Approval, *, prefix: str
) -> list[dict[str, Any]]:
    """Each button followed by its label."""
    answers: list[tuple[str, str, dict[str, Any]]] = (
        [(CHOOSE, o.label, {"option": i}) for i, o in enumerate(approval.options)]
        if approval.options
        else [(REJECT, "No", {}), (APPROVE, "Yes", {})]
    )
    out: list[dict[str, Any]] = []
    for index, (name, label, data) in enumerate(answers):
        button = f"{prefix}_{index}"
        context = {"interruptId": interrupt_id, **data}
        out.append(
            {
                "id": button,
                "component": "Button",
                "child": f"{button}_label",
                "variant": "primary" if name != REJECT else "borderless",
                "action": {"event": {"name": f"{plugin_id}.{name}", "context": context}},
            }
        )
        out.append({"id": f"{button}_label", "component": "Text", "text": label})
    return out


class BadAnswer(ValueError):
    """A click on an approval button that cannot be an answer (the message says why)."""


def answer_click(
    plugin: PluginBase,
    interrupts: Sequence[PendingInterrupt],
    action_id: str,
    data: Mapping[str, Any],
) -> dict[str, Any] | None:
    """The resume (interrupt id -> value) a click on an approval button, or on a plugin's own
    button that a pending question lists in ``answeredBy``, means; ``None`` when the click is
    neither. An approval button's interrupt id is taken as sent: the engine refuses one it does
    not wait on. ``ActionRejected`` when the plugin refuses the click's data."""
    namespace, _, name = action_id.rpartition(".")
    if namespace not in ("", plugin.plugin_id) or name not in ANSWERS or not interrupts:
        for pending in interrupts:
            if (action := pressed(plugin, pending, action_id, data)) is not None:
                return {pending.id: action}
        return None
    interrupt_id = data.get("interruptId")
    if not isinstance(interrupt_id, str):
        raise BadAnswer(f"{action_id} needs the interruptId it answers")
    if name != CHOOSE:
        return {interrupt_id: name == APPROVE}
    target = next((i for i in interrupts if i.id == interrupt_id), None)
    options = Approval.of(target.value).options if target else ()
    index = data.get("option")
    if not isinstance(index, int) or not 0 <= index < len(options):
        raise BadAnswer(f"{action_id}: no option {index!r} for interrupt {interrupt_id}")
    return {interrupt_id: options[index].value}


def pressed(
    plugin: PluginBase, pending: PendingInterrupt, action_id: str, data: Mapping[str, Any]
) -> PendingAction | None:
    """The answer a press of ``action_id`` gives ``pending``: the click, when the question lists
    the action in ``answeredBy`` (``ActionRejected`` if the plugin refuses its data)."""
    namespaced = action_id if "." in action_id else plugin.action_id(action_id)
    if is_client_tool_call(pending) or namespaced not in Approval.of(pending.value).answered_by:
        return None
    return resolve_action(plugin, action_id, dict(data))


def asks_itself(interrupts: Sequence[PendingInterrupt]) -> bool:
    """The first pending question is the plugin's own (``shown``): it handles other words."""
    return bool(interrupts) and Approval.of(interrupts[0].value).shown


def answer_words(interrupts: Sequence[PendingInterrupt], text: str) -> dict[str, Any] | None:
    """The resume the customer's words mean for the first pending question, or ``None``."""
    interrupts = [i for i in interrupts if not is_client_tool_call(i)]
    if not interrupts:
        return None
    first = interrupts[0]
    approval = Approval.of(first.value)
    said = " ".join(re.findall(r"[a-z0-9']+", text.lower()))
    if approval.options:
        for option in approval.options:
            label = " ".join(re.findall(r"[a-z0-9']+", option.label.lower()))
            if label and re.search(rf"\b{re.escape(label)}\b", said):
                return {first.id: option.value}
        return None
    if any(re.search(rf"\b{re.escape(word)}\b", said) for word in NO):
        return {first.id: False}
    if any(re.search(rf"\b{re.escape(word)}\b", said) for word in YES):
        return {first.id: True}
    return None
