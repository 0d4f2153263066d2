"""The one error type every pipeline step raises for bad input.

The CLI prints ``agent-import: error: <message>`` on one line and exits 1; anything else
escaping a step is a bug and keeps its traceback.
"""

from __future__ import annotations


class AgentImportError(Exception):
    """A problem with the user's input or environment, explained in one line."""

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None) -> None:
        self.file = file
        self.line = line
        where = f"{file}:{line}: " if file and line else f"{file}: " if file else ""
        super().__init__(f"{where}{message}")
