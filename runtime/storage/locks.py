"""Session locks: one turn of a session at a time, in one process or across server processes.

Every transport holds its session's lock around a turn (``TurnEngine.lock``). In one process an
``asyncio.Lock`` is enough; server processes sharing a database (``serve --workers N``) also take a
lock the others see, chosen by the storage ``Backend``:

* ``memory``: nothing more (its sessions live in one process, so ``--workers`` refuses it);
* ``sqlite:PATH``: a lock on one byte of the file ``PATH-locks/sessions``, at an offset named by a
  hash of the session id (``file_lock.try_lock_byte``); each process opens the file once, so a
  turn creates and removes no file (that cost a turn about 0.2 ms of a filesystem's journal);
* PostgreSQL: a session-level advisory lock on a hash of the session id, taken on one connection
  per process (the pool's connections come and go; an advisory lock belongs to one connection).

The ``asyncio.Lock`` stays in front: however many connections of a process queue for one session,
only one of them asks for the shared lock. That one tries without waiting; when another process
holds the session, it tries again after a short, growing pause (at most ``RETRY_MAX_S``) rather
than block: a thread blocked on a file lock or a connection blocked in ``pg_advisory_lock``
cannot be called back when its client leaves, and would take the lock later for no one. Nothing
here blocks the event loop: the byte lock returns at once, PostgreSQL is asked asynchronously.

A lock dies with its holder: the kernel releases a dead process's file locks, the server a closed
connection's advisory locks.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Protocol

import psycopg
from psycopg.rows import TupleRow

from runtime.storage import file_lock
from runtime.storage.backend import Backend
from runtime.storage.persistence import CONNECT_TIMEOUT_S

logger = logging.getLogger(__name__)

#: The first pause before trying a lock another process holds again, and the longest one.
RETRY_FIRST_S: Final = 0.002
RETRY_MAX_S: Final = 0.05
#: First key of the runtime's advisory locks (the second is the session's hash): PostgreSQL keeps
#: two-key locks apart from one-key ones such as the schema migrations' lock.
ADVISORY_CLASS: Final = 0x6132  # "a2"
#: The file in a SQLite database's lock folder whose bytes are its sessions' locks.
SESSIONS_FILE: Final = "sessions"
TRY_LOCK: Final = "SELECT pg_try_advisory_lock(%s::integer, %s::integer)"
UNLOCK: Final = "SELECT pg_advisory_unlock(%s::integer, %s::integer)"


class Held(Protocol):
    """A shared lock this process holds."""

    async def release(self) -> None: ...


class Locks(Protocol):
    """The locks the server processes of one database share."""

    async def try_acquire(self, session_id: str) -> Held | None:
        """The session's lock if no other process holds it, else ``None`` (never waits)."""
        ...


class ProcessLocks:
    """One process alone: the ``asyncio.Lock`` in front is the whole lock; nothing is held."""

    async def try_acquire(self, session_id: str) -> Held | None:
        return self

    async def release(self) -> None:
        return None


class SessionLock:
    """One session's lock, shared by every connection of a process to that session: ``async with``
    around a turn; ``locked()`` while someone holds it (or waits for the other processes)."""

    def __init__(self, session_id: str, locks: Locks) -> None:
        self.session_id = session_id
        self._locks = locks
        self._local = asyncio.Lock()
        self._held: Held | None = None

    def locked(self) -> bool:
        return self._local.locked()

    async def __aenter__(self) -> None:
        await self._local.acquire()
        try:
            self._held = await self._shared()
        except BaseException:
            self._local.release()
            raise

    async def __aexit__(self, *exc_info: object) -> None:
        held, self._held = self._held, None
        try:
            if held is not None:
                await held.release()
        finally:
            self._local.release()

    async def _shared(self) -> Held:
        pause = RETRY_FIRST_S
        while (held := await self._locks.try_acquire(self.session_id)) is None:
            await asyncio.sleep(pause)
            pause = min(2 * pause, RETRY_MAX_S)
        return held


def _digest(session_id: str) -> bytes:
    """A session id as a key of fixed size, safe as a file name (an id may be ``..``)."""
    return hashlib.blake2b(session_id.encode(), digest_size=16).digest()


class FileLocks:
    """A byte of ``<folder>/sessions`` per session, at the offset a hash of its id names."""

    def __init__(self, folder: Path) -> None:
        self._fd = os.open(folder / SESSIONS_FILE, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)

    async def try_acquire(self, session_id: str) -> Held | None:
        # 56 bits: far from colliding, and within any file offset (the byte need not exist).
        offset = int.from_bytes(_digest(session_id)[:7], "big")
        if not file_lock.try_lock_byte(self._fd, offset):
            return None
        return _LockedByte(self._fd, offset)

    def close(self) -> None:
        os.close(self._fd)


@dataclass(frozen=True)
class _LockedByte:
    fd: int
    offset: int

    async def release(self) -> None:
        file_lock.unlock_byte(self.fd, self.offset)


class PostgresLocks:
    """Advisory locks on one connection of this process, opened again if it breaks."""

    def __init__(self, url: str) -> None:
        self._url = url
        self._connection: psycopg.AsyncConnection[TupleRow] | None = None
        self._connecting = asyncio.Lock()
        #: Locks being given back after their taker was cancelled (kept: tasks need an owner).
        self._undoing: set[asyncio.Task[None]] = set()

    async def try_acquire(self, session_id: str) -> Held | None:
        key = int.from_bytes(_digest(session_id)[:4], "big", signed=True)
        # Shielded: a query cancelled in flight may have taken the lock all the same; it must be
        # given back, not left to this connection for the rest of its life.
        attempt = asyncio.ensure_future(self._ask(TRY_LOCK, key))
        try:
            taken = await asyncio.shield(attempt)
        except asyncio.CancelledError:
            attempt.add_done_callback(lambda done: self._undo(done, key))
            raise
        return _AdvisoryLock(self, key) if taken else None

    async def release(self, key: int) -> None:
        await asyncio.shield(self._ask(UNLOCK, key))

    def _undo(self, attempt: asyncio.Future[bool], key: int) -> None:
        if not attempt.cancelled() and attempt.exception() is None and attempt.result():
            task = asyncio.ensure_future(self.release(key))
            self._undoing.add(task)
            task.add_done_callback(self._undoing.discard)

    async def _ask(self, query: str, key: int) -> bool:
        connection = await self._connect()
        cursor = await connection.execute(query, (ADVISORY_CLASS, key))
        row = await cursor.fetchone()
        return bool(row and row[0])

    async def _connect(self) -> psycopg.AsyncConnection[TupleRow]:
        async with self._connecting:
            if self._connection is None or self._connection.closed:
                if self._connection is not None:  # its locks went with it, on the server's side
                    logger.warning("session lock connection to PostgreSQL lost; reconnecting")
                self._connection = await psycopg.AsyncConnection.connect(
                    self._url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S
                )
            return self._connection

    async def close(self) -> None:
        if self._connection is not None:
            await self._connection.close()


@dataclass(frozen=True)
class _AdvisoryLock:
    locks: PostgresLocks
    key: int

    async def release(self) -> None:
        await self.locks.release(self.key)


@asynccontextmanager
async def open_locks(storage: Backend) -> AsyncIterator[Locks]:
    """The session locks of ``storage``; closed on exit."""
    if storage.kind == "postgres":
        locks = PostgresLocks(storage.url)
        try:
            yield locks
        finally:
            await locks.close()
        return
    folder = storage.lock_folder()
    if folder is None:
        yield ProcessLocks()
        return
    file_locks = FileLocks(folder)
    try:
        yield file_locks
    finally:
        file_locks.close()
