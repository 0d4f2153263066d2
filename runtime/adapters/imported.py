"""``ImportedPlugin``: what every plugin rendered by ``agent-import`` shares.

A generated plugin is a thin subclass (``WrapperPlugin``, ``SubgraphPlugin``) plus data files:
``agent.json`` (where the agent is, how its fields map) and ``screens/*.json``. The turn logic
lives here, so improving it improves every imported plugin at once.

Each turn routes to one of two nodes:

* ``welcome`` (a new session, or the ``restart`` action): the welcome screen, and the agent's own
  conversation starts afresh on the next message;
* ``unavailable`` (the plugin lacks something to run here: a module of its requirements, a
  setting, an agent that fails to load; see ``unmet_needs``): the error screen says what, and a
  ``server.error`` names it, on every turn until the runtime is restarted with it. Never stricter
  than LangGraph's server: the variables of ``agent.json`` that are unset are only a warning
  (``warnings``), since many are optional (tracing keys, one provider's key among several,
  settings with defaults in code); a turn that then fails on one names it;
* ``agent`` (the user said something, ``retry``, ``continue``, or a client answered a frontend
  tool call the agent made): the agent's graph runs as a *stateful*
  subgraph (``checkpointer=True``), so its state is kept per session in the runtime's
  checkpointer across turns, exactly like a thread of LangGraph's server. Its answer is shown on
  the result screen, spoken (trimmed for voice) and sent as the final transcript (a run that
  writes no answer, only state, answers with what it changed: ``changes.py``); if the agent
  raises, the error screen is shown, the details go to the log and the audit trail, and what the
  agent wrote in that turn is dropped (its conversation stays as it was before the turn). An
  agent stopping at a static breakpoint shows where it paused, and ``continue`` (or other words)
  goes on from there next turn (``runtime.adapters.breakpoints``; in-process agents only).

An agent with an environment of its own (``agent.json`` ``environment``) runs in its worker
process instead (``runtime.adapters.isolated``), with the same turns.

Frontend tools (an AG-UI client's ``tools``) reach the agent as ``ag-ui-langgraph`` passes them,
so agents written for CopilotKit work unchanged: in its input state as ``tools``,
``copilotkit.actions`` and ``ag-ui.tools`` (with ``ag-ui.context``). When its model calls one, the
turn ends with the call pending; the client's result comes back as ``run_extras(config)
.tool_results`` and continues the agent (``run_tools``). A call id already answered is never sent to
the agent again.

The surface's data model is the plugin's domain state (``state["domain"][plugin_id]``) without its
private ``_`` keys: ``question``, ``answer``, ``error`` and ``state`` (agent fields), the keys the
designed screens bind to.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import sys
from abc import abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

from langchain_core.runnables import RunnableConfig
from langgraph.config import get_config, get_store
from langgraph.errors import GraphBubbleUp, GraphInterrupt, GraphRecursionError
from langgraph.graph import END, START, StateGraph
from langgraph.store.memory import InMemoryStore
from pydantic_core import to_jsonable_python

from runtime.a2ui import Screen, load_screens
from runtime.adapters.breakpoints import (
    has_breakpoints,
    is_breakpoint,
    pause_question,
    pause_screen,
    paused_at,
    says_continue,
)
from runtime.adapters.changes import (
    awaits_tool_results,
    change_summary,
    changed_fields,
    is_message_list,
    new_messages,
)
from runtime.adapters.isolated import IsolatedAgent
from runtime.adapters.loader import (
    graph_for_run,
    is_factory,
    load_export,
    schema_runtime,
    server_runtime,
)
from runtime.adapters.run_context import (
    ContextError,
    RunContext,
    build_context,
    make_run_context,
    missing_inputs,
)
from runtime.adapters.variables import missing_variable, needs_variable, unset_warning
from runtime.adapters.voice import answer_text, last_ai_text, speakable
from runtime.contract.agent import AgentSpec, load_agent_spec
from runtime.contract.layout import REQUIREMENTS_FILE, SCREENS_FOLDER
from runtime.contract.plugin import PluginBase
from runtime.contract.screens import (
    ANSWER_KEY,
    CONTINUE,
    ERROR_KEY,
    QUESTION_KEY,
    STANDARD_ACTIONS,
    STATE_KEY,
    ScreenName,
)
from runtime.contract.state import (
    CommonState,
    ServerEventDict,
    event,
    plugin_domain,
    with_plugin_domain,
)
from runtime.discovery import one_line_reason
from runtime.reply import show_screen
from runtime.turns import RunExtras, run_extras
from runtime.turns.limits import TurnStopped
from runtime.turns.rollback import forget_writes

logger = logging.getLogger(__name__)

#: Set by ``welcome``: the next message starts a new conversation with the agent.
FRESH = "_fresh"
#: The tool call ids whose results the agent has had (the last ``ANSWERED_KEPT``).
ANSWERED = "_answered_tool_calls"
ANSWERED_KEPT = 100
ERROR_TEXT = "Sorry, something went wrong while answering. Please try again."
#: What an agent raises that is not its failure: an interrupt, the recursion limit, a turn limit.
RUN_CONTROL = (GraphBubbleUp, GraphRecursionError, TurnStopped)
#: The node the agent's graph runs in: its checkpoint namespace, as a stateful subgraph.
AGENT_NODE = "agent"
UNAVAILABLE_VOICE = "Sorry, this assistant is not set up to answer yet."


@dataclass(frozen=True)
class Outcome:
    """What one run of the agent produced, in the plugin's terms."""

    answer: str
    fields: dict[str, Any] = field(default_factory=dict)
    #: The nodes the agent paused before, at a static breakpoint (``runtime.adapters.breakpoints``).
    paused: tuple[str, ...] = ()


