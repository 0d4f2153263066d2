"""Locks that hold a name across processes, dropped by the kernel when their holder ends.

* ``try_lock``/``unlock``: an exclusive ``flock`` on a file that is removed when it is released,
  for names held now and then (the generator's plugin-id claims, the isolated environments' builds).
* ``try_lock_byte``/``unlock_byte``: a lock on one byte of a file that stays, for names locked
  many times a second (the runtime's session locks): no file is created or removed per lock.

The kernel drops the lock when its process ends, however it ends, so a file left by a killed
holder blocks nobody. Removing the file on release leaves a race: a process may open the file
just before it is removed, then lock a file no one else will ever open. So a lock counts only
while the path still names the file that was locked; otherwise the path is opened again.
"""

from __future__ import annotations

import fcntl
import os
import struct
from contextlib import suppress
from pathlib import Path
from typing import Final


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


#: Linux's ``struct flock`` (type, whence, start, length, pid and padding), for ``F_OFD_SETLK``.
_FLOCK: Final = struct.Struct("hhqqi4x")


def try_lock_byte(fd: int, offset: int) -> bool:
    """Lock the byte at ``offset`` of the file open as ``fd`` (it may lie past the file's end);
    ``False`` at once if another open of the file holds it.

    An open file description lock (``F_OFD_SETLK``), which behaves as ``flock`` does: it keeps
    out every other open of the file, in this process or another, and goes when ``fd`` is
    closed, however its process ends. Where there is none (macOS), a classic record lock: it keeps
    processes apart, not two opens in one process (the runtime opens the file once a process)."""
    try:
        _set_lock(fd, fcntl.F_WRLCK, offset)
    except (BlockingIOError, PermissionError):  # EAGAIN or EACCES: held by another
        return False
    return True


def unlock_byte(fd: int, offset: int) -> None:
    """Give back the byte ``try_lock_byte`` locked."""
    _set_lock(fd, fcntl.F_UNLCK, offset)


def _set_lock(fd: int, kind: int, offset: int) -> None:
    if hasattr(fcntl, "F_OFD_SETLK"):
        fcntl.fcntl(fd, fcntl.F_OFD_SETLK, _FLOCK.pack(kind, os.SEEK_SET, offset, 1, 0))
    else:
        how = fcntl.LOCK_EX | fcntl.LOCK_NB if kind == fcntl.F_WRLCK else fcntl.LOCK_UN
        fcntl.lockf(fd, how, 1, offset)
