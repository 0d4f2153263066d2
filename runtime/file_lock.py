"""An exclusive ``flock`` on a file that is removed when it is released: the one way the runtime's
session locks and the generator's plugin-id claims hold a name across processes.

The kernel drops the lock when its process ends, however it ends, so a file left by a killed
holder blocks nobody. Removing the file on release leaves a race: a process may open the file
just before it is removed, then lock a file no one else will ever open. So a lock counts only
while the path still names the file that was locked; otherwise the path is opened again.
"""

from __future__ import annotations

import fcntl
import os
from contextlib import suppress
from pathlib import Path


def try_lock(path: Path, mode: int = 0o600) -> int | None:
    """A descriptor of ``path`` (created if missing) locked by this process, or ``None`` at once
    if another process holds the lock."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, mode)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        except BaseException:
            os.close(fd)
            raise
        if names(path, fd):
            return fd
        os.close(fd)  # released (removed) since we opened it: open the path again


def unlock(path: Path, fd: int) -> None:
    """Remove ``path`` (while still locked, so a waiter sees its file is stale), then drop the
    lock; a path that names another file by now (removed and locked anew) is left alone."""
    if names(path, fd):
        with suppress(FileNotFoundError):
            path.unlink()
    os.close(fd)


def names(path: Path, fd: int) -> bool:
    """Whether ``path`` still names the file open as ``fd``."""
    try:
        return os.path.samestat(os.stat(path), os.fstat(fd))
    except FileNotFoundError:
        return False
