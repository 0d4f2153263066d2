"""Serve a freshly written plugin at once: the runtime discovers plugins at start-up only.

The import writes into the repository's ``runtime/plugins/``; when that is the folder this runtime
serves, the new plugin is imported and added to the registry, so ``/ws?agent=<id>`` answers
without a restart. Otherwise (or when it fails to load here) the answer says how to serve it.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from generator.api.guard import ApiError
from generator.errors import AgentImportError
from generator.repository import find_root
from runtime.contract.layout import PLUGINS_FOLDER
from runtime.discovery import Registry, load_plugin, one_line_reason, plugins_package


def import_root(plugins_dir: Path | None) -> Path:
    """The repository the API imports into: the one whose ``runtime/plugins/`` is served."""
    _, folder = plugins_package(plugins_dir)
    try:
        root = find_root(folder)
    except AgentImportError as exc:
        raise ApiError(503, f"imports are unavailable: {exc}") from None
    if (root / PLUGINS_FOLDER).resolve() != folder:
        raise ApiError(
            503,
            f"imports are unavailable: they write into {root / PLUGINS_FOLDER}, "
            f"but this runtime serves {folder}",
        )
    return root


def serve_plugin(registry: Registry, plugins_dir: Path | None, plugin_id: str) -> str | None:
    """Load ``plugin_id`` from the served folder into ``registry``; None, or why it is not live."""
    package, _ = plugins_package(plugins_dir)
    stale = f"{package}.{plugin_id}"
    for name in [m for m in sys.modules if m == stale or m.startswith(stale + ".")]:
        del sys.modules[name]  # a replaced plugin's old modules
    importlib.invalidate_caches()  # the folder is newer than the finders' listings
    try:
        plugin = load_plugin(package, plugin_id)
    except Exception as exc:
        return (
            f"written, but this runtime could not load it ({one_line_reason(exc)}); "
            "restart a2ui-runtime serve to serve it"
        )
    registry.add(plugin_id, plugin)
    return None
