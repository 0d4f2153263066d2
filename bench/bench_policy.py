"""Run-policy benchmark: what limits and rollback add to a turn, on the mortgage plugin.

Both series run in one process and one event loop, turns interleaved, over the same compiled
graph and checkpointer (memory, then SQLite):

* policy: ``TurnEngine.run`` (recursion limit, deadline, the ``TurnGuard`` callback counting tool
  calls and tokens, the graph streamed from a worker thread, writes held in ``TurnWrites`` and
  committed after the turn);
* without: the turn as the runtime ran it before the policy, ``graph.invoke`` in a worker thread
  with the same durability.

Wall time and process CPU time (all threads) are both printed: on a shared machine the CPU time
is the steadier figure. Prints figures only; the goal is an overhead under 10% of the turn.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
import uuid
from collections.abc import Awaitable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from langgraph.checkpoint.base import BaseCheckpointSaver

from runtime.discovery import discover
from runtime.settings import Settings
from runtime.storage.backend import backend
from runtime.storage.persistence import open_persistence
from runtime.turns import TurnEngine, TurnRequest
from runtime.turns.audit import AuditLog
from runtime.turns.context import RuntimeContext
from runtime.turns.observability import run_config
from runtime.turns.runs import DURABILITY

from .bench_runtime import MORTGAGE_TURN, percentile

AGENT = "mortgage"
TURNS = 200


@contextmanager
def checkpointers() -> Iterator[list[tuple[str, BaseCheckpointSaver[str]]]]:
    with (
        tempfile.TemporaryDirectory(prefix="bench-policy-") as tmp,
        open_persistence(backend("memory")) as memory,
        open_persistence(backend(f"sqlite:{Path(tmp) / 'sessions.sqlite'}")) as sqlite,
    ):
        yield [("memory", memory.checkpointer), ("sqlite", sqlite.checkpointer)]


def measure(name: str, checkpointer: BaseCheckpointSaver[str]) -> None:
    registry = discover(checkpointer=checkpointer)
    context = RuntimeContext(Settings(), registry, AuditLog(), [])
    plugin = registry.plugins[AGENT]
    engine = TurnEngine(context, plugin, uuid.uuid4().hex, registry.graph(AGENT))
    graph = engine.graph
    config = run_config(session_id=uuid.uuid4().hex, plugin_id=AGENT)
    update = {"transcript": MORTGAGE_TURN, "pendingAction": None, "mode": "voice", "outbox": None}

    async def timed(turn: Awaitable[object], into: Series) -> None:
        wall, cpu = time.perf_counter(), time.process_time()
        await turn
        into.wall.append(time.perf_counter() - wall)
        into.cpu.append(time.process_time() - cpu)

    async def policy_turn() -> None:
        async with engine.lock:
            result = await engine.run(TurnRequest.say(MORTGAGE_TURN))
        assert result.error is None, result.error

    async def run() -> tuple[Series, Series]:
        policy, without = Series(), Series()
        async with engine.lock:
            await engine.run(engine.start())
        start = {**plugin.create_initial_state(), "outbox": None}
        await asyncio.to_thread(graph.invoke, start, config, durability=DURABILITY)
        for _ in range(TURNS):
            await timed(policy_turn(), policy)
            plain = asyncio.to_thread(graph.invoke, update, config, durability=DURABILITY)
            await timed(plain, without)
        return policy, without

    policy, without = asyncio.run(run())
    print(
        f"{name:>6}: turn with the policy p50 {percentile(policy.wall, 50):.2f} ms "
        f"(p95 {percentile(policy.wall, 95):.2f}) vs without p50 {percentile(without.wall, 50):.2f}"
        f" ms (p95 {percentile(without.wall, 95):.2f}) -> {ratio(policy.wall, without.wall)}; "
        f"CPU p50 {percentile(policy.cpu, 50):.2f} vs {percentile(without.cpu, 50):.2f} ms -> "
        f"{ratio(policy.cpu, without.cpu)} (goal < +10%)"
    )


@dataclass
class Series:
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)


def ratio(policy: list[float], without: list[float]) -> str:
    return f"{statistics.median(policy) / statistics.median(without) - 1:+.1%}"


def main(argv: list[str]) -> None:
    with checkpointers() as savers:
        for name, saver in savers:
            measure(name, saver)


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
