"""``TurnEngine``: one session's turns, whatever the transport that carries them.

See the package docstring (``runtime.turns``) for how a transport drives it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, Mapping, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any, Final, cast

from langchain_core.runnables import RunnableConfig
from langgraph.errors import GraphRecursionError
from langgraph.types import Command, StateSnapshot

from runtime.contract.actions import resolve_action
from runtime.contract.plugin import PluginBase
from runtime.contract.state import CommonState, Mode, PendingAction, ServerEventDict, event
from runtime.discovery import Graph
from runtime.redaction import redact_values
from runtime.turns._langgraph import CONFIG_KEY_CHECKPOINTER
from runtime.turns.approvals import (
    answer_click,
    answer_payload,
    answer_words,
    approval_events,
    asks_again,
)
from runtime.turns.context import RuntimeContext
from runtime.turns.events import EngineEvent, PendingInterrupt, Translator, TurnFinished, pending
from runtime.turns.limits import ErrorCode, TurnGuard, TurnStopped
from runtime.turns.observability import run_config
from runtime.turns.outbox import resume_events
from runtime.turns.rollback import TurnWrites
from runtime.turns.runs import Run, RunEnd, in_thread, on_event_loop

logger = logging.getLogger(__name__)

#: The id prefix of a breakpoint (``interrupt_before`` / ``interrupt_after``) waiting for approval.
BREAKPOINT: Final = "breakpoint:"
#: Where a run's ``RunExtras`` sit in ``config["configurable"]`` (read them with ``run_extras``).
EXTRAS_KEY: Final = "runtime_extras"

#: What the customer hears for each error code ({title} is the plugin's).
ERROR_MESSAGES: Final[dict[ErrorCode, str]] = {
    "agent_error": "The {title} agent could not handle that. Please try again.",
    "recursion_limit": "The {title} agent took too many steps on that and was stopped.",
    "deadline_exceeded": "The {title} agent took too long on that and was stopped.",
    "budget_exhausted": "This session has used up its budget with the {title} agent.",
    "tool_limit": "The {title} agent used too many tools on that and was stopped.",
}


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
    #: Results of client tool calls an agent's model made itself (``{toolCallId, content}``), for
    #: plugins that read them (``PluginBase.reads_tool_results``); calls made with
    #: ``runtime.client_tools`` are answered through their interrupt instead.
    tool_results: tuple[Mapping[str, Any], ...] = ()
    #: Anything else the transport hands over (AG-UI ``context``, forwarded props).
    context: Mapping[str, Any] = field(default_factory=dict)


def run_extras(config: RunnableConfig) -> RunExtras:
    """The extras of the run ``config`` belongs to (empty ones outside the engine)."""
    extras = (config.get("configurable") or {}).get(EXTRAS_KEY)
    return extras if isinstance(extras, RunExtras) else RunExtras()


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


class TurnEngine:
    """Runs the turns of one session (a LangGraph thread) of one plugin."""

    def __init__(
        self,
        context: RuntimeContext,
        plugin: PluginBase,
        session_id: str,
        graph: Graph,
        *,
        user_id: str | None = None,
    ) -> None:
        self.context = context
        self.plugin = plugin
        self.session_id = session_id
        self.graph = graph
        #: Whose session this is, when the deployment names users (``Settings.user_header``).
        self.user_id = user_id
        #: Held by the transport around ``open`` and each turn: one turn of a session at a time.
        self.lock = context.session_lock(session_id)
        self.config = run_config(
            session_id=session_id,
            plugin_id=plugin.plugin_id,
            callbacks=context.callbacks,
            user_id=user_id,
        )

    @classmethod
    async def create(
        cls,
        context: RuntimeContext,
        plugin: PluginBase,
        session_id: str,
        *,
        user_id: str | None = None,
    ) -> TurnEngine:
        """The engine over the plugin's compiled graph (raises what building the graph raises)."""
        graph = await asyncio.to_thread(context.registry.graph, plugin.plugin_id)
        return cls(context, plugin, session_id, graph, user_id=user_id)

    async def open(self) -> Opening:
        """The session's stored state and pending interrupts; a stale session is forgotten."""
        snapshot = await asyncio.to_thread(self.graph.get_state, self.config)
        values: dict[str, Any] = dict(snapshot.values or {})
        if values and self.plugin.plugin_id not in (values.get("domain") or {}):
            raise SessionRefused(f"session {self.session_id} belongs to another agent")
        if values and (snapshot.metadata or {}).get("user_id") != self.user_id:
            raise SessionRefused(f"session {self.session_id} belongs to another user")
        if values and self._stale(values):
            await asyncio.to_thread(
                self.context.registry.checkpointer.delete_thread, self.session_id
            )
            return Opening({}, ())
        self._seed_tokens(values)
        return Opening(values, self._waiting(snapshot))

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

    # What the customer's answers mean: every transport asks here, so words, a button or a
    # resume payload answer a pending question the same way whichever carried them.

    def hear(
        self, text: str, waiting: Sequence[PendingInterrupt], **options: Any
    ) -> TurnRequest | None:
        """The turn the customer's words ask for while ``waiting``: the answer to the pending
        question, a new turn, or ``None`` when they answer nothing of a question the runtime
        asked (it is asked again: ``ask_again``)."""
        resume = answer_words(waiting, text)
        if resume is not None:
            return TurnRequest.answer(resume, **options)
        return None if asks_again(waiting) else TurnRequest.say(text, **options)

    def press(
        self,
        action_id: str,
        data: Mapping[str, Any],
        waiting: Sequence[PendingInterrupt],
        **options: Any,
    ) -> TurnRequest:
        """The turn a button press asks for: the answer to the pending question the button
        belongs to, else a click of one of the plugin's actions. ``ActionRejected`` (or its
        ``BadAnswer``) when it is neither, before anything runs."""
        resume = answer_click(self.plugin, waiting, action_id, data)
        if resume is not None:
            return TurnRequest.answer(resume, **options)
        return TurnRequest.click(resolve_action(self.plugin, action_id, dict(data)), **options)

    def answer(self, pending: PendingInterrupt, payload: Any, where: str) -> Any:
        """The value a resume payload gives ``pending``: a button press (``ActionEvent``), words,
        a yes or no, nothing, or a raw value (``approvals.answer_payload``); ``where`` names the
        payload in the client's request, for a refusal."""
        return answer_payload(self.plugin, pending, payload, where)

    def redraw(
        self, values: Mapping[str, Any], waiting: Sequence[PendingInterrupt]
    ) -> list[ServerEventDict]:
        """The session as it stands: the screens it keeps, then the question it waits on."""
        return [*resume_events(values.get("ui")), *self.ask_again(waiting)]

    def ask_again(self, waiting: Sequence[PendingInterrupt]) -> list[ServerEventDict]:
        """The pending question, drawn and said again (words that answered nothing)."""
        return approval_events(self.plugin.plugin_id, waiting)

    async def pending(self) -> tuple[PendingInterrupt, ...]:
        """The interrupts the session waits on now."""
        return self._waiting(await asyncio.to_thread(self.graph.get_state, self.config))

    def _waiting(self, snapshot: StateSnapshot) -> tuple[PendingInterrupt, ...]:
        """A snapshot's interrupts; a breakpoint (a step waiting, no interrupt) becomes one."""
        if snapshot.interrupts:
            return pending(snapshot.interrupts)
        policy = self.plugin.run_policy
        if not snapshot.next or not (policy.interrupt_before or policy.interrupt_after):
            return ()
        step = " and ".join(node.replace("_", " ") for node in snapshot.next)
        checkpoint_id = (snapshot.config.get("configurable") or {}).get("checkpoint_id")
        value = {"question": f"Shall I go ahead and {step}?"}
        return (PendingInterrupt(f"{BREAKPOINT}{checkpoint_id}", value),)

    async def run(self, request: TurnRequest) -> TurnResult:
        """One turn, without its events as they happen."""
        async for item in self.stream(request):
            if isinstance(item, TurnFinished):
                result = item.result
        return result

    async def stream(
        self, request: TurnRequest, *, events: bool = False
    ) -> AsyncGenerator[EngineEvent, None]:
        """Run one turn; yield its events as they happen (``events=True``) and, last,
        ``TurnFinished``. Hold ``self.lock``.

        A finished turn's writes are committed *before* ``TurnFinished`` is yielded, so nothing
        of it reaches the client or the audit log unless the database already holds it: a crash
        while the transport delivers it, or a client that left, loses no turn the customer may
        have seen (the client sees it on reconnect). A failed turn, or one whose transport stops
        iterating before it finished, is never committed and leaves no trace."""
        if not self.lock.locked():
            raise RuntimeError("hold the engine's lock while a turn runs")
        request = redact_values(request)  # no card number reaches the graph, its state or store
        inputs = await self._inputs(request)
        policy = self.plugin.run_policy
        guard = TurnGuard(policy, await self._tokens_before())
        writes = TurnWrites(self.context.registry.checkpointer)
        config = self._config(request, guard, writes)
        translator = Translator()
        state: dict[str, Any] = {}
        interrupted = False
        try:
            if policy.token_budget is not None and guard.tokens_before >= policy.token_budget:
                raise guard.stop("budget_exhausted", f"{guard.tokens_before} tokens spent")
            run = Run(self.graph, inputs, config, guard, writes, events)
            driven = on_event_loop(run) if self._runs_on_event_loop() else in_thread(run)
            async with aclosing(driven) as items:
                async for item in items:
                    if isinstance(item, RunEnd):
                        state, interrupted = item.state, item.interrupted
                        continue
                    namespace, mode, payload = item
                    if mode == "messages":
                        for engine_event in translator.message(payload[0]):
                            yield engine_event
                    else:
                        for node in payload:
                            for engine_event in translator.node_finished(node, namespace):
                                yield engine_event
            guard.check()
        except Exception as exc:
            stopped = guard.stopped or (exc if isinstance(exc, TurnStopped) else None)
            if stopped is not None:  # a limit; the run may have ended in GraphDrained meanwhile
                result = await self._failed(stopped.code, str(stopped))
            elif isinstance(exc, GraphRecursionError):
                detail = f"over {policy.recursion_limit} steps"
                result = await self._failed("recursion_limit", detail)
            else:
                result = await self._agent_error(exc)
        else:
            waiting = await self._interrupts(config) if interrupted else ()
            outbox = [
                *(state.get("outbox") or []),
                *approval_events(self.plugin.plugin_id, waiting),
            ]
            result = TurnResult(outbox, state, waiting)
        self._spend(guard.tokens)
        yield TurnFinished(result)

    async def _agent_error(self, exc: Exception) -> TurnResult:
        logger.error(
            "agent %r failed in session %s",
            self.plugin.plugin_id,
            self.session_id,
            exc_info=exc,
        )
        return await self._failed("agent_error", type(exc).__name__, logged=True)

    async def _failed(self, code: ErrorCode, detail: str, *, logged: bool = False) -> TurnResult:
        """The result of a failed turn: the state before it, the error, the error screen (or the
        approval still waiting)."""
        if not logged:
            logger.warning(
                "agent %r stopped in session %s: %s (%s)",
                self.plugin.plugin_id,
                self.session_id,
                code,
                detail,
            )
        message = ERROR_MESSAGES[code].format(title=self.plugin.title)
        snapshot = await asyncio.to_thread(self.graph.get_state, self.config)
        before: dict[str, Any] = dict(snapshot.values or {})
        waiting = self._waiting(snapshot)
        screen = approval_events(self.plugin.plugin_id, waiting) or self._failure_screen(
            before, message
        )
        error = TurnError(code, message)
        return TurnResult(
            [event("server.error", message=message, code=code), *screen], before, waiting, error
        )

    def _failure_screen(self, before: dict[str, Any], message: str) -> list[ServerEventDict]:
        """The plugin's screen for a failed turn; none when drawing it fails too (a first turn's
        state is empty, which a plugin may not expect): the client still gets the error."""
        try:
            return self.plugin.failure_events(cast(CommonState, before), message)
        except Exception:
            logger.exception("agent %r could not draw its failure screen", self.plugin.plugin_id)
            return []

    async def _interrupts(self, config: RunnableConfig) -> tuple[PendingInterrupt, ...]:
        """What the turn just left waiting, read through its own (not yet committed) writes."""
        return self._waiting(await asyncio.to_thread(self.graph.get_state, config))

    async def _inputs(self, request: TurnRequest) -> dict[str, Any] | Command[Any]:
        """The graph's input; a resume is checked first (``UnknownInterrupt``)."""
        runtime_fields = {"mode": request.mode, "device": request.device, "outbox": None}
        if request.resume is None:
            usage = {"usage": {"tokens": self._tokens()}} if self._tokens() is not None else {}
            return {**request.update, **runtime_fields, **usage}
        waiting = {i.id for i in await self.pending()}
        unknown = sorted(set(request.resume) - waiting)
        if unknown or not request.resume:
            named = ", ".join(unknown) or "(none)"
            raise UnknownInterrupt(f"session {self.session_id} is not waiting on interrupt {named}")
        breakpoints = [value for id_, value in request.resume.items() if id_.startswith(BREAKPOINT)]
        if breakpoints:
            # A breakpoint goes on (None) when approved; refused, the waiting step is dropped and
            # the plugin redraws from where it was.
            if all(breakpoints):
                return Command(update={"outbox": None})
            return {"transcript": "", "pendingAction": None, **runtime_fields}
        # Mode and device wait for the next turn: a resumed step may be resumed again, and a
        # second value for them in one step is an error; clearing the outbox twice is not.
        return Command(resume=dict(request.resume), update={"outbox": None})

    def _config(self, request: TurnRequest, guard: TurnGuard, writes: TurnWrites) -> RunnableConfig:
        policy = self.plugin.run_policy
        configurable = {
            **self.config.get("configurable", {}),
            EXTRAS_KEY: request.extras,
            # The run's checkpointer (LangGraph lends it to subgraphs too): see TurnWrites.
            CONFIG_KEY_CHECKPOINTER: writes,
        }
        return {
            **self.config,
            "configurable": configurable,
            "callbacks": [*cast(list[Any], self.config.get("callbacks") or []), guard],
            "recursion_limit": policy.recursion_limit,
        }

    def _runs_on_event_loop(self) -> bool:
        """Whether this plugin's runs belong on the event loop's thread (``runtime.turns.runs``):
        never over a checkpointer on the network, whose every call would hold up the loop."""
        return self.plugin.run_policy.on_event_loop and not self.context.settings.backend.remote

    def _tokens(self) -> int | None:
        return self.context.tokens_spent.get(self.session_id)

    def _seed_tokens(self, values: Mapping[str, Any]) -> None:
        """Take the session's spent tokens from its state, unless this process counts them."""
        stored = int((values.get("usage") or {}).get("tokens") or 0)
        self.context.tokens_spent.setdefault(self.session_id, stored)

    async def _tokens_before(self) -> int:
        if self._tokens() is None:
            snapshot = await asyncio.to_thread(self.graph.get_state, self.config)
            self._seed_tokens(snapshot.values or {})
        return self._tokens() or 0

    def _spend(self, tokens: int) -> None:
        """Count a turn's tokens, failed turns included: they were spent all the same."""
        if tokens:
            spent = self.context.tokens_spent
            spent[self.session_id] = spent.get(self.session_id, 0) + tokens
