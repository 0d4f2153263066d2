"""Log set-up for the runtime: one function, one handler, one place to add filters.

Every log line of the process (the runtime's, uvicorn's, LangGraph's) reaches the root handler
installed here, so a filter added to it (for example one that redacts card numbers) sees all of
them.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TextIO

from runtime.redaction import CardNumberFilter

FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"


class RuntimeLogHandler(logging.StreamHandler[TextIO]):
    """The runtime's stderr handler (a class of its own so set-up can replace it, and only it)."""


def configure_logging(level: str | int = "INFO", *, filters: Sequence[logging.Filter] = ()) -> None:
    """Log to stderr through one handler carrying ``filters``; calling it again replaces it."""
    handler = RuntimeLogHandler()
    handler.setFormatter(logging.Formatter(FORMAT))
    handler.addFilter(CardNumberFilter())  # always: no log line may carry a card number
    for log_filter in filters:
        handler.addFilter(log_filter)
    root = logging.getLogger()
    for old in [h for h in root.handlers if isinstance(h, RuntimeLogHandler)]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper() if isinstance(level, str) else level)
