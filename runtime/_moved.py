"""Import paths of modules that moved, kept working for plugins written against them.

The runtime was grouped by audience (``runtime.contract``, ``storage``, ``turns``, ``serving``,
``testing``). A plugin written before imports ``runtime.plugin``, ``runtime.contracts`` or
``runtime.policy``: each old path is an alias of the module at its new home (the same module
object, so ``isinstance`` and class identity hold), and the first import of an old path logs which
path to use instead. Modules renamed so that each name means one thing (docs/glossary.md) are
aliased too: ``runtime.workers`` (server processes) and ``runtime.adapters.environment`` (the run
context).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import logging
import sys
from types import ModuleType
from typing import Final

logger = logging.getLogger("runtime")

#: Old module path -> where the module lives now.
MOVED: Final[dict[str, str]] = {
    "runtime.ids": "runtime.contract.ids",
    "runtime.layout": "runtime.contract.layout",
    "runtime.plugin": "runtime.contract.plugin",
    "runtime.contracts": "runtime.contract.state",
    "runtime.actions": "runtime.contract.actions",
    "runtime.policy": "runtime.contract.policy",
    "runtime.adapters.agent": "runtime.contract.agent",
    "runtime.persistence": "runtime.storage.persistence",
    "runtime.savers": "runtime.storage.savers",
    "runtime.locks": "runtime.storage.locks",
    "runtime.file_lock": "runtime.storage.file_lock",
    "runtime.plugin_store": "runtime.storage.plugin_store",
    "runtime.context": "runtime.turns.context",
    "runtime.audit": "runtime.turns.audit",
    "runtime.observability": "runtime.turns.observability",
    "runtime.outbox": "runtime.turns.outbox",
    "runtime.server": "runtime.serving.app",
    "runtime.workers": "runtime.serving.processes",
    "runtime.adapters.environment": "runtime.adapters.run_context",
    "runtime.origins": "runtime.serving.origins",
    "runtime.proxies": "runtime.serving.proxies",
    "runtime.web": "runtime.serving.web",
    "runtime.session": "runtime.serving.websocket.session",
    "runtime.wire": "runtime.serving.websocket.wire",
    "runtime.device_tools": "runtime.serving.websocket.device_tools",
    "runtime.agui": "runtime.serving.agui",
    "runtime.quotes": "runtime.serving.quotes",
    "runtime.offline_models": "runtime.testing.offline_models",
    "runtime.client": "runtime.testing.client",
    "runtime.demo": "runtime.testing.demo",
    "runtime.isolated.agent": "runtime.adapters.isolated",
}


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old path and loads it as the module at the new one."""

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def exec_module(self, module: ModuleType) -> None:
        # The import system returns what ``sys.modules`` holds once this returns: the real module.
        new = MOVED[module.__name__]
        logger.warning("%s moved to %s; import it from there", module.__name__, new)
        sys.modules[module.__name__] = importlib.import_module(new)


def install() -> None:
    """Put the alias finder on the import path, once."""
    if not any(isinstance(finder, _Alias) for finder in sys.meta_path):
        sys.meta_path.append(_Alias())
