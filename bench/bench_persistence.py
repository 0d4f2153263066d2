"""Persistence under load: 100 sessions on one worker over SQLite, then one and two workers
sharing PostgreSQL (one worker alone tells PostgreSQL's cost from the cost of a second process).

Each worker is ``a2ui-runtime serve`` in its own process; sessions are spread over the workers in
turn, as a load balancer would, and play the same turns as ``bench_runtime``'s load (turns per
second and p95 latency, from sending a transcript to the end of its turn). PostgreSQL is a real,
throwaway server started for the run (``tests/runtime/postgres.py``); it is skipped, with the
reason printed, where its binaries are absent.

Prints figures only.
"""

from __future__ import annotations

import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path

from bench.bench_runtime import generate_plugins, load, pick_agent, server
from tests.runtime.postgres import create_database, server_bindir, temporary_postgres

SESSIONS, TURNS = 100, 5


def main(argv: list[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-persistence-") as tmp:
        agent, plugins_dir = pick_agent(generate_plugins(Path(tmp) / "plugins", 1))
        print(f"agent: {agent}; {SESSIONS} sessions x {TURNS} turns")
        sqlite = f"sqlite:{Path(tmp) / 'runtime.sqlite'}"
        with server(plugins_dir, "--storage", sqlite) as running:
            load([running.address], agent, SESSIONS, TURNS, label="1 worker, SQLite:      ")
        if server_bindir() is None:
            print("PostgreSQL: skipped (its server binaries are not installed)")
            return
        with temporary_postgres() as postgres:
            for count in (1, 2):
                url = create_database(postgres)
                with ExitStack() as workers:
                    addresses = [
                        workers.enter_context(server(plugins_dir, "--storage", url)).address
                        for _ in range(count)
                    ]
                    label = f"{count} worker{'s' if count > 1 else ''}, PostgreSQL:"
                    load(addresses, agent, SESSIONS, TURNS, label=f"{label:<23}")


if __name__ == "__main__":
    main(sys.argv[1:])
