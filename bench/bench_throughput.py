"""Throughput against the machine's limit: one worker and one per core (``serve --workers N``).

The limit is the floor (``bench.floor``): the cores divided by the CPU seconds of one turn of the
bare graph, the mortgage plugin's graph invoked directly on a SQLite checkpointer as the server's.
Then ``a2ui-runtime serve --storage sqlite:... --workers N`` in a subprocess, for N = 1 and N
= the cores, plays ``bench_runtime``'s load: 100 WebSocket sessions of 5 turns, its clock started
once every session is connected and welcomed (so only turns are timed and counted), three times
over. Each row is the median load (by turns per second): turns per second and their ratio to the
limit, p50/p95 latency, and the CPU each turn cost the server (all its workers; ``x floor``: as a
multiple of the bare graph's) and the client. The client shares the machine's cores with the
server, and so does any other work on the machine: the last column is the cores that other
processes took meanwhile (``/proc/stat``), which the server could not have.

Prints figures only.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from bench.bench_runtime import (
    generate_plugins,
    percentile,
    pick_agent,
    play_load,
    server,
    turn_text,
)
from bench.floor import bare_graph, cpu_per_turn
from runtime.serving.processes import available_cores

SESSIONS, TURNS = 100, 5
#: Loads played against each server; its row is the median one (by turns/s): a shared machine's
#: speed drifts from one second to the next.
LOADS = 3


def main(argv: list[str]) -> None:
    cores = available_cores()
    with tempfile.TemporaryDirectory(prefix="bench-throughput-") as tmp:
        agent, plugins_dir = pick_agent(generate_plugins(Path(tmp) / "plugins", 1))
        text = turn_text(agent)
        with bare_graph(agent, plugins_dir, text, f"sqlite:{Path(tmp) / 'floor.sqlite'}") as bare:
            floor = cpu_per_turn(bare, sessions=SESSIONS, turns=TURNS)
        limit = cores / floor
        print(
            f"agent: {agent}; {SESSIONS} sessions x {TURNS} turns over the WebSocket, SQLite\n"
            f"floor: the bare graph takes {floor * 1e3:.2f} ms of CPU a turn; limit: {cores} "
            f"cores / {floor * 1e3:.2f} ms = {limit:.0f} turns/s"
        )
        print(
            f"{'workers':>7} {'turns/s':>8} {'of limit':>8} {'p50 ms':>7} {'p95 ms':>7} "
            f"{'server CPU ms/turn':>18} {'x floor':>7} {'client CPU ms/turn':>18} "
            f"{'others (cores)':>14}"
        )
        for workers in sorted({1, cores}):
            database = f"sqlite:{Path(tmp) / f'runtime-{workers}.sqlite'}"
            flags = ("--storage", database, "--workers", str(workers))
            with server(plugins_dir, *flags) as running:
                loads = [
                    play_load(
                        [running.address],
                        agent,
                        SESSIONS,
                        TURNS,
                        connected_first=True,
                        server_pids=[running.process.pid],
                    )
                    for _ in range(LOADS)
                ]
            load = sorted(loads, key=lambda played: played.turns_per_s)[LOADS // 2]
            server_cpu = load.server_cpu / len(load.latencies)
            client_cpu = load.client_cpu / len(load.latencies)
            others = (load.machine_cpu - load.server_cpu - load.client_cpu) / load.elapsed
            print(
                f"{workers:>7} {load.turns_per_s:>8.1f} {load.turns_per_s / limit:>8.2f} "
                f"{percentile(load.latencies, 50):>7.1f} {percentile(load.latencies, 95):>7.1f} "
                f"{server_cpu * 1e3:>18.2f} {server_cpu / floor:>7.1f} {client_cpu * 1e3:>18.2f} "
                f"{others:>14.2f}"
            )


if __name__ == "__main__":
    main(sys.argv[1:])
