"""Counts its steps; told to, it loops for ever or fails after a step.

* "loop ...": ``step`` routes back to itself for ever (the recursion limit stops it);
* "crawl ...": the same loop, slowly (the deadline stops it; ``STEPS_TAKEN`` shows it stopped);
* "half ...": one step, then ``explode`` raises;
* anything else: one step, then the answer "<words> after <n> steps".

The plugin's policy keeps the deadline short for the tests; the recursion limit is the default.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from langgraph.graph import END, START, StateGraph

from runtime.contract.plugin import PluginBase
from runtime.contract.policy import RunPolicy
from runtime.contract.state import CommonState, ServerEventDict, event

#: Every step any session took, in order: a test reads it to see a stopped loop stays stopped.
STEPS_TAKEN: list[str] = []
#: The thread each step ran on (``threading.get_ident``).
STEP_THREADS: list[int] = []
CRAWL_S = 0.1
#: Room for a first turn on a busy machine; a crawl always outlasts it.
DEADLINE_S = 2.0


class RunawayPlugin(PluginBase):
    plugin_id = "runaway"
    title = "Runaway"
    run_policy = RunPolicy(deadline_s=DEADLINE_S)

    def initial_domain_state(self) -> dict[str, Any]:
        return {"steps": 0, "heard": ""}

    def build_graph(self) -> StateGraph[Any]:
        graph = StateGraph(CommonState)
        graph.add_node("step", step)
        graph.add_node("explode", explode)
        graph.add_node("answer", answer)
        graph.add_edge(START, "step")
        graph.add_conditional_edges("step", route, ["step", "explode", "answer"])
        graph.add_edge("answer", END)
        return graph

    def failure_events(self, state: CommonState, message: str) -> list[ServerEventDict]:
        return [event("server.transcript.final", text=f"failed at {steps(state)} steps")]


def steps(state: CommonState) -> int:
    value: int = state["domain"]["runaway"]["steps"]
    return value


def step(state: CommonState) -> dict[str, Any]:
    heard = state.get("transcript", "")
    STEPS_TAKEN.append(heard)
    STEP_THREADS.append(threading.get_ident())
    if heard.startswith("crawl"):
        time.sleep(CRAWL_S)
    return {"domain": {"runaway": {"steps": steps(state) + 1, "heard": heard}}}


def route(state: CommonState) -> str:
    heard = state.get("transcript", "")
    if heard.startswith(("loop", "crawl")):
        return "step"  # the stop condition never holds
    return "explode" if heard.startswith("half") else "answer"


def explode(state: CommonState) -> dict[str, Any]:
    raise RuntimeError("failed halfway")


def answer(state: CommonState) -> dict[str, Any]:
    heard = state["domain"]["runaway"]["heard"] or "welcome"
    line = f"{heard} after {steps(state)} steps"
    return {"outbox": [event("server.voice.say", text=line)]}
