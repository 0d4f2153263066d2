"""What one AG-UI run asks of the session: which turn to run, if any.

An AG-UI client sends the whole conversation on every run; the session (the checkpointed thread)
already holds everything but what is new. So only the end of ``messages`` counts:

* a ``tool`` message answering a client tool call the session waits on (an interrupt whose value is
  a ``ClientToolCall``) resumes it; a tool message for a call that is not waited on (answered
  before, or never made) runs nothing, so a client replaying its history never runs a tool twice;
  except for a plugin that ``reads_tool_results`` (an imported agent whose model calls frontend
  tools itself): it gets the trailing tool messages as ``RunExtras.tool_results`` and keeps which
  call ids it has had;
* ``resume`` entries answer the plugin's own interrupts by id; a payload ``{"a2uiAction": ...}``
  is a press of a button the interrupt lists in ``answeredBy`` (``Interrupt.metadata``), which
  answers it with the click (``@ag-ui/client`` starts no run while an interrupt is pending unless
  the run resumes it, so this is how such a frontend sends the press), and such an interrupt
  takes no other payload than a yes, a no or words; a string payload is what the customer typed,
  one of the options' values or words read as a message's (below), refused when they answer
  nothing;
* an A2UI action in ``forwardedProps`` (``a2uiAction``: a button press as A2UI v0.9 reports it,
  ``{name, surfaceId, sourceComponentId, timestamp, context}``) is a click, as the WebSocket's
  ``client.ui.action`` is: an approval button answers its interrupt, any other button of the
  plugin runs a turn; an action the plugin does not declare is refused before anything runs;
* otherwise, a last ``user`` message is what the user said (on a new thread, together with the
  plugin's initial state, so the first run is one turn); while a question waits, its words
  answer it as on the WebSocket (``runtime.turns.approvals.answer_words``: "yes" to approve /
  reject is approve), and words that answer nothing run nothing (the run asks it again), unless
  the question is the plugin's own (``shown``);
* a new thread without a user message runs the welcome turn; an old one runs nothing (the run
  redraws the session's screens).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from ag_ui.core import RunAgentInput, ToolMessage, UserMessage
from pydantic import ValidationError

from runtime.a2ui import ActionEvent
from runtime.client_tools import ClientToolAnswer, client_tool_call
from runtime.contract.actions import ActionRejected
from runtime.contract.state import Mode
from runtime.turns import Opening, RunExtras, TurnEngine, TurnRequest

#: ``forwardedProps`` keys the runtime reads: the delivery mode ("voice" or "text"), the device,
#: and a button press (an A2UI action).
MODE_PROP = "mode"
DEVICE_PROP = "device"
ACTION_PROP = "a2uiAction"


@dataclass(frozen=True)
class ClientMode:
    """The client's mode and device (``forwardedProps``): voice lines only in voice mode."""

    mode: Mode
    device: str


def client_mode(run: RunAgentInput) -> ClientMode:
    props = run.forwarded_props if isinstance(run.forwarded_props, dict) else {}
    mode: Mode = "text" if props.get(MODE_PROP) == "text" else "voice"
    device = props.get(DEVICE_PROP)
    return ClientMode(mode, device if isinstance(device, str) and device else "web")


def extras_of(run: RunAgentInput) -> RunExtras:
    """The client's frontend tools and context, for the plugin (``runtime.client_tools``)."""
    return RunExtras(
        client_tools=tuple(tool.model_dump(exclude_none=True) for tool in run.tools or ()),
        context={"context": [c.model_dump() for c in run.context or ()]},
    )


