"""The runtime's persistence: one LangGraph checkpointer and one LangGraph store, of one backend.

Plugins never choose their persistence: the runtime opens both at start-up and compiles every
graph with them. The checkpointer holds sessions (thread id = session id); the store holds what a
plugin keeps *across* sessions (``runtime.store`` in a node, ``get_store()``, a factory's
``ServerRuntime.store``), each plugin in its own namespaces (``runtime.storage.plugin_store``).

* memory: both in this process, gone when it stops;
* SQLite: both in one file (the store's tables beside the checkpoints), so a session and what a
  plugin remembered survive a restart;
* PostgreSQL: both in one database through one connection pool, so several runtime processes
  (server processes, on one machine or behind a load balancer) share them.

Which one is the ``Backend``'s decision (``runtime.storage.backend``), made once from the URL.

The SQLite and PostgreSQL savers LangGraph ships for synchronous code have no async methods, yet
imported agents run their graphs with ``ainvoke`` (inside a node, on the runtime's checkpointer):
their async methods here run the synchronous ones in a worker thread.

SQLite runs in WAL mode (LangGraph's ``SqliteSaver`` sets it): readers never wait for the writer,
and writers from several processes (``serve --workers N``) take turns, each waiting up to
``SQLITE_BUSY_TIMEOUT_S`` for the others. A finished turn's writes commit in one transaction
(``write_alone``: all kept, or none), and the turns run on the event loop that finish in one pass
of it in one transaction together (``write_together``): one ``fsync`` for them all, which
otherwise holds up the loop once a turn.

The schema migrations run at start-up (under a PostgreSQL advisory lock, or a file lock beside the
SQLite database, so server processes starting together do not race); connections close on exit.
"""

from __future__ import annotations

import asyncio
import fcntl
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import psycopg
from langgraph.checkpoint.base import (
    BaseCheckpointSaver,
)
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore
from langgraph.store.postgres import PostgresStore
from langgraph.store.sqlite import SqliteStore
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from runtime.storage.backend import SQLITE_IN_MEMORY, Backend
from runtime.storage.savers import P, R, SyncBackedSaver

logger = logging.getLogger(__name__)

#: Connections one process keeps to PostgreSQL; graphs run in worker threads and the checkpointer
#: serialises its own use of the pool, so a few are plenty.
POOL_MAX_SIZE: Final = 8
CONNECT_TIMEOUT_S: Final = 10
#: Key of the advisory lock that serialises schema migrations across server processes.
MIGRATION_LOCK: Final = 0x6132_7569  # "a2ui"
MIGRATION_POLL_S: Final = 0.1
#: How long a SQLite write waits for another process's to finish before it fails.
SQLITE_BUSY_TIMEOUT_S: Final = 30.0


class PersistenceError(RuntimeError):
    """The storage cannot be opened; the message says where and why (no password)."""


