"""One run of a graph for the turn engine: in a worker thread, or on the event loop's own thread.

A worker thread is the default: checkpointers and nodes may block (a model call, a tool's HTTP
request), and the event loop must go on serving every other session meanwhile. Handing a run to a
thread and its results back costs CPU, though, and while the run holds the GIL the event loop waits
for it at every socket write: for a short graph that only computes, about a quarter more CPU
than the graph itself (the mortgage graph, 100 sessions at once, measured once in process: 3.85 ms
a turn through the pool, 3.10 ms on the calling thread). A plugin whose nodes never wait on anything
(``RunPolicy.on_event_loop``) runs on the event loop's thread instead, step by step, letting the
loop serve others between steps, as LangGraph's own server runs synchronous nodes.

Either way the run ends the same: a run that went to its end commits its writes before it
reports ``RunEnd`` (``TurnGuard.finish``: nothing stops it after that); a run stopped first (the
deadline, a limit, its reader gone) stops at its next step and its writes are never committed.
On the event loop, the runs that finish in one pass of it commit together
(``persistence.write_together``: on SQLite one transaction, so one ``fsync``, for them all).
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import AsyncGenerator, Generator
from dataclasses import dataclass
from typing import Any, Final, cast

from langchain_core.runnables import RunnableConfig
from langgraph.types import StreamMode

from runtime.discovery import Graph
from runtime.storage.persistence import write_alone, write_together
from runtime.turns.limits import TurnGuard
from runtime.turns.rollback import TurnWrites
from runtime.turns.threads import running_inline

#: Checkpoint once, when a turn's run ends, rather than after every step: a turn is the unit a
#: client resumes from, and this roughly halves the cost of a turn (see bench/bench_runtime.py).
DURABILITY: Final = "exit"
#: A chunk of LangGraph's stream: (namespace, mode, payload).
Chunk = tuple[tuple[str, ...], str, Any]


@dataclass
class RunEnd:
    """A run's end: the plugin's state, and whether it stopped on an interrupt."""

    state: dict[str, Any]
    interrupted: bool
    #: The run went to its end and claimed it (``TurnGuard.finish``): its writes are to be kept.
    finished: bool = False


@dataclass(frozen=True)
class _Failure:
    error: BaseException


@dataclass(frozen=True)
class Run:
    """What one run is: the graph, its input and config, and how the turn bounds (``guard``, with
    the plugin's policy) and keeps it."""

    graph: Graph
    inputs: Any
    config: RunnableConfig
    guard: TurnGuard
    writes: TurnWrites
    #: Hand on ``messages`` and ``updates`` chunks (of subgraphs too) as they come.
    events: bool

    def steps(self) -> Generator[Chunk | RunEnd | None, None, None]:
        """Run the graph: per step, a chunk to hand on or ``None``; last, ``RunEnd``, whose
        writes the caller commits if it ``finished``."""
        # Subgraphs' chunks (an imported agent's tokens) only when someone listens: they cost.
        modes: list[StreamMode] = (
            ["updates", "values", "messages"] if self.events else ["updates", "values"]
        )
        end = RunEnd({}, False)
        for chunk in self.graph.stream(
            self.inputs,
            self.config,
            stream_mode=modes,
            subgraphs=self.events,
            durability=DURABILITY,
            control=self.guard.control,
            interrupt_before=list(self.guard.policy.interrupt_before) or None,
            interrupt_after=list(self.guard.policy.interrupt_after) or None,
        ):
            if self.guard.cancelled:
                break  # stopped by a limit (the turn reads guard.stopped) or abandoned
            namespace, mode, payload = cast(Chunk, chunk if self.events else ((), *chunk))
            if mode == "values":
                if not namespace:
                    end.state = payload
            elif mode == "updates" and "__interrupt__" in payload:
                end.interrupted = end.interrupted or not namespace
            elif self.events:
                yield (namespace, mode, payload)
                continue
            yield None
        end.finished = self.guard.finish()
        yield end

    def stop_at_deadline(self) -> bool:
        """Stop the run for its deadline; False when it had finished first."""
        stopped = self.guard.stop("deadline_exceeded", f"over {self.guard.policy.deadline_s} s")
        return stopped is self.guard.stopped


async def in_thread(run: Run) -> AsyncGenerator[Chunk | RunEnd, None]:
    """``run`` in a worker thread, its chunks handed back to the event loop as they come."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Chunk | RunEnd | _Failure] = asyncio.Queue()

    def put(item: Chunk | RunEnd | _Failure) -> None:
        try:
            loop.call_soon_threadsafe(queue.put_nowait, item)
        except RuntimeError:  # the event loop is gone (server shutdown)
            run.guard.cancel()

    def work() -> None:
        try:
            for item in run.steps():
                if isinstance(item, RunEnd) and item.finished:  # here, before the loop hears
                    write_alone(run.writes.inner, run.writes.commit)
                if item is not None:
                    put(item)
        except BaseException as exc:
            put(_Failure(exc))

    def deadline() -> None:
        if run.stop_at_deadline():
            put(_Failure(cast(BaseException, run.guard.stopped)))

    timer = loop.call_later(run.guard.policy.deadline_s, deadline)
    loop.run_in_executor(None, contextvars.copy_context().run, work)
    ended = False
    try:
        while not ended:
            item = await queue.get()
            if isinstance(item, _Failure):
                ended = True
                raise item.error
            ended = isinstance(item, RunEnd)
            yield item
    finally:
        timer.cancel()
        if not ended:  # the transport stopped listening: stop the run
            run.guard.cancel()


async def on_event_loop(run: Run) -> AsyncGenerator[Chunk | RunEnd, None]:
    """``run`` on this thread, one step at a time, the loop serving others between steps. The
    deadline is checked between steps: it stops the run at its next one. A finished run commits
    with the others that finish in the same pass of the loop (``write_together``)."""
    loop = asyncio.get_running_loop()
    timer = loop.call_later(run.guard.policy.deadline_s, run.stop_at_deadline)
    # LangGraph sets context variables while it runs; they stay in the run's own context.
    context = contextvars.copy_context()
    if not run.events:  # streaming tokens, LangGraph runs nodes in threads it waits for
        context.run(running_inline.set, True)
    steps = run.steps()
    try:
        while not isinstance(item := context.run(next, steps), RunEnd):
            if item is not None:
                yield item
            await asyncio.sleep(0)
        if item.finished:
            await write_together(run.writes.inner, run.writes.commit)
        yield item
    finally:
        timer.cancel()
        context.run(steps.close)  # a run left half way: stop it there, uncommitted
        run.guard.cancel()
