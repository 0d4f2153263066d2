"""``RuntimeContext``: what every session of one server shares, whatever its transport."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from weakref import WeakValueDictionary

from langchain_core.callbacks import BaseCallbackHandler

from runtime.contract.state import ServerEventDict
from runtime.discovery import Registry
from runtime.settings import Settings
from runtime.storage.locks import Locks, ProcessLocks, SessionLock
from runtime.turns.audit import AuditLog


@dataclass(frozen=True)
class RuntimeContext:
    """What every session of one server shares."""

    settings: Settings
    registry: Registry
    audit: AuditLog
    callbacks: list[BaseCallbackHandler]
    #: What makes the server processes sharing this server's database take turns too
    #: (``runtime.storage.locks``).
    locks: Locks = field(default_factory=ProcessLocks)
    #: One lock per live session id: two connections to one session take turns, never race.
    session_locks: WeakValueDictionary[str, SessionLock] = field(
        default_factory=WeakValueDictionary
    )
    #: Model tokens each session has spent (its budget), counted by the turn engine.
    tokens_spent: dict[str, int] = field(default_factory=dict)

    def record_audit(
        self, session_id: str, plugin_id: str, items: Iterable[ServerEventDict]
    ) -> None:
        """Write a turn's ``server.audit.event`` items to the audit log."""
        for item in items:
            self.audit.record(session_id=session_id, plugin_id=plugin_id, payload=item["payload"])

    def session_lock(self, session_id: str) -> SessionLock:
        """The lock every transport holds while it runs a turn of ``session_id``."""
        lock = self.session_locks.get(session_id)
        if lock is None:
            lock = self.session_locks[session_id] = SessionLock(session_id, self.locks)
        return lock
