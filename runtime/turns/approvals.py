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
``interruptId``. Words answer the first question (``Approval.chosen``): a two-way question (no
options, or two options of which one says yes and the other no, such as approve / reject) takes a
yes or a no, and words that say both answer nothing; other options take their own words.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from runtime.a2ui import ActionEvent, Screen, screen_events
from runtime.a2ui.validate import MAX_VOICE_WORDS
from runtime.contract.actions import ActionRejected, resolve_action
from runtime.contract.plugin import PluginBase
from runtime.contract.state import PendingAction, ServerEventDict, event
from runtime.turns.events import PendingInterrupt, is_client_tool_call

APPROVE: Final = "approve"
REJECT: Final = "reject"
CHOOSE: Final = "choose"
ANSWERS: Final = (APPROVE, REJECT, CHOOSE)
#: The key of a ``shown`` question's value that lists the plugin's own buttons answering it.
ANSWERED_BY: Final = "answeredBy"
DEFAULT_QUESTION = "Shall I go ahead?"
#: Phrases that say yes, and phrases that say no, to a two-way question; an option labelled (or
#: valued) with one of them is that side of a pair of options.
YES = frozenset(
    {"yes", "yeah", "yep", "sure", "ok", "okay", "go ahead", "approve", "accept", "allow"}
    | {"confirm", "continue", "proceed", "agree"}
)
NO = frozenset(
    {"no", "nope", "don't", "do not", "not now", "stop", "cancel", "reject", "decline", "deny"}
    | {"abort"}
)
#: Phrases that hold a yes or no word without being an answer.
NEITHER = frozenset(
    {"not sure", "no problem", "no worries", "no idea", "don't know", "do not know"}
)
#: Room left in a spoken line for "Say yes or no." and the options.
QUESTION_WORDS = 24
SAY_YES_OR_NO: Final = "Say yes or no."


@dataclass(frozen=True)
class Option:
    label: str
    value: Any


#: The answers of a question without options: yes (``True``) and no (``False``).
YES_NO: Final = (Option("yes", True), Option("no", False))


def _words(text: str) -> list[str]:
    """``text`` as lower-case words (a typographic apostrophe read as ``'``)."""
    return re.findall(r"[a-z0-9']+", text.lower().replace("\u2019", "'"))


def _phrase(text: str) -> str:
    return " ".join(_words(text))


#: What each phrase says: ``True`` yes, ``False`` no, ``None`` neither.
_MEANINGS: Final[dict[str, bool | None]] = {
    **dict.fromkeys(NEITHER, None),
    **dict.fromkeys(YES, True),
    **dict.fromkeys(NO, False),
}


def _yes_or_no(
    words: Sequence[str], meanings: Mapping[str, bool | None] = _MEANINGS
) -> bool | None:
    """Whether ``words`` say yes (``True``) or no (``False``); ``None`` when they say neither, or
    both. The phrases of ``meanings`` are matched longest first and a word belongs to one phrase
    at most, so "not sure" says nothing and "don't go ahead" says both."""
    longest = max(len(phrase.split()) for phrase in meanings)
    said: set[bool] = set()
    start = 0
    while start < len(words):
        for size in range(min(longest, len(words) - start), 0, -1):
            phrase = " ".join(words[start : start + size])
            if phrase in meanings:
                if (says := meanings[phrase]) is not None:
                    said.add(says)
                start += size
                break
        else:
            start += 1
    return said.pop() if len(said) == 1 else None