def plan(engine: TurnEngine, opening: Opening, run: RunAgentInput) -> TurnRequest | None:
    """The turn ``run`` asks for, or ``None`` when there is nothing new to run."""
    client = client_mode(run)
    extras = extras_of(run)
    options: dict[str, Any] = {"mode": client.mode, "device": client.device, "extras": extras}
    answers = {**tool_answers(opening, run.messages), **resumed(engine, opening, run)}
    if answers:
        return TurnRequest.answer(answers, **options)
    action = action_of(run)
    if action is not None:
        if not opening.state:
            raise ActionRejected(f"{action.name}: thread {run.thread_id} has no screen to act on")
        return engine.press(action.name, action.context, opening.interrupts, **options)
    last = run.messages[-1] if run.messages else None
    if isinstance(last, ToolMessage):
        if not (opening.state and engine.plugin.reads_tool_results):
            return None
        results = tuple(
            {"toolCallId": m.tool_call_id, "content": content_of(m)} for m in trailing(run)
        )
        return TurnRequest.say("", **{**options, "extras": replace(extras, tool_results=results)})
    said = text_of(last) if isinstance(last, UserMessage) else ""
    if not opening.state:
        start = engine.start(**options)
        return TurnRequest({**start.update, "transcript": said}, **options)
    return engine.hear(said, opening.interrupts, **options) if said else None


def action_of(run: RunAgentInput) -> ActionEvent | None:
    """The A2UI action ``forwardedProps`` carries, if any; ``ActionRejected`` if malformed."""
    props = run.forwarded_props if isinstance(run.forwarded_props, dict) else {}
    if props.get(ACTION_PROP) is None:
        return None
    return parse_action(props[ACTION_PROP], f"forwardedProps.{ACTION_PROP}")


def parse_action(raw: Any, where: str) -> ActionEvent:
    """``raw`` as an A2UI action; ``ActionRejected`` naming the field (under ``where``) if not."""
    try:
        return ActionEvent.model_validate(raw)
    except ValidationError as exc:
        problem = exc.errors()[0]
        field = ".".join(str(part) for part in problem["loc"])
        raise ActionRejected(f"{where}{'.' if field else ''}{field}: {problem['msg']}") from None


def tool_answers(opening: Opening, messages: Sequence[Any]) -> dict[str, Any]:
    """Interrupt id -> answer, for the tool messages that answer a client tool call waited on."""
    waiting = {
        call.toolCallId: pending.id
        for pending in opening.interrupts
        if (call := client_tool_call(pending)) is not None
    }
    return {
        waiting[message.tool_call_id]: ClientToolAnswer(
            content=content_of(message), error=message.error
        ).model_dump()
        for message in messages
        if isinstance(message, ToolMessage) and message.tool_call_id in waiting
    }


def content_of(message: ToolMessage) -> Any:
    """A tool message's content as plain data: its text, or its parts as JSON objects."""
    if isinstance(message.content, str):
        return message.content
    return [part.model_dump(mode="json", by_alias=True) for part in message.content]


def trailing(run: RunAgentInput) -> list[ToolMessage]:
    """The tool messages that end the conversation (the results of the last calls)."""
    tail: list[ToolMessage] = []
    for message in reversed(run.messages):
        if not isinstance(message, ToolMessage):
            break
        tail.insert(0, message)
    return tail


def resumed(engine: TurnEngine, opening: Opening, run: RunAgentInput) -> dict[str, Any]:
    """Interrupt id -> answer, from ``resume``: a resolved interrupt's payload as the engine reads
    it (``TurnEngine.answer``; a ``{"a2uiAction": ...}`` payload is a button press), ``False``
    for a cancelled one (as the reject button answers). An id the session does not wait on is
    passed on as it is: the engine refuses it."""
    answers: dict[str, Any] = {}
    for index, entry in enumerate(run.resume or ()):
        payload = entry.payload if entry.status == "resolved" else False
        pending = next((p for p in opening.interrupts if p.id == entry.interrupt_id), None)
        if pending is None:
            answers[entry.interrupt_id] = True if payload is None else payload
            continue
        where = f"resume[{index}].payload"
        if isinstance(payload, dict) and ACTION_PROP in payload:
            payload = parse_action(payload[ACTION_PROP], f"{where}.{ACTION_PROP}")
        answers[entry.interrupt_id] = engine.answer(pending, payload, where)
    return answers


def text_of(message: UserMessage) -> str:
    """A user message's text (the text parts of a multi-part message, joined)."""
    if isinstance(message.content, str):
        return message.content.strip()
    return " ".join(getattr(part, "text", "") for part in message.content).strip()
