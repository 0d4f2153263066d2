"""``RuntimeContext``: what every session of one server shares, whatever its transport."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass, field
from weakref import WeakValueDictionary

from langchain_core.callbacks import BaseCallbackHandler

from runtime.audit import AuditLog
from runtime.contracts import ServerEventDict
from runtime.discovery import Registry
from runtime.settings import Settings


@dataclass(frozen=True)
class RuntimeContext:
    """What every session of one server shares."""

    settings: Settings
    registry: Registry
    audit: AuditLog
    callbacks: list[BaseCallbackHandler]
    #: One lock per live session id: two connections to one session take turns, never race.
    session_locks: WeakValueDictionary[str, asyncio.Lock] = field(
        default_factory=WeakValueDictionary
    )
    #: Model tokens each session has spent (its budget), counted by the turn engine.
    tokens_spent: dict[str, int] = field(default_factory=dict)

    def record_audit(
        self, session_id: str, agent_id: str, items: Iterable[ServerEventDict]
    ) -> None:
        """Write a turn's ``server.audit.event`` items to the audit log."""
        for item in items:
            self.audit.record(session_id=session_id, agent_id=agent_id, payload=item["payload"])

    def session_lock(self, session_id: str) -> asyncio.Lock:
        """The lock every transport holds while it runs a turn of ``session_id``."""
        return self.session_locks.setdefault(session_id, asyncio.Lock())
