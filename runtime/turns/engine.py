"""``TurnEngine``: one session's turns, whatever the transport that carries them.

See the package docstring (``runtime.turns``) for how a transport drives it.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading
from collections.abc import AsyncIterator, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from langchain_core.runnables import RunnableConfig
from langgraph.types import Command, Interrupt, StreamMode

from runtime.context import RuntimeContext
from runtime.contracts import Mode, PendingAction, ServerEventDict, event
from runtime.discovery import Graph
from runtime.observability import run_config
from runtime.plugin import PluginBase
from runtime.turns.events import EngineEvent, Translator, TurnFinished

logger = logging.getLogger(__name__)

#: Checkpoint once, when a turn's run ends, rather than after every step: a turn is the unit a
#: client resumes from, and this roughly halves the cost of a turn (see bench/bench_runtime.py).
DURABILITY: Final = "exit"
#: Where a run's ``RunExtras`` sit in ``config["configurable"]`` (read them with ``run_extras``).
EXTRAS_KEY: Final = "runtime_extras"

ErrorCode = Literal[
    "agent_error", "recursion_limit", "deadline_exceeded", "budget_exhausted", "tool_limit"
]


class SessionRefused(Exception):
    """The session id is stored for another agent: it must not be served by this one."""


class UnknownInterrupt(Exception):
    """A resume names an interrupt the session is not waiting on (it is never applied)."""


@dataclass(frozen=True)
class RunExtras:
    """What a transport adds to one run, beyond the state update: nodes read it with
    ``run_extras(config)``."""

    #: Who the run is for, when the transport knows (an AG-UI caller, a signed-in device).
    user_id: str | None = None
    #: Tools the client runs itself (frontend or device tools), as the transport describes them.
    client_tools: tuple[Mapping[str, Any], ...] = ()
    #: Anything else the transport hands over (AG-UI ``context``, forwarded props).
    context: Mapping[str, Any] = field(default_factory=dict)


def run_extras(config: RunnableConfig) -> RunExtras:
    """The extras of the run ``config`` belongs to (empty ones outside the engine)."""
    extras = (config.get("configurable") or {}).get(EXTRAS_KEY)
    return extras if isinstance(extras, RunExtras) else RunExtras()


@dataclass(frozen=True)
class PendingInterrupt:
    """A LangGraph ``interrupt()`` waiting for an answer: resume it by ``id``."""

    id: str
    value: Any


def pending(interrupts: Iterable[Interrupt]) -> tuple[PendingInterrupt, ...]:
    return tuple(PendingInterrupt(i.id, i.value) for i in interrupts)


@dataclass(frozen=True)
class TurnRequest:
    """What starts a turn: a state update, or answers to pending interrupts by id."""

    update: Mapping[str, Any] = field(default_factory=dict)
    #: interrupt id -> the value ``interrupt()`` returns; the ids must all be pending.
    resume: Mapping[str, Any] | None = None
    mode: Mode = "voice"
    device: str = "web"
    extras: RunExtras = field(default_factory=RunExtras)

    @classmethod
    def say(cls, text: str, **options: Any) -> TurnRequest:
        return cls({"transcript": text, "pendingAction": None}, **options)

    @classmethod
    def click(cls, action: PendingAction, **options: Any) -> TurnRequest:
        return cls({"transcript": "", "pendingAction": action}, **options)

    @classmethod
    def answer(cls, resume: Mapping[str, Any], **options: Any) -> TurnRequest:
        return cls(resume=resume, **options)


@dataclass(frozen=True)
class TurnError:
    code: ErrorCode
    message: str


@dataclass(frozen=True)
class TurnResult:
    """What a turn left: the events for the client, the state, what it waits on, or an error."""

    #: The graph's outbox (on failure: ``server.error`` and the plugin's error screen).
    outbox: list[ServerEventDict]
    #: The plugin's state after the turn (on failure: as it was before the turn).
    state: dict[str, Any]
    interrupts: tuple[PendingInterrupt, ...] = ()
    error: TurnError | None = None


@dataclass(frozen=True)
class Opening:
    """A session as a transport finds it: ``state`` is empty for a new session."""

    state: dict[str, Any]
    interrupts: tuple[PendingInterrupt, ...]


@dataclass(frozen=True)
class _Failure:
    error: BaseException


_END: Final = object()


class TurnEngine:
    """Runs the turns of one session (a LangGraph thread) of one plugin."""

    def __init__(
        self, context: RuntimeContext, plugin: PluginBase, session_id: str, graph: Graph
    ) -> None:
        self.context = context
        self.plugin = plugin
        self.session_id = session_id
        self.graph = graph
        #: Held by the transport around ``open`` and each turn: one turn of a session at a time.
        self.lock = context.session_lock(session_id)
        self.config = run_config(
            session_id=session_id, agent_id=plugin.plugin_id, callbacks=context.callbacks
        )

    @classmethod
    async def create(
        cls, context: RuntimeContext, plugin: PluginBase, session_id: str
    ) -> TurnEngine:
        """The engine over the plugin's compiled graph (raises what building the graph raises)."""
        graph = await asyncio.to_thread(context.registry.graph, plugin.plugin_id)
        return cls(context, plugin, session_id, graph)

    async def open(self) -> Opening:
        """The session's stored state and pending interrupts; a stale session is forgotten."""
        snapshot = await asyncio.to_thread(self.graph.get_state, self.config)
        values: dict[str, Any] = dict(snapshot.values or {})
        if values and self.plugin.plugin_id not in (values.get("domain") or {}):
            raise SessionRefused(f"session {self.session_id} belongs to another agent")
        if values and self._stale(values):
            await asyncio.to_thread(
                self.context.registry.checkpointer.delete_thread, self.session_id
            )
            return Opening({}, ())
        return Opening(values, pending(snapshot.interrupts))

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

    def start(self, **options: Any) -> TurnRequest:
        """The first turn of a new session: the plugin's initial state, an empty transcript."""
        return TurnRequest(dict(self.plugin.create_initial_state()), **options)

    async def pending(self) -> tuple[PendingInterrupt, ...]:
        """The interrupts the session waits on now."""
        snapshot = await asyncio.to_thread(self.graph.get_state, self.config)
        return pending(snapshot.interrupts)

    async def run(self, request: TurnRequest) -> TurnResult:
        """One turn, without its events as they happen."""
        async for item in self.stream(request):
            if isinstance(item, TurnFinished):
                result = item.result
        return result

    async def stream(
        self, request: TurnRequest, *, events: bool = False
    ) -> AsyncIterator[EngineEvent]:
        """Run one turn; yield its events as they happen (``events=True``) and, last,
        ``TurnFinished``. Hold ``self.lock``, and consume the stream to its end."""
        if not self.lock.locked():
            raise RuntimeError("hold the engine's lock while a turn runs")
        if request.resume is not None:
            await self._check_resume(request.resume)
        modes: list[StreamMode] = (
            ["updates", "values", "messages"] if events else ["updates", "values"]
        )
        translator = Translator()
        state: dict[str, Any] = {}
        interrupts: tuple[PendingInterrupt, ...] = ()
        try:
            async for namespace, mode, payload in self._chunks(
                self._inputs(request), self._config(request), modes
            ):
                if mode == "messages":
                    for item in translator.message(payload[0]):
                        yield item
                elif mode == "updates":
                    for node in payload:
                        if node == "__interrupt__":
                            if not namespace:
                                interrupts = (*interrupts, *pending(payload[node]))
                        elif events:
                            for item in translator.node_finished(node, namespace):
                                yield item
                elif not namespace:
                    state = payload
        except Exception:
            logger.exception(
                "agent %r failed in session %s", self.plugin.plugin_id, self.session_id
            )
            message = f"The {self.plugin.title} agent could not handle that. Please try again."
            error = TurnError("agent_error", message)
            result = TurnResult(
                [event("server.error", message=message, code=error.code)], {}, error=error
            )
        else:
            result = TurnResult(list(state.get("outbox") or []), state, interrupts)
        yield TurnFinished(result)

    async def _check_resume(self, resume: Mapping[str, Any]) -> None:
        waiting = {i.id for i in await self.pending()}
        unknown = sorted(set(resume) - waiting)
        if unknown or not resume:
            named = ", ".join(unknown) or "(none)"
            raise UnknownInterrupt(f"session {self.session_id} is not waiting on interrupt {named}")

    def _inputs(self, request: TurnRequest) -> dict[str, Any] | Command[Any]:
        if request.resume is not None:
            # Mode and device wait for the next turn: a resumed step may be resumed again, and a
            # second value for them in one step is an error; clearing the outbox twice is not.
            return Command(resume=dict(request.resume), update={"outbox": None})
        return {**request.update, "mode": request.mode, "device": request.device, "outbox": None}

    def _config(self, request: TurnRequest) -> RunnableConfig:
        configurable = {**self.config.get("configurable", {}), EXTRAS_KEY: request.extras}
        return {**self.config, "configurable": configurable}

    async def _chunks(
        self, inputs: Any, config: RunnableConfig, modes: list[StreamMode]
    ) -> AsyncIterator[tuple[tuple[str, ...], str, Any]]:
        """The graph's stream, run in a worker thread (checkpointers and nodes may block); the
        run stops at its next step once this iterator is closed."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Any] = asyncio.Queue()
        stop = threading.Event()

        def put(item: Any) -> None:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, item)
            except RuntimeError:  # the event loop is gone (server shutdown)
                stop.set()

        def work() -> None:
            try:
                for chunk in self.graph.stream(
                    inputs, config, stream_mode=modes, subgraphs=True, durability=DURABILITY
                ):
                    if stop.is_set():
                        return
                    put(chunk)
            except BaseException as exc:
                put(_Failure(exc))
            else:
                put(_END)

        loop.run_in_executor(None, contextvars.copy_context().run, work)
        try:
            while (item := await queue.get()) is not _END:
                if isinstance(item, _Failure):
                    raise item.error
                yield item
        finally:
            stop.set()
