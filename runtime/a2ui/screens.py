"""Screen files: loading a plugin's ``screens/*.json`` and turning a screen into A2UI messages.

A screen file holds ``{"components": [...], "voice_text": "..."}``. Files are validated when loaded
(a broken screen fails loudly, naming file, component and property) and cached by path and file
version (inode, mtime, size), so a node can call ``load_screens`` on every turn; a screen's
components are checked against the catalog once (``Screen.checked_components``), not every time
``screen_events`` shows it.

``runtime.contract.state`` is imported where used: it pulls in LangGraph (about 0.8 s), which
``python -m runtime.a2ui.check``, run by pre-commit hooks, never needs.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from runtime.a2ui.catalog import CATALOG_ID
from runtime.a2ui.models import (
    PROTOCOL_VERSION,
    CreateSurface,
    Screen,
    ServerMessage,
    UpdateComponents,
    UpdateDataModel,
)
from runtime.a2ui.validate import ValidationIssue, validate_screen
from runtime.contract.ids import is_plugin_id
from runtime.contract.layout import SCREENS_FOLDER

if TYPE_CHECKING:
    from runtime.contract.state import ServerEventDict

__all__ = [
    "InvalidScreenError",
    "Screen",
    "create_surface_message",
    "load_screen",
    "load_screens",
    "plugin_id_for",
    "screen_events",
]


class InvalidScreenError(ValueError):
    """A screen file that cannot be served; ``str()`` is one line per issue."""

    def __init__(self, issues: list[ValidationIssue]) -> None:
        super().__init__("\n".join(str(issue) for issue in issues))
        self.issues = issues


def plugin_id_for(path: Path) -> str | None:
    """The plugin a screen file belongs to, by the ``<plugin_id>/screens/<name>.json`` layout."""
    folder = path.parent
    if folder.name == SCREENS_FOLDER and is_plugin_id(folder.parent.name):
        return folder.parent.name
    return None


def load_screen(path: Path, *, plugin_id: str | None = None) -> Screen:
    """One validated screen; ``plugin_id`` defaults to the one the path's layout names.

    Raises:
        InvalidScreenError: the file is unreadable, not JSON, or not a valid screen.
    """
    try:
        stat = path.stat()
    except OSError as exc:
        raise _file_error(path, f"cannot read: {exc.strerror}") from None
    # The file's identity and version, without resolving the path (a system call per folder).
    version = (stat.st_dev, stat.st_ino, stat.st_mtime_ns, stat.st_size)
    return _load_screen(path, version, plugin_id or plugin_id_for(path))


@lru_cache(maxsize=512)
def _load_screen(path: Path, version: tuple[int, int, int, int], plugin_id: str | None) -> Screen:
    """Parse and validate once per file version (``version`` only keys the cache)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise _file_error(path, f"cannot read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise _file_error(path, f"not UTF-8: {exc.reason}") from None
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        raise _file_error(path, f"{where}: invalid JSON: {exc.msg}") from None
    issues = validate_screen(data, plugin_id=plugin_id, file=str(path))
    if issues:
        raise InvalidScreenError(issues)
    return Screen.model_validate(data)


def _file_error(path: Path, message: str) -> InvalidScreenError:
    return InvalidScreenError([ValidationIssue(file=str(path), message=message)])


def load_screens(folder: Path, *, plugin_id: str | None = None) -> dict[str, Screen]:
    """Every ``folder/*.json`` screen by name (file stem), all validated.

    Raises:
        InvalidScreenError: on the first invalid file, with all of its issues.
    """
    return {
        path.stem: load_screen(path, plugin_id=plugin_id) for path in sorted(folder.glob("*.json"))
    }


def create_surface_message(surface_id: str) -> dict[str, Any]:
    """The ``createSurface`` opening ``surface_id`` on our catalog (the runtime sends it once)."""
    return _wire(
        ServerMessage(
            version=PROTOCOL_VERSION,
            createSurface=CreateSurface(surfaceId=surface_id, catalogId=CATALOG_ID),
        )
    )


def screen_events(
    surface_id: str, screen: Screen, data: dict[str, Any] | None = None
) -> list[ServerEventDict]:
    """``server.a2ui.patch`` events showing ``screen`` on ``surface_id``, then ``data`` if given.

    A plugin's main surface id is its plugin_id. The runtime sends ``createSurface`` before the
    first patch a connection sees for a surface, so it is not part of these events.
    """
    from runtime.contract.state import event

    messages = [
        ServerMessage(
            version=PROTOCOL_VERSION,
            updateComponents=UpdateComponents(
                surfaceId=surface_id, components=screen.checked_components
            ),
        )
    ]
    if data is not None:
        messages.append(
            ServerMessage(
                version=PROTOCOL_VERSION,
                updateDataModel=UpdateDataModel(surfaceId=surface_id, path="/", value=data),
            )
        )
    return [event("server.a2ui.patch", **_wire(message)) for message in messages]


def _wire(message: ServerMessage) -> dict[str, Any]:
    return message.model_dump(mode="json", exclude_none=True)