class ImportedPlugin(PluginBase):
    """Base of generated plugins: the screens and the turns; ``run`` answers one message."""

    actions: ClassVar[tuple[str, ...]] = (*STANDARD_ACTIONS, CONTINUE)

    @cached_property
    def agent(self) -> AgentSpec:
        """The plugin's ``agent.json``."""
        return load_agent_spec(self.folder)

    def screens(self) -> dict[str, Screen]:
        """The validated screens (cached by file version, so cheap on every turn)."""
        return load_screens(self.folder / SCREENS_FOLDER, plugin_id=self.plugin_id)

    def initial_domain_state(self) -> dict[str, Any]:
        return {**copy.deepcopy(self.agent.initial_domain_state), FRESH: True}

    @abstractmethod
    def run(self, text: str, *, fresh: bool, config: RunnableConfig) -> Outcome:
        """Answer what the user said; ``fresh`` is true for the first message of a conversation."""

    def run_tools(self, results: list[Mapping[str, Any]], config: RunnableConfig) -> Outcome:
        """Continue once the client has answered tool calls the agent made (``{toolCallId,
        content}`` each); only plugins that set ``reads_tool_results`` are asked."""
        raise NotImplementedError(f"{type(self).__name__} reads no tool results")

    def prepare(self) -> None:
        """Called when the graph is built: load what the turns need, so failures show early."""

    @cached_property
    def needs(self) -> tuple[str, ...]:
        """``unmet_needs``, checked once per process (what is installed and set does not change)."""
        return tuple(self._find_needs())

    def unmet_needs(self) -> list[str]:
        return list(self.needs)

    def _find_needs(self) -> list[str]:
        """What stops the plugin from running here; none by default."""
        return []

    def warnings(self) -> list[str]:
        """The variables of ``agent.json`` the runtime's process lacks: never a need, since
        LangGraph's server runs the agent without them too."""
        warning = unset_warning(self.agent.env)
        return [warning] if warning else []

    def build_graph(self) -> StateGraph[Any]:
        """``welcome``, ``agent`` or (when the plugin cannot run here) ``unavailable``."""
        if not self.needs:
            self.prepare()
        builder = StateGraph(CommonState)
        builder.add_node("welcome", self.welcome)
        builder.add_node(AGENT_NODE, self.answer)
        builder.add_node("unavailable", self.unavailable)
        builder.add_conditional_edges(
            START, self.route, ["welcome", AGENT_NODE, "unavailable", END]
        )
        for node in ("welcome", AGENT_NODE, "unavailable"):
            builder.add_edge(node, END)
        return builder

    def route(self, state: CommonState, config: RunnableConfig) -> str:
        if self.needs:
            return "unavailable"
        if run_extras(config).tool_results:  # a client answering tool calls, not a message
            return AGENT_NODE if self.unanswered(state, config) else END
        action = state.get("pendingAction")
        if action is not None:
            retry = action["id"] == self.action_id("retry") and self.domain(state).get(QUESTION_KEY)
            return AGENT_NODE if retry or action["id"] == self.action_id(CONTINUE) else "welcome"
        return AGENT_NODE if state.get("transcript", "").strip() else "welcome"

    def welcome(self, state: CommonState) -> dict[str, Any]:
        return self.show(state, "welcome", self.initial_domain_state())

    def unavailable(self, state: CommonState) -> dict[str, Any]:
        """The error screen naming what the plugin lacks, and the same as a ``server.error``."""
        text = f"The {self.title} agent cannot run here yet: {'; '.join(self.needs)}."
        domain = {**self.initial_domain_state(), ERROR_KEY: text}
        error = event("server.error", message=text, code="agent_unavailable")
        return self.show(state, "error", domain, voice=UNAVAILABLE_VOICE, extra=[error])

    def answer(self, state: CommonState, config: RunnableConfig) -> dict[str, Any]:
        domain = self.domain(state)
        question = state.get("transcript", "").strip() or str(domain.get(QUESTION_KEY, ""))
        fresh = bool(domain.get(FRESH, True))
        action = state.get("pendingAction")
        said = CONTINUE if action and action["id"] == self.action_id(CONTINUE) else question
        domain[QUESTION_KEY] = question
        results = self.unanswered(state, config)
        if results:
            answered = [*domain.get(ANSWERED, []), *(r["toolCallId"] for r in results)]
            domain[ANSWERED] = answered[-ANSWERED_KEPT:]
        try:
            if results:
                outcome = self.run_tools(results, config)
            else:
                outcome = self.run(said, fresh=fresh, config=config)
        except RUN_CONTROL:
            raise  # an interrupt waiting for the customer, or a limit: the turn engine's business
        except Exception as exc:
            variable = missing_variable(exc, self.agent.env)
            reason = f": it {needs_variable(variable)}" if variable else ""
            logger.exception("agent %r raised while answering%s", self.plugin_id, reason)
            # What the agent wrote before it raised is dropped: its conversation stays as it was
            # before the turn, and "try again" asks the question (kept below) afresh.
            forget_writes(config, AGENT_NODE)
            audit = event(
                "server.audit.event",
                kind="agent_error",
                agent=self.plugin_id,
                error=f"{type(exc).__name__}: {exc}",
            )
            extra, text = [audit], ERROR_TEXT
            if variable:  # what to set, said where the user and the operator look
                text = f"The {self.title} agent {needs_variable(variable)}."
                extra.append(event("server.error", message=text, code="agent_error"))
            # Its FRESH stays: a conversation the failure left unstarted gets its inputs next.
            failed = {**domain, ANSWER_KEY: "", ERROR_KEY: text}
            return self.show(state, "error", failed, extra=extra)
        fields = {**dict(domain.get("state") or {}), **outcome.fields}
        done = {
            **domain,
            ANSWER_KEY: outcome.answer,
            ERROR_KEY: "",
            STATE_KEY: fields,
            FRESH: False,
        }
        if outcome.paused:
            question = pause_question(outcome.paused)
            asked = event("server.transcript.final", text=question, role="agent")
            screen = pause_screen(self.plugin_id, question)
            return self.show(state, "result", done, extra=[asked], screen=screen)
        if not outcome.answer:
            return self.show(state, "collecting", done)
        transcript = event("server.transcript.final", text=outcome.answer, role="agent")
        return self.show(state, "result", done, voice=speakable(outcome.answer), extra=[transcript])

    def failure_events(self, state: CommonState, message: str) -> list[ServerEventDict]:
        """The error screen, over the conversation as it was before the failed turn."""
        failed = {**self.domain(state), ANSWER_KEY: "", ERROR_KEY: message}
        return list(self.show(state, "error", failed, voice=message)["outbox"])

    def domain(self, state: CommonState) -> dict[str, Any]:
        """This plugin's part of the session state."""
        return plugin_domain(state, self.plugin_id)

    def unanswered(self, state: CommonState, config: RunnableConfig) -> list[Mapping[str, Any]]:
        """The run's tool results the agent has not had yet (none unless it reads them)."""
        if not self.reads_tool_results:
            return []
        answered = set(self.domain(state).get(ANSWERED) or ())
        return [r for r in run_extras(config).tool_results if r["toolCallId"] not in answered]

    def show(
        self,
        state: CommonState,
        name: ScreenName,
        domain: dict[str, Any],
        *,
        voice: str | None = None,
        extra: list[ServerEventDict] | None = None,
        screen: Screen | None = None,
    ) -> dict[str, Any]:
        """The state update drawing screen ``name`` (or ``screen``, one the runtime drew) with
        ``domain`` as its data model, saying ``voice`` (by default the screen's own line)."""
        screen = screen or self.screens()[name]
        data = {key: value for key, value in domain.items() if not key.startswith("_")}
        shown = show_screen(state, self.plugin_id, screen, data)
        said = event("server.voice.say", text=voice or screen.voice_text)
        return {
            **shown,
            **with_plugin_domain(state, self.plugin_id, domain),
            "pendingAction": None,
            "outbox": [*shown["outbox"], said, *(extra or [])],
        }


