"""Identifier rules shared by the runtime, the generator and the pre-commit hooks.

Kept free of heavy imports: the hooks and the generator's CLI import it on every run. Always test
with ``fullmatch`` (``$`` alone would accept a trailing newline).
"""

from __future__ import annotations

import re
from pathlib import Path

PLUGIN_ID_PATTERN = re.compile(r"^[a-z][a-z0-9_]{1,32}$")
#: A session id (the LangGraph thread id): the WebSocket's ``?sessionId=``, AG-UI's ``threadId``.
SESSION_ID_PATTERN = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
ACTION_NAME_PATTERN = re.compile(rf"^({PLUGIN_ID_PATTERN.pattern[1:-1]})\.([A-Za-z][A-Za-z0-9_]*)$")


def is_plugin_folder(path: Path) -> bool:
    """A folder under ``plugins/`` meant as a plugin: not hidden, not private (``__pycache__``)."""
    return path.is_dir() and not path.name.startswith((".", "_"))


def is_plugin_id(value: str) -> bool:
    """True for a valid plugin id: a lower-case letter, then 1-32 of ``[a-z0-9_]``."""
    return PLUGIN_ID_PATTERN.fullmatch(value) is not None
