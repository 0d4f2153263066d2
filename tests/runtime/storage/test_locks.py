"""Session locks shared by the processes of one database (``runtime.storage.locks``), on the real
backends.

Two ``SessionLock`` objects over two ``open_locks`` of one URL stand for two server processes: each
has its own ``asyncio.Lock``, so only the shared lock can keep them apart (a file's byte lock
excludes two opens of the file in one process as it does two processes; PostgreSQL, two
connections).
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path

import pytest

from runtime.storage.backend import backend
from runtime.storage.locks import SESSIONS_FILE, SessionLock, open_locks

#: Long enough for a waiter that wrongly got in to have got in (a negative check, never timed).
SETTLE_S = 0.1

Scenario = Callable[[SessionLock, SessionLock, SessionLock], Awaitable[None]]


def run(url: str, scenario: Scenario, session_id: str = "s-1") -> None:
    """``scenario`` with one session's lock as three server processes of ``url`` would each see
    it."""

    async def main() -> None:
        async with AsyncExitStack() as stack:
            opened = [await stack.enter_async_context(open_locks(backend(url))) for _ in range(3)]
            first, second, third = (SessionLock(session_id, locks) for locks in opened)
            await scenario(first, second, third)

    asyncio.run(main())


def test_a_server_process_waits_while_another_holds_the_session(shared_storage: str) -> None:
    order: list[str] = []

    async def scenario(first: SessionLock, second: SessionLock, _: SessionLock) -> None:
        async def turn(lock: SessionLock, name: str) -> None:
            async with lock:
                order.append(f"{name} starts")
                await asyncio.sleep(SETTLE_S)
                order.append(f"{name} ends")

        await asyncio.gather(turn(first, "A"), turn(second, "B"))

    run(shared_storage, scenario)
    assert order in (
        ["A starts", "A ends", "B starts", "B ends"],
        ["B starts", "B ends", "A starts", "A ends"],
    )


def test_other_sessions_do_not_wait(shared_storage: str) -> None:
    async def scenario(first: SessionLock, _: SessionLock, __: SessionLock) -> None:
        async with AsyncExitStack() as stack:
            other = await stack.enter_async_context(open_locks(backend(shared_storage)))
            async with first, SessionLock("s-2", other):
                assert first.locked()

    run(shared_storage, scenario)


def test_a_waiter_that_gives_up_leaves_the_session_free(shared_storage: str) -> None:
    async def scenario(first: SessionLock, second: SessionLock, third: SessionLock) -> None:
        async with first:
            waiting = asyncio.ensure_future(second.__aenter__())
            await asyncio.sleep(SETTLE_S)
            assert not waiting.done()
            waiting.cancel()
            with pytest.raises(asyncio.CancelledError):
                await waiting
        assert not second.locked()
        async with third:  # neither the cancelled waiter nor the first server process holds it now
            assert third.locked()

    run(shared_storage, scenario)


@pytest.mark.parametrize("session_id", ["s-1", "..", "../../etc/passwd"])
def test_every_session_locks_a_byte_of_one_file(tmp_path: Path, session_id: str) -> None:
    """No file per session (none to create or remove a turn), and no id ever names a path."""
    database = tmp_path / "runtime.sqlite"

    folder = backend(f"sqlite:{database}").lock_folder()
    assert folder is not None

    async def scenario(first: SessionLock, _: SessionLock, __: SessionLock) -> None:
        async with first:
            assert [path.name for path in folder.iterdir()] == [SESSIONS_FILE]

    run(f"sqlite:{database}", scenario, session_id=session_id)
    assert [path.name for path in folder.iterdir()] == [SESSIONS_FILE]


HOLD_UNTIL_KILLED = """
import asyncio, sys, time
from runtime.storage.backend import backend
from runtime.storage.locks import open_locks

async def main():
    async with open_locks(backend(sys.argv[1])) as locks:
        assert await locks.try_acquire("s-1") is not None
        print("held", flush=True)
        time.sleep(60)

asyncio.run(main())
"""


def test_a_lock_dies_with_the_process_that_held_it(tmp_path: Path) -> None:
    url = f"sqlite:{tmp_path / 'runtime.sqlite'}"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_UNTIL_KILLED, url], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"

        async def try_now() -> bool:
            async with open_locks(backend(url)) as locks:
                held = await locks.try_acquire("s-1")
                if held is not None:
                    await held.release()
                return held is not None

        assert not asyncio.run(try_now())
        holder.kill()
        holder.wait()
        assert asyncio.run(try_now())
    finally:
        holder.kill()
        holder.wait()
