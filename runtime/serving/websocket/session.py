"""One WebSocket connection: frames in, frames out, over the session's ``TurnEngine``.

The session id is the LangGraph thread id, so the runtime's checkpointer holds the whole session.

* **New session** (no checkpoint for the id): the plugin's initial state runs one turn with an
  empty transcript, which is the welcome.
* **Resumed session** (the client reconnects with ``?sessionId=``): no turn runs; the runtime
  re-sends the screens the plugin keeps in ``state["ui"]`` (a surface id mapped to the A2UI
  messages that draw its current screen; see ``runtime.turns.outbox.resume_events``), preceded by
  ``createSurface``. A plugin that keeps nothing there gets one empty-transcript turn instead, so
  it can redraw from its state. A session id that belongs to another agent is refused (4002).
  A session of another user (the gateway's user id, see ``runtime.serving.app``) is refused (4002)
  too. A session stored under another ``state_version`` of the plugin (it was upgraded since) starts
  afresh: running the new graph on a state of the old shape would fail or, worse, mislead.

Each turn: ``thinking`` true, the engine runs the turn (``runtime.turns``), then the outbox is
delivered (``runtime.turns.outbox``) and ``thinking`` false closes it. ``client.mode.update``
changes delivery at once and reaches the state with the next turn. Two connections to one session
id (a client reconnecting before the server noticed the old connection drop) are served both, one
turn at a time.

Frames are read by one task and turns run in another, in the order their frames came: so while a
turn waits for a device tool's result (``runtime.serving.websocket.device_tools``), the result can
still arrive.
``client.tools.register`` and ``client.tool.result`` are handled as they come; every other frame
waits for the turns before it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from contextlib import aclosing
from typing import Any

from fastapi import WebSocket

from runtime.client_tools import ClientToolAnswer, ClientToolCall, client_tool_call
from runtime.contract.actions import ActionRejected
from runtime.contract.plugin import PluginBase
from runtime.contract.state import Mode, ServerEventDict, event
from runtime.serving.websocket.device_tools import DEVICE_GONE, DeviceTools, UnknownToolCall
from runtime.serving.websocket.frames import (
    ModeUpdate,
    ToolResult,
    ToolsRegister,
    TranscriptFinal,
    UiAction,
)
from runtime.serving.websocket.wire import (
    ClientMessage,
    CloseCode,
    ProtocolError,
    close_reason,
    encode,
    parse_client_frame,
)
from runtime.turns import (
    Opening,
    PendingInterrupt,
    RunExtras,
    SessionRefused,
    TurnEngine,
    TurnFinished,
    TurnRequest,
    UnknownInterrupt,
)
from runtime.turns.context import RuntimeContext
from runtime.turns.outbox import Delivery, prepare, thinking, turn_delivery

logger = logging.getLogger(__name__)


class Session:
    """Serves one accepted WebSocket for one plugin and one session id."""

    def __init__(
        self,
        websocket: WebSocket,
        context: RuntimeContext,
        plugin: PluginBase,
        session_id: str,
        mode: Mode | None = None,
        user_id: str | None = None,
    ) -> None:
        self.websocket = websocket
        self.context = context
        self.plugin = plugin
        self.session_id = session_id
        self.requested_mode = mode
        self.user_id = user_id
        self.mode: Mode = mode or "voice"
        self.device = "web"
        self.surfaces: frozenset[str] = frozenset()
        self.tools = DeviceTools(self.send, context.settings.client_tool_timeout_s)
        #: Frames that run turns, in order; ``None`` stops the turns (the client is gone).
        self.frames: asyncio.Queue[ClientMessage | None] = asyncio.Queue()
        self.gone = False
        #: The interrupts the session waits on: the next answer resumes them.
        self.waiting: tuple[PendingInterrupt, ...] = ()

    async def serve(self) -> None:
        """Start or resume the session, then answer client frames until the client leaves."""
        engine = await self._engine()
        if engine is None:
            return
        turns = asyncio.create_task(self.run_turns(engine))
        try:
            await self.receive()
        finally:
            self.gone = True
            self.tools.cancel_all(DEVICE_GONE)
            self.frames.put_nowait(None)
            await turns

    async def receive(self) -> None:
        """Read frames until the client leaves: tool frames at once, the rest for the turns."""
        while True:
            message = await self.websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            text = message.get("text")
            if text is None:
                await self.send_error(
                    "binary frames are not supported; send JSON text", "binary_frame"
                )
                continue
            parsed = await self.parse(text)
            if parsed is None:
                continue
            if isinstance(parsed.payload, ToolsRegister):
                self.tools.register(parsed.payload.tools)
            elif isinstance(parsed.payload, ToolResult):
                try:
                    self.tools.answer(parsed.payload)
                except UnknownToolCall as exc:
                    await self.send_error(str(exc), "unknown_tool_call")
            else:
                self.frames.put_nowait(parsed)

    async def run_turns(self, engine: TurnEngine) -> None:
        """Open the session, then run a turn for each frame, in order, until the client leaves."""
        async with engine.lock:
            try:
                opening = await engine.open()
            except SessionRefused as exc:
                await self.websocket.close(CloseCode.OTHER_AGENTS_SESSION, close_reason(str(exc)))
                return
            if opening.state:
                await self.resume(engine, opening)
            else:
                await self.turn(engine, engine.start(**self._delivery()))
        while (message := await self.frames.get()) is not None:
            if self.gone:
                continue
            async with engine.lock:
                await self.handle(engine, message)

    async def resume(self, engine: TurnEngine, opening: Opening) -> None:
        """Redraw a checkpointed session of this plugin."""
        values = opening.state
        self.mode = self.requested_mode or values.get("mode", "voice")
        self.device = values.get("device", self.device)
        logger.info("resuming session %s of agent %r", self.session_id, self.plugin.plugin_id)
        calls = device_calls(opening.interrupts)
        if calls:  # asked of a device that left: the call fails now, as the plugin handles it
            failed = ClientToolAnswer(error=DEVICE_GONE).model_dump()
            answers = {pending_id: failed for pending_id, _ in calls}
            await self.turn(engine, TurnRequest.answer(answers, **self._delivery()))
            return
        self.waiting = opening.interrupts
        events = engine.redraw(values, self.waiting)
        if events:
            await self.deliver(prepare(events, mode=self.mode, surfaces=self.surfaces))
        else:
            await self.turn(engine, TurnRequest.say("", **self._delivery()))

    async def parse(self, text: str) -> ClientMessage | None:
        """A valid frame of this session, or ``None`` after telling the client what is wrong."""
        try:
            message = parse_client_frame(text, max_bytes=self.context.settings.max_message_bytes)
            if message.session_id not in (None, self.session_id):
                raise ProtocolError(
                    f"sessionId {message.session_id!r} is not this connection's session",
                    "session_mismatch",
                )
        except ProtocolError as exc:
            logger.info("session %s: rejected client frame: %s", self.session_id, exc)
            await self.send_error(str(exc), exc.code)
            return None
        return message

    async def handle(self, engine: TurnEngine, message: ClientMessage) -> None:
        """Answer one client frame: a turn, the pending question again, a mode change, or a
        ``server.error``. What words and buttons mean is the engine's to say."""
        payload = message.payload
        if isinstance(payload, TranscriptFinal):
            request = engine.hear(payload.text, self.waiting, **self._delivery())
            if request is None:
                await self.ask_again(engine)
            else:
                await self.turn(engine, request)
        elif isinstance(payload, UiAction):
            try:
                request = engine.press(
                    payload.actionId, payload.data, self.waiting, **self._delivery()
                )
            except ActionRejected as exc:
                await self.send_error(str(exc), "action_rejected")
                return
            await self.turn(engine, request)
        elif isinstance(payload, ModeUpdate):
            self.mode, self.device = payload.mode, payload.device

    def _delivery(self) -> dict[str, Any]:
        """How a turn is run for this connection: its mode, device, and device tools."""
        extras = RunExtras(client_tools=self.tools.offered)
        return {"mode": self.mode, "device": self.device, "extras": extras}

    async def turn(self, engine: TurnEngine, request: TurnRequest) -> None:
        """Run one turn and deliver its outbox between thinking true/false; a device tool call
        is sent to the client and the turn resumed with its answer
        (``runtime.serving.websocket.device_tools``).
        Each finished run is committed before it is delivered (see ``TurnEngine.stream``), so a
        client that left meanwhile sees it on reconnect. A device tool call it left waiting fails
        when the session is next opened (``resume``)."""
        await self.send(thinking(True))
        try:
            while (calls := await self._run(engine, request)) and not self.gone:
                answers = {pending_id: await self.tools.call(call) for pending_id, call in calls}
                request = TurnRequest.answer(answers, **self._delivery())
        except UnknownInterrupt as exc:
            await self.send_error(str(exc), "unknown_interrupt")
            await self.send(thinking(False))

    async def _run(
        self, engine: TurnEngine, request: TurnRequest
    ) -> list[tuple[str, ClientToolCall]] | None:
        """One run of the turn, delivered: to its end, or up to the device tool calls it stopped
        on (returned; the resumed run starts a new outbox, so what was said so far goes now)."""
        calls = None
        async with aclosing(engine.stream(request)) as items:
            async for item in items:
                if not isinstance(item, TurnFinished):
                    continue
                result = item.result
                calls = None if result.error else device_calls(result.interrupts)
                if calls is not None:
                    delivery = prepare(result.outbox, mode=self.mode, surfaces=self.surfaces)
                else:
                    self.waiting = result.interrupts
                    self.mode = result.state.get("mode", self.mode)
                    delivery = turn_delivery(result.outbox, mode=self.mode, surfaces=self.surfaces)
                await self.deliver(delivery)
                if self.gone:
                    return None  # kept, not delivered: no device is left to answer a tool call
        return calls

    async def ask_again(self, engine: TurnEngine) -> None:
        """Words that answer no pending question: the approval is asked again, nothing runs."""
        events = engine.ask_again(self.waiting)
        await self.send(thinking(True))
        await self.deliver(turn_delivery(events, mode=self.mode, surfaces=self.surfaces))

    async def deliver(self, delivery: Delivery) -> None:
        """Audit what is for the audit log, then send the rest in order."""
        self.surfaces = delivery.surfaces
        self.context.record_audit(self.session_id, self.plugin.plugin_id, delivery.audit)
        for item in delivery.client:
            await self.send(item)

    async def send(self, item: ServerEventDict) -> None:
        if self.gone:  # a turn finishing after the client left: its state is kept, not sent
            return
        try:
            frame = encode(item, self.session_id)
        except (TypeError, ValueError):
            logger.exception("agent %r emitted an event that is not JSON", self.plugin.plugin_id)
            frame = encode(
                event(
                    "server.error",
                    message="The agent produced an unreadable event.",
                    code="agent_error",
                ),
                self.session_id,
            )
        await self.websocket.send_text(frame)

    async def send_error(self, message: str, code: str) -> None:
        await self.send(event("server.error", message=message, code=code))

    async def _engine(self) -> TurnEngine | None:
        """The session's turn engine; if the graph fails to build, tell the client, close (1011)."""
        try:
            return await TurnEngine.create(
                self.context, self.plugin, self.session_id, user_id=self.user_id
            )
        except Exception:
            logger.exception("agent %r could not build its graph", self.plugin.plugin_id)
            await self.send_error(f"The {self.plugin.title} agent is unavailable.", "agent_error")
            await self.websocket.close(
                CloseCode.AGENT_UNAVAILABLE, close_reason("agent failed to start")
            )
            return None


def device_calls(
    interrupts: Sequence[PendingInterrupt],
) -> list[tuple[str, ClientToolCall]] | None:
    """The device tool calls a turn stopped on (interrupt id, call), or ``None`` when it stopped
    for anything else (finished, or waiting on the plugin's own interrupt)."""
    if not interrupts:
        return None
    calls = [(pending.id, client_tool_call(pending)) for pending in interrupts]
    if any(call is None for _, call in calls):
        return None
    return [(pending_id, call) for pending_id, call in calls if call is not None]
