"""Log set-up for the runtime: one function, one handler, one place to add filters.

Every log line of the process (the runtime's, uvicorn's, LangGraph's) goes through the single root
handler installed here, so a filter added to it (for example one that redacts card numbers) sees
all of them.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"


def configure_logging(level: str | int = "INFO", *, filters: Sequence[logging.Filter] = ()) -> None:
    """Send every logger to stderr through one handler carrying ``filters``; idempotent."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter(FORMAT))
    for log_filter in filters:
        handler.addFilter(log_filter)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper() if isinstance(level, str) else level)
