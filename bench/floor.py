"""The floor: what a turn costs the graph alone, so a server's cost reads as a multiple of it.

The bare graph is the plugin's graph as the runtime compiles it (``discover``), with the
checkpointer the server is given (``open_persistence`` of the same storage URL), invoked directly
in this process: no server, no transport, no worker thread. A server can only add to it; the cores
divided by its CPU seconds per turn are the most turns a second the machine could serve.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from langchain_core.runnables import RunnableConfig

from runtime.contract.plugin import PluginBase
from runtime.discovery import discover
from runtime.storage.backend import MEMORY, backend
from runtime.storage.persistence import open_persistence
from runtime.turns.observability import run_config
from runtime.turns.runs import DURABILITY

CLOCK_TICKS: Final = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class BareGraph:
    """One plugin's compiled graph, run as the turn engine runs it, minus the engine."""

    graph: Any
    plugin: PluginBase
    #: The input of every turn after the first: a transcript, as the engine passes one.
    update: dict[str, Any]

    def session(self) -> RunnableConfig:
        """A new session, past its first turn (the plugin's initial state); its config."""
        config = run_config(session_id=uuid.uuid4().hex, plugin_id=self.plugin.plugin_id)
        self.graph.invoke(
            {**self.plugin.create_initial_state(), "outbox": None}, config, durability=DURABILITY
        )
        return config

    def turn(self, config: RunnableConfig) -> None:
        self.graph.invoke(self.update, config, durability=DURABILITY)


@contextmanager
def bare_graph(
    agent: str, plugins_dir: Path | None, text: str, storage: str = MEMORY
) -> Iterator[BareGraph]:
    """``agent``'s graph over the ``storage`` URL's checkpointer, answering ``text`` every
    turn."""
    with open_persistence(backend(storage)) as persistence:
        registry = discover(
            plugins_dir, checkpointer=persistence.checkpointer, store=persistence.store
        )
        update = {"transcript": text, "pendingAction": None, "mode": "voice", "outbox": None}
        yield BareGraph(registry.graph(agent), registry.plugins[agent], update)


def cpu_per_turn(bare: BareGraph, *, sessions: int, turns: int) -> float:
    """CPU seconds of one turn (``time.process_time``): ``sessions`` sessions of ``turns`` turns
    each, as a load plays them; their first turns are not counted."""
    spent = 0.0
    for _ in range(sessions):
        config = bare.session()
        started = time.process_time()
        for _ in range(turns):
            bare.turn(config)
        spent += time.process_time() - started
    return spent / (sessions * turns)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time so far of a server process and its descendants (workers; Linux)."""
    return cpu_seconds_of([pid, *descendants(pid)])


def cpu_seconds_of(pids: list[int]) -> float:
    """User + system CPU time so far of these processes (Linux)."""
    return sum(_own_cpu_seconds(process) for process in pids)


def machine_cpu_seconds() -> float:
    """CPU time every process of the machine has spent so far, all cores together (Linux)."""
    ticks = [int(field) for field in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = ticks[3] + ticks[4]  # idle and waiting for I/O
    return (sum(ticks) - idle) / CLOCK_TICKS


def _own_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def descendants(pid: int) -> list[int]:
    """Every descendant of ``pid`` (a worker in a sandbox is its keeper's grandchild)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except OSError:  # gone meanwhile
            continue
    found, frontier = [], [pid]
    while frontier:
        below = [child for child, parent in parents.items() if parent in frontier]
        found += below
        frontier = below
    return found
