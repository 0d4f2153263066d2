"""The audit trail: ``server.audit.event`` payloads go to the log and to a JSON-lines file.

Audit events never reach the client (see ``runtime.turns.outbox``); this is where they go instead.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from pathlib import Path
from typing import IO, Any

from runtime.redaction import redact_values

logger = logging.getLogger(__name__)


class AuditLog:
    """Appends one JSON object per audit event to ``path`` (when given) and logs it."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._file: IO[str] | None = None
        self._lock = threading.Lock()
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._file = path.open("a", encoding="utf-8")

    def record(self, *, session_id: str, plugin_id: str, payload: dict[str, Any]) -> None:
        """Write one entry: ``{ts, sessionId, agentId, event}`` (``agentId``: the plugin id),
        card numbers masked."""
        event = redact_values(payload)
        line = json.dumps(
            {"ts": time.time(), "sessionId": session_id, "agentId": plugin_id, "event": event},
            default=str,
        )
        logger.info("audit: %s", line)
        if self._file is not None:
            with self._lock:
                self._file.write(line + "\n")
                self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
