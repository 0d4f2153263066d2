"""Isolated plugins: what running an agent in its own environment's worker adds to a turn.

The same message graph (written so LangGraph 0.2 and 1.x both run it) is served twice from one
plugins folder: ``shared`` runs in process on the runtime's LangGraph, ``isolated`` in its worker
on LangGraph 0.2 (the ``legacy`` test fixture's ``requirements.lock``, built with uv into
``.a2ui-runtime/bench-envs`` and kept there). Both go through ``TurnEngine.run`` in this process,
turns interleaved, on a memory checkpointer. Printed: the first turn with a cold worker (its start
included), per-turn wall time and CPU time (this process, plus the worker's for ``isolated``), the
median overhead (goal: at most 20 ms), and the warm worker's resident memory. Figures only.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import statistics
import tempfile
import time
import uuid
from pathlib import Path

from bench.floor import cpu_seconds_of, descendants
from runtime.contract.layout import AGENT_FILE, SOURCE_FOLDER
from runtime.discovery import discover
from runtime.isolated.envs import ENVS_DIR_ENV, ensure_env
from runtime.isolated.process import WORKERS
from runtime.settings import Settings
from runtime.turns import TurnEngine, TurnRequest
from runtime.turns.audit import AuditLog
from runtime.turns.context import RuntimeContext

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "tests" / "runtime" / "plugin_fixtures" / "legacy"
ENVS = ROOT / ".a2ui-runtime" / "bench-envs"
TURNS = 100
GOAL_MS = 20.0
GRAPH = """\
from typing import Annotated, TypedDict

from langchain_core.messages import AIMessage
from langgraph.graph import START, StateGraph
from langgraph.graph.message import add_messages


class State(TypedDict):
    messages: Annotated[list, add_messages]


def respond(state: State) -> dict:
    return {"messages": [AIMessage(content="You said: " + state["messages"][-1].content)]}


builder = StateGraph(State)
builder.add_node("respond", respond)
builder.add_edge(START, "respond")
graph = builder.compile()
"""


def plugin(folder: Path, plugin_id: str, *, isolated: bool) -> None:
    """A copy of the fixture plugin under ``plugin_id``, running ``GRAPH``."""
    shutil.copytree(TEMPLATE, folder, ignore=shutil.ignore_patterns("__pycache__"))
    init = folder / "__init__.py"
    init.write_text(init.read_text().replace('"legacy"', f'"{plugin_id}"'))
    for screen in (folder / "screens").glob("*.json"):
        screen.write_text(screen.read_text().replace('"legacy.', f'"{plugin_id}.'))
    (folder / SOURCE_FOLDER / "graph.py").write_text(GRAPH)
    spec = json.loads((folder / AGENT_FILE).read_text())
    if not isolated:
        del spec["environment"]
    (folder / AGENT_FILE).write_text(json.dumps(spec))


def main(argv: list[str]) -> None:
    os.environ[ENVS_DIR_ENV] = str(ENVS)
    with tempfile.TemporaryDirectory(prefix="bench-isolated-") as tmp:
        plugins = Path(tmp) / "plugins"
        plugin(plugins / "shared", "shared", isolated=False)
        plugin(plugins / "isolated", "isolated", isolated=True)
        started = time.perf_counter()
        ensure_env(plugins / "isolated", "isolated", progress=lambda line: None)
        print(f"environment ready in {time.perf_counter() - started:.1f} s (uv, cached)")
        try:
            asyncio.run(measure(plugins))
        finally:
            WORKERS.close()


async def measure(plugins: Path) -> None:
    registry = discover(plugins)
    context = RuntimeContext(Settings(), registry, AuditLog(), [])
    engines = {
        name: TurnEngine(context, registry.plugins[name], uuid.uuid4().hex, registry.graph(name))
        for name in ("shared", "isolated")
    }
    for engine in engines.values():
        async with engine.lock:
            await engine.run(engine.start())
    cold = time.perf_counter()
    await say(engines["isolated"], "hello")
    print(f"first turn, cold worker: {(time.perf_counter() - cold) * 1000:.0f} ms")
    worker = WORKERS.get("isolated", lambda: None)  # type: ignore[arg-type,return-value]
    print(f"worker: {worker.versions}")
    await say(engines["shared"], "hello")
    wall: dict[str, list[float]] = {name: [] for name in engines}
    cpu: dict[str, list[float]] = {name: [] for name in engines}
    processes = [worker.pid, *descendants(worker.pid)]  # found once: the search costs CPU too
    for turn in range(TURNS):
        for name, engine in engines.items():
            theirs = cpu_seconds_of(processes) if name == "isolated" else 0.0
            started, own = time.perf_counter(), time.process_time()
            await say(engine, f"turn {turn}")
            spent, wall_ms = time.process_time() - own, (time.perf_counter() - started) * 1000
            after = cpu_seconds_of(processes) if name == "isolated" else 0.0
            wall[name].append(wall_ms)
            cpu[name].append((spent + after - theirs) * 1000)
    for name in engines:
        print(
            f"{name:9} wall median {statistics.median(wall[name]):6.1f} ms, "
            f"CPU median {statistics.median(cpu[name]):6.1f} ms (runtime + worker)"
        )
    overhead = statistics.median(wall["isolated"]) - statistics.median(wall["shared"])
    verdict = "within" if overhead <= GOAL_MS else "over"
    print(f"median overhead per turn: {overhead:.1f} ms ({verdict} the {GOAL_MS:.0f} ms goal)")
    print(f"warm worker resident memory: {resident_kib(worker.pid)} kB (its sandbox's included)")


def resident_kib(pid: int) -> int:
    """The resident memory of ``pid`` and its descendants: a sandboxed worker is its keeper's
    grandchild, under the sandbox's first process."""
    total = 0
    for process in (pid, *descendants(pid)):
        status = Path(f"/proc/{process}/status").read_text().splitlines()
        total += next(int(line.split()[1]) for line in status if line.startswith("VmRSS"))
    return total


async def say(engine: TurnEngine, text: str) -> None:
    async with engine.lock:
        result = await engine.run(TurnRequest.say(text))
    assert result.error is None, result.error