class ThreadedAsync(SyncBackedSaver[str]):
    """Mixed into a synchronous saver: its async methods run the synchronous ones in a thread."""

    async def call(self, method: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
        return await asyncio.to_thread(method, *args, **kwargs)


@dataclass
class _Group:
    """A checkpointer's group commit, shared with the copies ``with_allowlist`` makes of it (they
    share its connection and lock too)."""

    waiting: list[tuple[Callable[[], object], asyncio.Future[None]]] = field(default_factory=list)
    #: The thread inside ``_one_transaction``, whose writes commit when it ends.
    owner: int | None = None


class SqliteCheckpointer(ThreadedAsync, SqliteSaver):
    """LangGraph's ``SqliteSaver``, usable from async graphs too, with group commit."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        super().__init__(conn)
        self._group = _Group()

    async def write_together(self, write: Callable[[], object]) -> None:
        """Call ``write`` (on this thread) in one transaction with the others asked for in this
        pass of the event loop; return once it is committed."""
        loop = asyncio.get_running_loop()
        if not self._group.waiting:
            loop.call_soon(self._write_all)
        done = loop.create_future()
        self._group.waiting.append((write, done))
        await done

    def _write_all(self) -> None:
        together, self._group.waiting = self._group.waiting, []
        try:
            with self._one_transaction():
                for write, _ in together:
                    write()
        except Exception:
            # Rolled back: one write's failure is its own, so each is made again alone.
            for write, done in together:
                self._settle_alone(write, done)
            return
        for _, done in together:
            if not done.done():  # its waiter may have been cancelled: the write stands
                done.set_result(None)

    def write_alone(self, write: Callable[[], object]) -> None:
        """Call ``write`` in a transaction of its own: all it writes is kept, or none."""
        with self._one_transaction():
            write()

    def _settle_alone(self, write: Callable[[], object], done: asyncio.Future[None]) -> None:
        """``write_alone``, ``done`` settled with its outcome."""
        try:
            self.write_alone(write)
        except Exception as exc:
            if not done.done():
                done.set_exception(exc)
            else:  # its waiter has left: the turn is lost all the same, so say so
                logger.exception("a finished turn's writes could not be saved")
        else:
            if not done.done():
                done.set_result(None)

    @contextmanager
    def _one_transaction(self) -> Iterator[None]:
        """Every write through ``cursor`` on this thread meanwhile, committed at the end or
        rolled back (a commit that fails too)."""
        with self.lock:
            self._group.owner = threading.get_ident()
            try:
                yield
                self.conn.commit()
            except BaseException:
                self.conn.rollback()
                raise
            finally:
                self._group.owner = None

    @contextmanager
    def cursor(self, transaction: bool = True) -> Iterator[sqlite3.Cursor]:
        """``SqliteSaver``'s, but inside ``_one_transaction`` (which holds the lock) it neither
        takes the lock nor commits."""
        if self._group.owner != threading.get_ident():
            with super().cursor(transaction) as cur:
                yield cur
            return
        cur = self.conn.cursor()
        try:
            yield cur
        finally:
            cur.close()


def write_alone(checkpointer: BaseCheckpointSaver[Any], write: Callable[[], object]) -> None:
    """Call ``write``, a finished turn's writes to ``checkpointer``: on SQLite in one transaction
    (one ``fsync``, and none of it kept if part fails), elsewhere as the saver writes."""
    if isinstance(checkpointer, SqliteCheckpointer):
        checkpointer.write_alone(write)
    else:
        write()


async def write_together(
    checkpointer: BaseCheckpointSaver[Any], write: Callable[[], object]
) -> None:
    """Call ``write``, a finished turn's writes to ``checkpointer``, on the event loop's thread:
    on SQLite in one transaction with the other turns that finish in this pass of the loop."""
    if isinstance(checkpointer, SqliteCheckpointer):
        await checkpointer.write_together(write)
    else:
        write()


class PostgresCheckpointer(ThreadedAsync, PostgresSaver):
    """LangGraph's ``PostgresSaver``, usable from async graphs too."""


@dataclass(frozen=True)
class Persistence:
    """The checkpointer and the store one runtime process uses."""

    checkpointer: BaseCheckpointSaver[str]
    store: BaseStore


def stores_every_channel(checkpointer: BaseCheckpointSaver[Any]) -> bool:
    """Whether ``checkpointer`` stores every channel's value in each checkpoint (SQLite's), not
    only those with a new version. Asked of the saver in hand, which a test or a plugin's
    subgraph may have been given directly: masking depends on it."""
    return isinstance(checkpointer, SqliteSaver)


def probe(storage: Backend) -> None:
    """Connect once to a PostgreSQL backend: its error says why (refused, no such database...)."""
    if storage.kind != "postgres":
        return
    try:
        psycopg.connect(storage.url, connect_timeout=CONNECT_TIMEOUT_S).close()
    except psycopg.Error as exc:
        reason = (str(exc).strip() or type(exc).__name__).splitlines()[0]
        raise PersistenceError(
            f"cannot connect to PostgreSQL at {storage.redacted()}: {reason}"
        ) from None


@contextmanager
def open_persistence(storage: Backend) -> Iterator[Persistence]:
    """Open the checkpointer and store of ``storage``, set up their schema, close them on exit."""
    if storage.kind == "memory":
        yield Persistence(InMemorySaver(), InMemoryStore())
    elif storage.kind == "sqlite":
        with _sqlite(storage.database or SQLITE_IN_MEMORY, storage) as persistence:
            yield persistence
    else:
        with _postgres(storage) as persistence:
            yield persistence


@contextmanager
def _sqlite(path: Path, storage: Backend) -> Iterator[Persistence]:
    path.parent.mkdir(parents=True, exist_ok=True)
    # Graphs run in worker threads; each saver serialises access to its connection with its own
    # lock, so the checkpointer and the store get a connection each (SqliteStore wants autocommit).
    checkpoints = sqlite3.connect(path, check_same_thread=False, timeout=SQLITE_BUSY_TIMEOUT_S)
    store_conn = sqlite3.connect(
        path, check_same_thread=False, isolation_level=None, timeout=SQLITE_BUSY_TIMEOUT_S
    )
    try:
        saver, store = SqliteCheckpointer(checkpoints), SqliteStore(store_conn)
        with _setup_lock(storage):
            saver.setup()
            store.setup()
        yield Persistence(saver, store)
    finally:
        store_conn.close()
        checkpoints.close()


@contextmanager
def _setup_lock(storage: Backend) -> Iterator[None]:
    """Held while one process migrates the schema: the store's migrations are not idempotent."""
    folder = storage.lock_folder()
    if folder is None:  # sqlite::memory: is private to this process
        yield
        return
    with (folder / "schema").open("a") as file:
        fcntl.flock(file, fcntl.LOCK_EX)
        yield


@contextmanager
def _postgres(storage: Backend) -> Iterator[Persistence]:
    probe(storage)
    pool: ConnectionPool[psycopg.Connection[dict[str, object]]] = ConnectionPool(
        storage.url,
        min_size=1,
        max_size=POOL_MAX_SIZE,
        # What both LangGraph savers require of their connections.
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
        open=False,
        name="a2ui-runtime",
    )
    try:
        pool.open(wait=True, timeout=CONNECT_TIMEOUT_S)
        saver, store = PostgresCheckpointer(pool), PostgresStore(pool)
        with pool.connection() as conn:
            # Polled, not waited for: the migrations create indexes CONCURRENTLY, which wait for
            # every running statement to end, including another process's wait for this lock.
            while not _value(conn.execute("SELECT pg_try_advisory_lock(%s)", (MIGRATION_LOCK,))):
                time.sleep(MIGRATION_POLL_S)
            try:
                saver.setup()
                store.setup()
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s)", (MIGRATION_LOCK,))
        yield Persistence(saver, store)
    finally:
        pool.close()


def _value(cursor: psycopg.Cursor[dict[str, Any]]) -> Any:
    """The single value of a one-row, one-column query."""
    row = cursor.fetchone()
    return next(iter(row.values())) if row else None
