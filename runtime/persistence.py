"""The runtime's persistence: one LangGraph checkpointer and one LangGraph store, chosen by URL.

Plugins never choose their persistence: the runtime opens both at start-up and compiles every
graph with them. The checkpointer holds sessions (thread id = session id); the store holds what a
plugin keeps *across* sessions (``runtime.store`` in a node, ``get_store()``, a factory's
``ServerRuntime.store``), each plugin in its own namespaces (``runtime.plugin_store``).

* ``memory``: both in this process, gone when it stops;
* ``sqlite:PATH``: both in one SQLite file (the store's tables beside the checkpoints), so a
  session and what a plugin remembered survive a restart;
* ``postgres://...`` or ``postgresql://...``: both in one PostgreSQL database through one
  connection pool, so several runtime processes (workers behind a load balancer) share them.

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
SQLite database, so workers starting together do not race); connections close on exit.
"""

from __future__ import annotations

import asyncio
import fcntl
import logging
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit, urlunsplit

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
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from runtime.savers import P, R, SyncBackedSaver

logger = logging.getLogger(__name__)

MEMORY: Final = "memory"
SQLITE_PREFIX: Final = "sqlite:"
POSTGRES_SCHEMES: Final = ("postgres://", "postgresql://")
#: What ``--checkpointer`` accepts, for error messages.
FORMS: Final = "'memory', 'sqlite:PATH' or 'postgresql://USER@HOST:PORT/DB'"
#: Connections one process keeps to PostgreSQL; graphs run in worker threads and the checkpointer
#: serialises its own use of the pool, so a few are plenty.
POOL_MAX_SIZE: Final = 8
CONNECT_TIMEOUT_S: Final = 10
#: Key of the advisory lock that serialises schema migrations across workers.
MIGRATION_LOCK: Final = 0x6132_7569  # "a2ui"
MIGRATION_POLL_S: Final = 0.1
#: How long a SQLite write waits for another process's to finish before it fails.
SQLITE_BUSY_TIMEOUT_S: Final = 30.0
#: SQLite's name for a database of one connection, in memory.
SQLITE_IN_MEMORY: Final = Path(":memory:")


class PersistenceError(RuntimeError):
    """The checkpointer URL cannot be opened; the message says where and why (no password)."""


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


def waits_on_network(checkpointer: BaseCheckpointSaver[Any]) -> bool:
    """Whether every call of ``checkpointer`` is a round trip to a server (PostgreSQL)."""
    return isinstance(checkpointer, PostgresCheckpointer)


def stores_every_channel(checkpointer: BaseCheckpointSaver[Any]) -> bool:
    """Whether ``checkpointer`` stores every channel's value in each checkpoint (SQLite's), not
    only those with a new version (memory, PostgreSQL, which inline only immutable values)."""
    return isinstance(checkpointer, SqliteSaver)


def check_url(url: str) -> str:
    """``url`` if it names a backend, else ``ValueError`` (never echoing a password)."""
    if url == MEMORY or (url.startswith(SQLITE_PREFIX) and url != SQLITE_PREFIX):
        return url
    if url.startswith(POSTGRES_SCHEMES):
        try:
            conninfo_to_dict(url)
        except psycopg.ProgrammingError:
            raise ValueError(f"checkpointer: not a valid PostgreSQL URL: {redacted(url)}") from None
        return url
    raise ValueError(f"checkpointer must be {FORMS}, not {redacted(url)!r}")


def redacted(url: str) -> str:
    """``url`` fit for a log line: a PostgreSQL password (user info or query) becomes ``***``."""
    if not url.startswith(POSTGRES_SCHEMES):
        return url
    parts = urlsplit(url)
    user, at, host = parts.netloc.rpartition("@")
    if at and ":" in user:
        user = user.split(":", 1)[0] + ":***"
    query = re.sub(r"(^|&)password=[^&]*", r"\1password=***", parts.query)
    return urlunsplit(parts._replace(netloc=f"{user}{at}{host}", query=query))


def sqlite_file(url: str) -> Path | None:
    """The database file of a ``sqlite:`` URL; ``None`` for other URLs and ``sqlite::memory:``."""
    path = Path(url.removeprefix(SQLITE_PREFIX))
    return path if url.startswith(SQLITE_PREFIX) and path != SQLITE_IN_MEMORY else None


def is_shared(url: str) -> bool:
    """Whether processes opening ``url`` see the same sessions (workers need it)."""
    return url.startswith(POSTGRES_SCHEMES) or sqlite_file(url) is not None


def lock_folder(database: Path) -> Path:
    """Where the lock files of a SQLite database live: beside it, as its ``-wal`` file does
    (created if missing, for the schema lock and the session locks alike)."""
    folder = database.with_name(f"{database.name}-locks")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def probe(url: str) -> None:
    """Connect once to a PostgreSQL ``url``: its error says why (refused, no such database...)."""
    if not url.startswith(POSTGRES_SCHEMES):
        return
    try:
        psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT_S).close()
    except psycopg.Error as exc:
        reason = (str(exc).strip() or type(exc).__name__).splitlines()[0]
        raise PersistenceError(
            f"cannot connect to PostgreSQL at {redacted(url)}: {reason}"
        ) from None


@contextmanager
def open_persistence(url: str) -> Iterator[Persistence]:
    """Open the checkpointer and store ``url`` names, set up their schema, close them on exit."""
    check_url(url)
    if url == MEMORY:
        yield Persistence(InMemorySaver(), InMemoryStore())
    elif url.startswith(SQLITE_PREFIX):
        with _sqlite(sqlite_file(url) or SQLITE_IN_MEMORY) as persistence:
            yield persistence
    else:
        with _postgres(url) as persistence:
            yield persistence


@contextmanager
def _sqlite(path: Path) -> Iterator[Persistence]:
    path.parent.mkdir(parents=True, exist_ok=True)
    # Graphs run in worker threads; each saver serialises access to its connection with its own
    # lock, so the checkpointer and the store get a connection each (SqliteStore wants autocommit).
    checkpoints = sqlite3.connect(path, check_same_thread=False, timeout=SQLITE_BUSY_TIMEOUT_S)
    store_conn = sqlite3.connect(
        path, check_same_thread=False, isolation_level=None, timeout=SQLITE_BUSY_TIMEOUT_S
    )
    try:
        saver, store = SqliteCheckpointer(checkpoints), SqliteStore(store_conn)
        with _setup_lock(path):
            saver.setup()
            store.setup()
        yield Persistence(saver, store)
    finally:
        store_conn.close()
        checkpoints.close()


@contextmanager
def _setup_lock(database: Path) -> Iterator[None]:
    """Held while one process migrates the schema: the store's migrations are not idempotent."""
    if database == SQLITE_IN_MEMORY:  # private to this process
        yield
        return
    with (lock_folder(database) / "schema").open("a") as file:
        fcntl.flock(file, fcntl.LOCK_EX)
        yield


@contextmanager
def _postgres(url: str) -> Iterator[Persistence]:
    probe(url)
    pool: ConnectionPool[psycopg.Connection[dict[str, object]]] = ConnectionPool(
        url,
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
            # every running statement to end, including another worker's wait for this lock.
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