class AgentPlugin(ImportedPlugin):
    """Runs the vendored agent's own graph; subclasses say how the user's words enter it."""

    @cached_property
    def export(self) -> Any:
        """The agent's exported graph or factory, imported once per process."""
        return load_export(self.folder, self.agent, module_prefix=f"agent_import_{self.plugin_id}")

    @cached_property
    def context_schema(self) -> Any:
        """The graph's ``context_schema`` (a factory is asked once, as the server reads schemas)."""
        if not is_factory(self.export):
            return getattr(self.export, "context_schema", None)

        async def read() -> Any:
            config = RunnableConfig(configurable=self._run_context(None).configurable)
            # Outside a run there is no store: reading schemas executes nothing, so an empty one.
            reading = schema_runtime(InMemoryStore())
            async with graph_for_run(self.export, config, reading) as graph:
                return graph.context_schema

        return asyncio.run(read())

    @cached_property
    def isolated(self) -> IsolatedAgent | None:
        """How the agent runs when it has an environment of its own (in a worker), else None."""
        if self.agent.environment.kind != "isolated":
            return None
        return IsolatedAgent(self.plugin_id, self.folder, self.agent)

    def prepare(self) -> None:
        """Import the agent now, so a broken agent fails when the graph is built."""
        if self.isolated is None:  # an isolated agent is imported by its worker, never here
            _ = self.context_schema

    def _find_needs(self) -> list[str]:
        """A module the agent imports that is not installed, an unset variable it reads while it
        is imported, then a context field or an input field nothing sets."""
        if self.isolated is not None:
            return self.isolated.needs()
        try:
            schema = self.context_schema
        except ModuleNotFoundError as exc:
            requirements = self.folder / REQUIREMENTS_FILE
            command = f"uv pip install --python {sys.executable} -r {requirements}"
            return [
                f"needs module {exc.name!r}: install the plugin's requirements "
                f"(python3 dev.py serve does, or: {command})"
            ]
        except Exception as exc:
            logger.exception("agent %r failed to load", self.plugin_id)
            if variable := missing_variable(exc, self.agent.env):
                return [f"{needs_variable(variable)} (the agent reads it when it loads)"]
            return [f"needs a fix: the agent failed to load ({one_line_reason(exc)})"]
        try:
            build_context(schema, self._run_context(None).values)
        except ContextError as exc:
            return [f"needs a setting: {exc}"]
        problem = None if is_factory(self.export) else missing_inputs(self.export, self.agent)
        return [f"needs a setting: {problem}"] if problem else []

    def _run_context(self, user_id: str | None) -> RunContext:
        return make_run_context(self.agent, plugin_id=self.plugin_id, user_id=user_id)

    def settled_inputs(self, fresh: bool) -> dict[str, Any]:
        """The reviewed values of the agent's other input fields, sent when a conversation starts
        (later runs keep them in the agent's state)."""
        return copy.deepcopy(self.agent.inputs) if fresh else {}

    @abstractmethod
    def agent_input(self, text: str, *, fresh: bool) -> Any:
        """The agent's input for what the user said (a dict of its input fields, or what a
        functional-API entrypoint takes); ``fresh`` starts a new conversation."""

    def agent_output(self, before: dict[str, Any], result: dict[str, Any]) -> Outcome:
        """The answer (``output_field``: a new AI message's text, or its value) and the
        ``result_fields`` the screens show. A run that leaves no answer since ``before`` (it only
        changed state) answers with what it changed, and shows those fields too
        (``runtime.adapters.changes``), as LangGraph's server answers with the new state; one
        waiting on the client's tool results has no answer yet."""
        fields = {
            name: to_jsonable_python(result[name], fallback=str)
            for name in self.agent.result_fields
            if name in result
        }
        output = result.get(self.agent.output_field)
        if is_message_list(output):
            added = new_messages(before.get(self.agent.output_field), output)
            if awaits_tool_results(added):
                return Outcome("", fields)
            answer = last_ai_text(added)
        else:
            answer = answer_text(output).strip()
        if answer:
            return Outcome(answer, fields)
        changed = changed_fields(before, result)
        return Outcome(change_summary(changed), {**changed, **fields})

    def tool_input(self, results: list[Mapping[str, Any]]) -> Any:
        """The agent's input for the client's results of its tool calls (``run_tools``)."""
        raise NotImplementedError(f"{type(self).__name__} reads no tool results")

    def run(self, text: str, *, fresh: bool, config: RunnableConfig) -> Outcome:
        """One run of the agent as a stateful subgraph (its own event loop: graphs may be async)."""
        # A new conversation starts the agent afresh, even where it paused.
        said = None if fresh else text
        return asyncio.run(self._run(self.agent_input(text, fresh=fresh), config, said=said))

    def run_tools(self, results: list[Mapping[str, Any]], config: RunnableConfig) -> Outcome:
        return asyncio.run(self._run(self.tool_input(results), config))

    async def _run(
        self, inputs: Any, config: RunnableConfig, *, said: str | None = None
    ) -> Outcome:
        """Run with the context, configurable and store LangGraph's server would give this run,
        and the client's frontend tools as ``ag-ui-langgraph`` passes them. An agent paused at a
        static breakpoint goes on from there (``continue``), given what the user ``said`` unless
        that only says to go on."""
        if isinstance(inputs, dict):  # an entrypoint's bare input has no room for them
            inputs = {**inputs, **frontend_tools(run_extras(config))}
        run_context = self._run_context((config.get("metadata") or {}).get("user_id"))
        if self.isolated is not None:
            return self.agent_output(*self.isolated.run(inputs, run_context, config))
        context = build_context(self.context_schema, run_context.values)
        runtime = server_runtime(context=context, user=run_context.user, store=get_store())
        async with graph_for_run(self.export, config, runtime) as graph:
            if problem := missing_inputs(graph, self.agent):
                raise ContextError(problem)
            stateful = graph.copy(update={"checkpointer": True})
            run_config = RunnableConfig(configurable=run_context.configurable)
            stops = has_breakpoints(graph)
            here = get_config()  # this node's run: where the agent's own checkpoints are
            start: Any = inputs
            if stops and said is not None and await paused_at(stateful, here):
                if not says_continue(said):
                    await stateful.aupdate_state(here, self.agent_input(said, fresh=False))
                start = None
            try:
                # The first state streamed is the one the run starts from (this input applied).
                states = [
                    state
                    async for state in stateful.astream(
                        start, run_config, context=context, stream_mode="values"
                    )
                ]
            except GraphInterrupt as exc:
                if not (stops and is_breakpoint(exc)):
                    raise
                return Outcome("", paused=await paused_at(stateful, here))
        return self.agent_output(*self._before_after(states))

    def _before_after(self, states: list[Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """The state a run started from and the one it ended on. A functional-API entrypoint
        streams only what it returned (a message, a list of them, a string, a dict): that is the
        value of its output field, after nothing."""
        if not states:
            return {}, {}
        last = states[-1]
        if not isinstance(last, dict):
            return {}, {self.agent.output_field: last}
        if self.agent.input_shape != "state":
            return {}, last
        return (states[0] if isinstance(states[0], dict) else {}), last


def frontend_tools(extras: RunExtras) -> dict[str, Any]:
    """The state keys ``ag-ui-langgraph`` gives an agent for the client's frontend tools."""
    if not extras.client_tools:
        return {}
    tools = [dict(tool) for tool in extras.client_tools]
    return {
        "tools": tools,
        "copilotkit": {"actions": tools},
        "ag-ui": {"tools": tools, "context": list(extras.context.get("context", []))},
    }
