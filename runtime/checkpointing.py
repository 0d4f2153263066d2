"""The runtime's LangGraph checkpointer: it owns persistence so plugins never choose it.

Sessions are LangGraph threads (thread id = session id). ``memory`` keeps them for the life of the
process; ``sqlite:PATH`` keeps them on disk, so a client that reconnects with its session id after
a restart continues where it was.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver


@contextmanager
def open_checkpointer(sqlite_path: Path | None) -> Iterator[BaseCheckpointSaver[str]]:
    """Yield an in-memory saver, or a SQLite one on ``sqlite_path`` closed on exit."""
    if sqlite_path is None:
        yield InMemorySaver()
        return
    sqlite_path.parent.mkdir(parents=True, exist_ok=True)
    # Graphs run in worker threads; SqliteSaver serialises access with its own lock.
    conn = sqlite3.connect(sqlite_path, check_same_thread=False)
    try:
        saver = SqliteSaver(conn)
        saver.setup()
        yield saver
    finally:
        conn.close()
