"""``ImportedPlugin``: what every plugin rendered by ``agent-import`` shares.

A generated plugin is a thin subclass (``WrapperPlugin``, ``SubgraphPlugin``) plus data files:
``agent.json`` (where the agent is, how its fields map) and ``screens/*.json``. The turn logic
lives here, so improving it improves every imported plugin at once.

Each turn routes to one of two nodes:

* ``welcome`` (a new session, or the ``restart`` action): the welcome screen, and the agent's own
  conversation starts afresh on the next message;
* ``agent`` (the user said something, or ``retry``): the agent's graph runs as a *stateful*
  subgraph (``checkpointer=True``), so its state is kept per session in the runtime's
  checkpointer across turns, exactly like a thread of LangGraph's server. Its answer is shown on
  the result screen, spoken (trimmed for voice) and sent as the final transcript; if the agent
  raises, the error screen is shown and the details go to the log and the audit trail.

The surface's data model is the plugin's domain state (``state["domain"][plugin_id]``) without its
private ``_`` keys: ``question``, ``answer``, ``error`` and ``state`` (agent fields), the keys the
designed screens bind to.
"""

from __future__ import annotations

import asyncio
import copy
import logging
from abc import abstractmethod
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar, Literal

from langchain_core.runnables import RunnableConfig
from langgraph.config import get_store
from langgraph.graph import END, START, StateGraph
from pydantic_core import to_jsonable_python

from runtime.a2ui import Screen, load_screens
from runtime.adapters.agent import AgentSpec, load_agent_spec
from runtime.adapters.loader import graph_for_run, load_export
from runtime.adapters.voice import answer_text, speakable
from runtime.contracts import (
    CommonState,
    ServerEventDict,
    event,
    plugin_domain,
    with_plugin_domain,
)
from runtime.layout import SCREENS_FOLDER
from runtime.plugin import PluginBase
from runtime.reply import show_screen

logger = logging.getLogger(__name__)

ScreenName = Literal["welcome", "collecting", "result", "error"]
#: Set by ``welcome``: the next message starts a new conversation with the agent.
FRESH = "_fresh"
ERROR_TEXT = "Sorry, something went wrong while answering. Please try again."


@dataclass(frozen=True)
class Outcome:
    """What one run of the agent produced, in the plugin's terms."""

    answer: str
    fields: dict[str, Any] = field(default_factory=dict)


class ImportedPlugin(PluginBase):
    """Base of generated plugins: the screens and the turns; ``run`` answers one message."""

    actions: ClassVar[tuple[str, ...]] = ("restart", "retry")

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

    def prepare(self) -> None:
        """Called when the graph is built: load what the turns need, so failures show early."""

    def build_graph(self) -> StateGraph[Any]:
        """``welcome`` or ``agent``, chosen per turn."""
        self.prepare()
        builder = StateGraph(CommonState)
        builder.add_node("welcome", self.welcome)
        builder.add_node("agent", self.answer)
        builder.add_conditional_edges(START, self.route, ["welcome", "agent"])
        builder.add_edge("welcome", END)
        builder.add_edge("agent", END)
        return builder

    def route(self, state: CommonState) -> str:
        action = state.get("pendingAction")
        if action is not None:
            retry = action["id"] == self.action_id("retry") and self.domain(state).get("question")
            return "agent" if retry else "welcome"
        return "agent" if state.get("transcript", "").strip() else "welcome"

    def welcome(self, state: CommonState) -> dict[str, Any]:
        return self.show(state, "welcome", self.initial_domain_state())

    def answer(self, state: CommonState, config: RunnableConfig) -> dict[str, Any]:
        domain = self.domain(state)
        question = state.get("transcript", "").strip() or str(domain.get("question", ""))
        fresh = bool(domain.get(FRESH, True))
        domain["question"] = question
        try:
            outcome = self.run(question, fresh=fresh, config=config)
        except Exception as exc:
            logger.exception("agent %r raised while answering", self.plugin_id)
            audit = event(
                "server.audit.event",
                kind="agent_error",
                agent=self.plugin_id,
                error=f"{type(exc).__name__}: {exc}",
            )
            failed = {**domain, "answer": "", "error": ERROR_TEXT, FRESH: False}
            return self.show(state, "error", failed, extra=[audit])
        fields = {**dict(domain.get("state") or {}), **outcome.fields}
        done = {**domain, "answer": outcome.answer, "error": "", "state": fields, FRESH: False}
        if not outcome.answer:
            return self.show(state, "collecting", done)
        transcript = event("server.transcript.final", text=outcome.answer, role="agent")
        return self.show(state, "result", done, voice=speakable(outcome.answer), extra=[transcript])

    def domain(self, state: CommonState) -> dict[str, Any]:
        """This plugin's part of the session state."""
        return plugin_domain(state, self.plugin_id)

    def show(
        self,
        state: CommonState,
        name: ScreenName,
        domain: dict[str, Any],
        *,
        voice: str | None = None,
        extra: list[ServerEventDict] | None = None,
    ) -> dict[str, Any]:
        """The state update drawing screen ``name`` with ``domain`` as its data model, saying
        ``voice`` (by default the screen's own line)."""
        screen = self.screens()[name]
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

    def prepare(self) -> None:
        """Import the agent now, so a broken agent fails when the graph is built."""
        _ = self.export

    @abstractmethod
    def agent_input(self, text: str, *, fresh: bool) -> dict[str, Any]:
        """The agent's input for what the user said; ``fresh`` starts a new conversation."""

    def agent_output(self, result: dict[str, Any]) -> Outcome:
        """The answer (``output_field``) and the ``result_fields`` the screens show."""
        fields = {
            name: to_jsonable_python(result[name], fallback=str)
            for name in self.agent.result_fields
            if name in result
        }
        return Outcome(answer_text(result.get(self.agent.output_field)).strip(), fields)

    def run(self, text: str, *, fresh: bool, config: RunnableConfig) -> Outcome:
        """One run of the agent as a stateful subgraph (its own event loop: graphs may be async)."""
        return asyncio.run(self._run(self.agent_input(text, fresh=fresh), config))

    async def _run(self, inputs: dict[str, Any], config: RunnableConfig) -> Outcome:
        async with graph_for_run(self.export, config, store=get_store()) as graph:
            stateful = graph.copy(update={"checkpointer": True})
            result = await stateful.ainvoke(inputs)
        return self.agent_output(result if isinstance(result, dict) else {})
