"""One writer per plugin id, across processes: the claim an import or update takes first.

Two imports of one plugin id at the same moment (two command lines, the import API and a command
line, two server workers) would each find no folder and each move theirs into place, the second
silently replacing the first. So an import (with ``force`` or not) and an update claim the plugin
id before they look at its folder, and hold the claim until they are done with it; whoever comes
second is refused at once, told which process holds it.

The claim is a hidden file in the plugins folder, ``.agent-import-claim-<plugin_id>`` (skipped by
discovery and by the plugin checks, ignored by git), locked with ``runtime.storage.file_lock`` (the
same
lock the runtime's sessions take across workers). The lock, not the file, is the claim: the kernel
drops it when its process ends, however it ends, so a file left by a killed process is taken
over by the next claimant and never blocks anyone. The file records the holder's pid and host,
for the refusal, and is removed on release.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path
from types import TracebackType

from pydantic import BaseModel, ConfigDict, ValidationError

from generator.errors import AgentImportError
from runtime.storage import file_lock

CLAIM_PREFIX = ".agent-import-claim-"
#: More than an ``Owner`` record ever takes.
_OWNER_MAX_BYTES = 4096


class ClaimHeld(AgentImportError):
    """Another process is importing or updating the plugin."""


class Owner(BaseModel):
    """Who holds a claim, as its file records it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pid: int
    host: str


class Claim:
    """The claim of ``plugin_id``, held from construction until ``release()``."""

    def __init__(self, plugins_dir: Path, plugin_id: str) -> None:
        self.path = plugins_dir / (CLAIM_PREFIX + plugin_id)
        self._fd: int | None = _lock(self.path, plugin_id)

    def release(self) -> None:
        """Remove the claim's file and drop the lock; a second call does nothing."""
        if self._fd is None:
            return
        file_lock.unlock(self.path, self._fd)
        self._fd = None

    def __enter__(self) -> Claim:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


def _lock(path: Path, plugin_id: str) -> int:
    """The claim file, open and locked by this process; ``ClaimHeld`` if another one holds it."""
    fd = file_lock.try_lock(path, 0o644)
    if fd is None:
        holder = _owner(path)
        where = f" (pid {holder.pid} on {holder.host})" if holder else ""
        raise ClaimHeld(
            f"plugin {plugin_id!r} is being imported or updated by another process{where}; "
            "wait for it to finish, then try again"
        )
    try:
        record = Owner(pid=os.getpid(), host=socket.gethostname()).model_dump_json()
        os.ftruncate(fd, 0)
        os.pwrite(fd, record.encode(), 0)
    except BaseException:
        file_lock.unlock(path, fd)
        raise
    return fd


def _owner(path: Path) -> Owner | None:
    """Who holds the claim, as its file says (read without the lock: for the message only)."""
    try:
        with path.open("rb") as file:
            return Owner.model_validate_json(file.read(_OWNER_MAX_BYTES))
    except (OSError, ValidationError):  # gone, being written, or not a claim
        return None
