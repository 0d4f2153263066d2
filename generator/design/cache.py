"""Model answers kept on disk under their prompt's sha256, so the same question is asked once.

Entries live in ``$AGENT_IMPORT_CACHE_DIR/<kind>/<sha256>.json`` (default
``~/.cache/agent-import``): ``kind`` is ``designs`` or ``mappings``. An entry records the model id
that answered; asking another model is a miss. Entries are only ever written after the answer
passed validation, and callers validate them again on reading (the catalog may have changed since).
A corrupt or unreadable entry is a miss, never an error: the cache only saves money.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

CACHE_DIR_ENV = "AGENT_IMPORT_CACHE_DIR"


def default_cache_dir() -> Path:
    """``$AGENT_IMPORT_CACHE_DIR``, else ``$XDG_CACHE_HOME/agent-import``, else ``~/.cache/...``."""
    if configured := os.environ.get(CACHE_DIR_ENV):
        return Path(configured)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "agent-import"


class AnswerCache:
    """A directory of validated model answers keyed by prompt hash and model id."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root if root is not None else default_cache_dir()

    def path(self, kind: str, sha256: str) -> Path:
        return self.root / kind / f"{sha256}.json"

    def get(self, kind: str, sha256: str, model_id: str) -> dict[str, Any] | None:
        """The stored answer for this prompt from this model, or ``None``."""
        try:
            entry = json.loads(self.path(kind, sha256).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(entry, dict) or entry.get("model_id") != model_id:
            return None
        answer = entry.get("answer")
        return answer if isinstance(answer, dict) else None

    def put(self, kind: str, sha256: str, model_id: str, answer: dict[str, Any]) -> None:
        """Store an answer atomically (a reader never sees half a file); failures are ignored."""
        target = self.path(kind, sha256)
        entry = {"model_id": model_id, "answer": answer}
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            descriptor, temporary = tempfile.mkstemp(dir=target.parent, suffix=".tmp")
        except OSError:
            return
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                json.dump(entry, handle, indent=1, sort_keys=True)
            os.replace(temporary, target)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
