"""The AG-UI events of one run, from the turn engine's events and the turn's result.

While the turn runs: the agent's text as its model streams it (``TEXT_MESSAGE_START/CONTENT/END``),
its backend tool calls and their results (``TOOL_CALL_START/ARGS/END``, ``TOOL_CALL_RESULT``).
When it ends, from the outbox (after the same delivery rules as the WebSocket,
``runtime.turns.outbox``; audit events go to the audit log, never to the client):

* each A2UI surface's messages of the turn: one ``ACTIVITY_SNAPSHOT`` per surface, activity type
  ``a2ui-surface``, message id ``a2ui-surface-<surfaceId>``, content ``{"a2ui_operations":
  [A2UI v0.9 messages, createSurface first]}``, replacing the surface's previous snapshot (the
  shape CopilotKit's A2UI renderer reads);
* voice lines (voice mode only): ``CUSTOM`` events named ``voice.say`` with value ``{"text"}``;
* the transcript line, as a text message, when the agent's text was not streamed already;
* client tool calls the turn waits on: ``TOOL_CALL_START/ARGS/END`` left without a result;
* ``STATE_SNAPSHOT``: the data model of the plugin's screen (what its surface binds to, which a
  screen may show; never the plugin's private state), without any ``messages`` field;
* ``RUN_FINISHED`` (outcome ``success`` with the pending client tool call ids, or ``interrupt``
  with the plugin's own interrupts), or ``RUN_ERROR`` with the error's ``code``.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from ag_ui.core import (
    ActivitySnapshotEvent,
    BaseEvent,
    CustomEvent,
    Interrupt,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    StateSnapshotEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from runtime.client_tools import ClientToolCall, client_tool_call
from runtime.redaction import JsonStreamMasker, StreamMasker
from runtime.turns import (
    EngineEvent,
    PendingInterrupt,
    TextDelta,
    ToolCallArgs,
    ToolCallEnded,
    ToolCallResult,
    ToolCallStarted,
)
from runtime.turns.approvals import ANSWERED_BY, Approval
from runtime.turns.outbox import PATCH, VOICE, Delivery, patch_target

A2UI_ACTIVITY: Final = "a2ui-surface"
A2UI_OPERATIONS: Final = "a2ui_operations"
VOICE_EVENT: Final = "voice.say"
TRANSCRIPT: Final = "server.transcript.final"
ERROR: Final = "server.error"
#: The ``reason`` of every interrupt the runtime reports (``Interrupt.reason``).
APPROVAL: Final = "approval"


@dataclass
class RunEvents:
    """The events of one run, in order; it tracks the text message being streamed. Streamed
    text and tool-call arguments go out through a ``StreamMasker`` each, so a card number split
    across deltas is masked whole (the encoder masks each event only on its own); the arguments,
    JSON text, through a ``JsonStreamMasker``, which reads a separator or digit that JSON escaped
    (``4111\\u00a01111``) as the character it stands for."""

    thread_id: str
    run_id: str
    #: The text message being streamed, if any (a tool call or the run's end closes it).
    _open_message: str | None = None
    _streamed_text: bool = False
    _text_masker: StreamMasker = field(default_factory=StreamMasker)
    _args_maskers: dict[str, JsonStreamMasker] = field(default_factory=dict)

    def started(self) -> RunStartedEvent:
        return RunStartedEvent(thread_id=self.thread_id, run_id=self.run_id)

    def during(self, item: EngineEvent) -> list[BaseEvent]:
        """What the client sees of one engine event while the turn runs."""
        if isinstance(item, TextDelta):
            if not item.delta:
                return []
            out: list[BaseEvent] = []
            if self._open_message is None or item.message_id != self._open_message:
                out += self._close_text()
                self._open_message = item.message_id or uuid.uuid4().hex
                self._streamed_text = True
                out.append(TextMessageStartEvent(message_id=self._open_message, role="assistant"))
            if delta := self._text_masker.feed(item.delta):
                out.append(TextMessageContentEvent(message_id=self._open_message, delta=delta))
            return out
        if isinstance(item, ToolCallStarted):
            return [
                *self._close_text(),
                ToolCallStartEvent(
                    tool_call_id=item.call_id,
                    tool_call_name=item.name,
                    parent_message_id=item.message_id or None,
                ),
            ]
        if isinstance(item, ToolCallArgs):
            masker = self._args_maskers.setdefault(item.call_id, JsonStreamMasker())
            delta = masker.feed(item.delta)
            return [ToolCallArgsEvent(tool_call_id=item.call_id, delta=delta)] if delta else []
        if isinstance(item, ToolCallEnded):
            rest = self._args_maskers.pop(item.call_id, JsonStreamMasker()).flush()
            args = [ToolCallArgsEvent(tool_call_id=item.call_id, delta=rest)] if rest else []
            return [*args, ToolCallEndEvent(tool_call_id=item.call_id)]
        if isinstance(item, ToolCallResult):
            return [
                ToolCallResultEvent(
                    message_id=item.message_id or uuid.uuid4().hex,
                    tool_call_id=item.call_id,
                    content=item.content,
                    role="tool",
                )
            ]
        return []

    def finished(
        self,
        delivery: Delivery,
        data_model: dict[str, Any] | None,
        interrupts: Iterable[PendingInterrupt] = (),
        error: tuple[str, str] | None = None,
    ) -> list[BaseEvent]:
        """The turn's outcome: screens, voice, pending calls, state, and the run's last event.
        ``error`` is ``(code, message)`` when the turn failed."""
        out = [*self._close_text(), *self._outbox(delivery.client)]
        calls: list[ClientToolCall] = []
        own: list[PendingInterrupt] = []
        for pending in interrupts:
            call = client_tool_call(pending)
            if call is None:
                own.append(pending)
            else:
                calls.append(call)
        for call in calls:
            out += tool_call(call)
        if data_model is not None:
            out.append(StateSnapshotEvent(snapshot=without_messages(data_model)))
        failure = error or next(
            (
                (str(e["payload"].get("code", "agent_error")), str(e["payload"].get("message")))
                for e in delivery.client
                if e["type"] == ERROR
            ),
            None,
        )
        if failure is not None:
            return [*out, RunErrorEvent(code=failure[0], message=failure[1])]
        outcome: RunFinishedSuccessOutcome | RunFinishedInterruptOutcome
        if own:
            outcome = RunFinishedInterruptOutcome(interrupts=[interrupt(p) for p in own])
        else:
            outcome = RunFinishedSuccessOutcome(
                pending_tool_call_ids=[c.toolCallId for c in calls] or None
            )
        return [
            *out,
            RunFinishedEvent(thread_id=self.thread_id, run_id=self.run_id, outcome=outcome),
        ]

    def failed(self, code: str, message: str) -> list[BaseEvent]:
        """The run ends in an error before or while the turn runs."""
        return [*self._close_text(), RunErrorEvent(code=code, message=message)]

    def _close_text(self) -> list[BaseEvent]:
        if self._open_message is None:
            return []
        message_id, self._open_message = self._open_message, None
        rest = self._text_masker.flush()
        held = [TextMessageContentEvent(message_id=message_id, delta=rest)] if rest else []
        return [*held, TextMessageEndEvent(message_id=message_id)]

    def _outbox(self, events: Iterable[Mapping[str, Any]]) -> list[BaseEvent]:
        surfaces: dict[str, list[dict[str, Any]]] = {}
        out: list[BaseEvent] = []
        for item in events:
            payload = item["payload"]
            if item["type"] == PATCH:
                surfaces.setdefault(patch_target(payload)[1], []).append(payload)
            elif item["type"] == VOICE:
                out.append(CustomEvent(name=VOICE_EVENT, value={"text": payload.get("text", "")}))
            elif item["type"] == TRANSCRIPT and not self._streamed_text and payload.get("text"):
                out += self._text(str(payload["text"]))
        activities: list[BaseEvent] = [
            ActivitySnapshotEvent(
                message_id=f"{A2UI_ACTIVITY}-{surface_id}",
                activity_type=A2UI_ACTIVITY,
                content={A2UI_OPERATIONS: operations},
                replace=True,
            )
            for surface_id, operations in surfaces.items()
        ]
        return [*activities, *out]

    def _text(self, text: str) -> list[BaseEvent]:
        message_id = uuid.uuid4().hex
        self._streamed_text = True
        return [
            TextMessageStartEvent(message_id=message_id, role="assistant"),
            TextMessageContentEvent(message_id=message_id, delta=text),
            TextMessageEndEvent(message_id=message_id),
        ]


def tool_call(call: ClientToolCall) -> list[BaseEvent]:
    """A client tool call as AG-UI announces a frontend tool call (its result comes next run)."""
    return [
        ToolCallStartEvent(tool_call_id=call.toolCallId, tool_call_name=call.name),
        ToolCallArgsEvent(tool_call_id=call.toolCallId, delta=json.dumps(call.args)),
        ToolCallEndEvent(tool_call_id=call.toolCallId),
    ]


def interrupt(pending: PendingInterrupt) -> Interrupt:
    """A plugin's own interrupt as AG-UI describes one: an approval, with its question (the
    approval screen, ``runtime.turns.approvals``, is in the run's A2UI activity too) and, in
    ``metadata.answeredBy``, the plugin's own buttons that answer it (a frontend resumes the
    interrupt with a press of one: ``runtime.serving.agui.plan``)."""
    approval = Approval.of(pending.value)
    metadata = {ANSWERED_BY: list(approval.answered_by)} if approval.answered_by else None
    return Interrupt(id=pending.id, reason=APPROVAL, message=approval.question, metadata=metadata)


def data_model(ui: Any, surface_id: str) -> dict[str, Any] | None:
    """The root data model the kept screen of ``surface_id`` binds to (``state["ui"]``)."""
    messages = ui.get(surface_id) if isinstance(ui, Mapping) else None
    for message in reversed(messages if isinstance(messages, list) else []):
        update = message.get("updateDataModel") if isinstance(message, Mapping) else None
        if isinstance(update, Mapping) and update.get("path", "/") == "/":
            value = update.get("value")
            return dict(value) if isinstance(value, Mapping) else None
    return None


def without_messages(value: Any) -> Any:
    """``value`` with every ``messages`` field left out, at any depth."""
    if isinstance(value, Mapping):
        return {k: without_messages(v) for k, v in value.items() if k != "messages"}
    if isinstance(value, list):
        return [without_messages(v) for v in value]
    return value