def _side(option: Option) -> bool | None:
    """The side of a two-way question ``option`` stands for, by its label, else its value."""
    side = _MEANINGS.get(_phrase(option.label))
    if side is None and isinstance(option.value, str):
        side = _MEANINGS.get(_phrase(option.value))
    return side


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

    def pair(self) -> tuple[Option, Option] | None:
        """The yes and the no answer of a two-way question: ``YES_NO`` without options, or two
        options of which one stands for yes and the other for no; ``None`` for other options."""
        if not self.options:
            return YES_NO
        sides = [_side(option) for option in self.options]
        if len(sides) != 2 or set(sides) != {True, False}:
            return None
        yes, no = self.options if sides[0] else self.options[::-1]
        return yes, no

    def chosen(self, text: str) -> Option | None:
        """The answer the customer's words give, if any. A two-way question takes a yes or a no
        (``_yes_or_no``: "yes", "sure", "go ahead", "no", "don't", ...; its options' own words count
        on their side) and words that say both answer nothing; other options are chosen by their
        words, the first that was said."""
        words = _words(text)
        pair = self.pair()
        if pair is not None:
            own = {_phrase(o.label): side for o, side in zip(pair, (True, False), strict=True)}
            says = _yes_or_no(words, {**_MEANINGS, **own})
            return None if says is None else pair[0] if says else pair[1]
        said = " ".join(words)
        for option in self.options:
            label = _phrase(option.label)
            if label and re.search(rf"\b{re.escape(label)}\b", said):
                return option
        return None

    def spoken(self) -> str:
        """The question and how to answer it, under the voice limit."""
        words = self.question.split()
        question = " ".join(words[:QUESTION_WORDS]) + ("…" if len(words) > QUESTION_WORDS else "")
        line = f"{question} {self.how_to_answer()}"
        if len(line.split()) < MAX_VOICE_WORDS:
            return line
        return f"{question} {SAY_YES_OR_NO if self.pair() else 'Choose on screen.'}"

    def how_to_answer(self) -> str:
        """How to answer, said: "Say yes or no.", "Say yes to approve or no to reject.", or the
        options ("Say email or sms.")."""
        pair = self.pair()
        if pair is None:
            labels = [o.label for o in self.options]
            if len(labels) == 1:
                return f"Say {labels[0]}."
            return f"Say {', '.join(labels[:-1])} or {labels[-1]}."
        yes, no = (
            word if _phrase(option.label) == word else f"{word} to {option.label}"
            for option, word in zip(pair, ("yes", "no"), strict=True)
        )
        return f"Say {yes} or {no}."


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


class BadAnswer(ActionRejected):
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


def _questions(interrupts: Sequence[PendingInterrupt]) -> list[PendingInterrupt]:
    """The pending questions words may answer: not the client tool calls."""
    return [i for i in interrupts if not is_client_tool_call(i)]


def asks_again(interrupts: Sequence[PendingInterrupt]) -> bool:
    """Words that answer nothing ask the first question again: it is the runtime's (a ``shown``
    question is the plugin's own, which takes other words as a new turn)."""
    questions = _questions(interrupts)
    return bool(questions) and not Approval.of(questions[0].value).shown


def answer_words(interrupts: Sequence[PendingInterrupt], text: str) -> dict[str, Any] | None:
    """The resume the customer's words mean for the first pending question, or ``None``."""
    questions = _questions(interrupts)
    chosen = Approval.of(questions[0].value).chosen(text) if questions else None
    return None if chosen is None else {questions[0].id: chosen.value}


def answer_payload(
    plugin: PluginBase,
    pending: PendingInterrupt,
    payload: Any,
    where: str,
) -> Any:
    """The value a resume payload answers ``pending`` with: ``True`` for none (an approval); a
    button press, the click it means when the question lists the button (``answeredBy``); words,
    one of the options' values as it is, else what they mean as a message's (``answer_words``);
    a yes or no as it is; anything else as it is, but for a question answered by the plugin's own
    buttons, which takes only those. ``ActionRejected`` naming ``where`` otherwise, so the
    question still waits."""
    if isinstance(payload, ActionEvent):
        answer = pressed(plugin, pending, payload.name, payload.context)
        if answer is None:
            raise ActionRejected(f"{payload.name} does not answer interrupt {pending.id}")
        return answer
    if isinstance(payload, str) and not is_client_tool_call(pending):
        return _words_answer(pending, payload, where)
    if payload is None:
        return True
    buttons = Approval.of(pending.value).answered_by
    if buttons and not isinstance(payload, bool):
        raise ActionRejected(
            f"{where}: interrupt {pending.id} is answered by true, false or a press of "
            f"{' or '.join(buttons)}"
        )
    return payload


def _words_answer(pending: PendingInterrupt, words: str, where: str) -> Any:
    approval = Approval.of(pending.value)
    if any(option.value == words for option in approval.options):
        return words
    answer = answer_words([pending], words)
    if answer is None:
        raise ActionRejected(
            f"{where} does not answer interrupt {pending.id}: {approval.how_to_answer()}"
        )
    return answer[pending.id]
