"""One WebSocket connection: a LangGraph thread driven by client messages.

The session id is the LangGraph thread id, so the runtime's checkpointer holds the whole session.

* **New session** (no checkpoint for the id): the plugin's initial state runs one turn with an
  empty transcript, which is the welcome.
* **Resumed session** (the client reconnects with ``?sessionId=``): no turn runs; the runtime
  re-sends the screens the plugin keeps in ``state["ui"]`` (a surface id mapped to the A2UI
  messages that draw its current screen; see ``runtime.outbox.resume_events``), preceded by
  ``createSurface``. A plugin that keeps nothing there gets one empty-transcript turn instead, so
  it can redraw from its state. A session id that belongs to another agent is refused (4002).
  A session of another user (the gateway's user id, see ``runtime.server``) is refused (4002) too.
  A session stored under another ``state_version`` of the plugin (it was upgraded since) starts
  afresh: running the new graph on a state of the old shape would fail or, worse, mislead.

Each turn: ``thinking`` true, the graph runs in a worker thread (``invoke`` with the checkpointer
of the runtime), then the outbox is delivered (``runtime.outbox``) and ``thinking`` false closes
it. ``client.mode.update`` changes delivery at once and reaches the state with the next turn.
Two connections to one session id (a client reconnecting before the server noticed the old
connection drop) are served both, one turn at a time.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any, Final
from weakref import WeakValueDictionary

from fastapi import WebSocket
from langchain_core.callbacks import BaseCallbackHandler

from runtime.actions import ActionRejected, resolve_action
from runtime.audit import AuditLog
from runtime.contracts import Mode, ModeUpdate, ServerEventDict, TranscriptFinal, UiAction, event
from runtime.discovery import Graph, Registry
from runtime.observability import run_config
from runtime.outbox import Delivery, prepare, resume_events, thinking, turn_delivery
from runtime.plugin import PluginBase
from runtime.settings import Settings
from runtime.wire import CloseCode, ProtocolError, close_reason, encode, parse_client_frame

logger = logging.getLogger(__name__)

#: Checkpoint once, when a turn's run ends, rather than after every step: a turn is the unit a
#: client resumes from, and this roughly halves the cost of a turn (see bench/bench_runtime.py).
DURABILITY: Final = "exit"


@dataclass(frozen=True)
class RuntimeContext:
    """What every session of one server shares."""

    settings: Settings
    registry: Registry
    audit: AuditLog
    callbacks: list[BaseCallbackHandler]
    #: One lock per live session id: two connections to one session take turns, never race.
    session_locks: WeakValueDictionary[str, asyncio.Lock] = field(
        default_factory=WeakValueDictionary
    )


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
        self.lock = context.session_locks.setdefault(session_id, asyncio.Lock())
        self.config = run_config(
            session_id=session_id,
            agent_id=plugin.plugin_id,
            callbacks=context.callbacks,
            user_id=user_id,
        )

    async def serve(self) -> None:
        """Start or resume the session, then answer client frames until the client leaves."""
        graph = await self._graph()
        if graph is None:
            return
        async with self.lock:
            snapshot = await asyncio.to_thread(graph.get_state, self.config)
            values = snapshot.values
            if values and self.plugin.plugin_id not in (values.get("domain") or {}):
                reason = f"session {self.session_id} belongs to another agent"
                await self.websocket.close(CloseCode.OTHER_AGENTS_SESSION, close_reason(reason))
                return
            if values and (snapshot.metadata or {}).get("user_id") != self.user_id:
                reason = f"session {self.session_id} belongs to another user"
                await self.websocket.close(CloseCode.OTHER_AGENTS_SESSION, close_reason(reason))
                return
            if values and self._stale(values):
                await asyncio.to_thread(
                    self.context.registry.checkpointer.delete_thread, self.session_id
                )
                values = {}
            if values:
                await self.resume(graph, values)
            else:
                await self.turn(graph, dict(self.plugin.create_initial_state()))
        while True:
            message = await self.websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            text = message.get("text")
            if text is None:
                await self.send_error(
                    "binary frames are not supported; send JSON text", "binary_frame"
                )
            else:
                async with self.lock:
                    await self.handle(graph, text)

    def _stale(self, values: dict[str, Any]) -> bool:
        """True when the stored session has this plugin's state in an older (or newer) shape."""
        stored = values.get("state_version")
        if stored == self.plugin.state_version:
            return False
        logger.warning(
            "session %s of agent %r was stored with state_version %r, the plugin is now at %r: "
            "starting the session afresh",
            self.session_id,
            self.plugin.plugin_id,
            stored,
            self.plugin.state_version,
        )
        return True

    async def resume(self, graph: Graph, values: dict[str, Any]) -> None:
        """Redraw a checkpointed session of this plugin."""
        self.mode = self.requested_mode or values.get("mode", "voice")
        self.device = values.get("device", self.device)
        logger.info("resuming session %s of agent %r", self.session_id, self.plugin.plugin_id)
        events = resume_events(values.get("ui"))
        if events:
            await self.deliver(prepare(events, mode=self.mode, surfaces=self.surfaces))
        else:
            await self.turn(graph, {"transcript": "", "pendingAction": None})

    async def handle(self, graph: Graph, text: str) -> None:
        """Answer one client frame: a turn, a mode change, or a ``server.error``."""
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
            return
        payload = message.payload
        if isinstance(payload, TranscriptFinal):
            await self.turn(graph, {"transcript": payload.text, "pendingAction": None})
        elif isinstance(payload, UiAction):
            try:
                action = resolve_action(self.plugin, payload.actionId, payload.data)
            except ActionRejected as exc:
                await self.send_error(str(exc), "action_rejected")
                return
            await self.turn(graph, {"transcript": "", "pendingAction": action})
        elif isinstance(payload, ModeUpdate):
            self.mode, self.device = payload.mode, payload.device

    async def turn(self, graph: Graph, update: dict[str, Any]) -> None:
        """Run the graph once on ``update`` and deliver its outbox between thinking true/false."""
        await self.send(thinking(True))
        inputs = {**update, "mode": self.mode, "device": self.device, "outbox": None}
        events: list[ServerEventDict]
        try:
            state = await asyncio.to_thread(
                graph.invoke, inputs, self.config, durability=DURABILITY
            )
        except Exception:
            logger.exception(
                "agent %r failed in session %s", self.plugin.plugin_id, self.session_id
            )
            message = f"The {self.plugin.title} agent could not handle that. Please try again."
            events = [event("server.error", message=message, code="agent_error")]
        else:
            self.mode = state.get("mode", self.mode)
            events = state.get("outbox") or []
        await self.deliver(turn_delivery(events, mode=self.mode, surfaces=self.surfaces))

    async def deliver(self, delivery: Delivery) -> None:
        """Audit what is for the audit log, then send the rest in order."""
        self.surfaces = delivery.surfaces
        for item in delivery.audit:
            self.context.audit.record(
                session_id=self.session_id, agent_id=self.plugin.plugin_id, payload=item["payload"]
            )
        for item in delivery.client:
            await self.send(item)

    async def send(self, item: ServerEventDict) -> None:
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

    async def _graph(self) -> Graph | None:
        """The plugin's compiled graph; on failure, tell the client and close (1011)."""
        try:
            return await asyncio.to_thread(self.context.registry.graph, self.plugin.plugin_id)
        except Exception:
            logger.exception("agent %r could not build its graph", self.plugin.plugin_id)
            await self.send_error(f"The {self.plugin.title} agent is unavailable.", "agent_error")
            await self.websocket.close(
                CloseCode.AGENT_UNAVAILABLE, close_reason("agent failed to start")
            )
            return None
