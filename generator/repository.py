"""The repository ``agent-import`` works in: its root, its plugin folders, the plugin-id rule.

Kept free of heavy imports (boto3, Copier, LangGraph) so that commands which only need to find a
plugin stay fast.
"""

from __future__ import annotations

from pathlib import Path

from generator.errors import AgentImportError
from runtime.contract.ids import PLUGIN_ID_PATTERN, is_plugin_folder, is_plugin_id
from runtime.contract.layout import ANSWERS_FILE, PLUGINS_FOLDER

#: agent-import's local folder in the repository (validation environments, the template's own
#: repository): never committed.
LOCAL_FOLDER = Path(".agent-import")


def check_plugin_id(plugin_id: str) -> None:
    """Refuse an id the runtime would not serve (and that could name a path elsewhere)."""
    if not is_plugin_id(plugin_id):
        raise AgentImportError(
            f"plugin id {plugin_id!r} must match {PLUGIN_ID_PATTERN.pattern} "
            "(a lowercase letter, then 1-32 lowercase letters, digits or underscores)"
        )


def find_root(start: Path) -> Path:
    """The repository root: the nearest folder up from ``start`` holding ``copier.yml``."""
    for folder in (start.resolve(), *start.resolve().parents):
        if (folder / "copier.yml").is_file() and (folder / PLUGINS_FOLDER).is_dir():
            return folder
    raise AgentImportError(
        f"no repository with copier.yml and {PLUGINS_FOLDER}/ above {start}: "
        "run agent-import from the runtime's repository"
    )


def plugin_folder(root: Path, plugin_id: str) -> Path:
    """The folder of an imported plugin; refuses an unknown id or a plugin not imported."""
    check_plugin_id(plugin_id)
    plugins = root / PLUGINS_FOLDER
    folder = plugins / plugin_id
    if not folder.is_dir():
        known = (
            ", ".join(p.name for p in sorted(plugins.iterdir()) if is_plugin_folder(p)) or "none"
        )
        raise AgentImportError(f"unknown plugin {plugin_id!r} (plugins: {known})")
    if not (folder / ANSWERS_FILE).is_file():
        raise AgentImportError(
            f"plugin {plugin_id!r} was not imported by agent-import (no {ANSWERS_FILE}): "
            "only imported plugins can be updated"
        )
    return folder


def imported_plugins(root: Path) -> list[str]:
    """The ids of every plugin with an answers file, in order."""
    plugins = root / PLUGINS_FOLDER
    return [p.name for p in sorted(plugins.iterdir()) if (p / ANSWERS_FILE).is_file()]
