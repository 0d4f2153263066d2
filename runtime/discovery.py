"""Plugin discovery: every package in the plugins folder is a plugin; nothing to register.

Each sub-package of the plugins folder is imported (its ``__init__.py`` is a cheap manifest), then
its ``plugin.py``, which must define exactly one concrete ``PluginBase`` subclass whose
``plugin_id`` is the folder name; a folder without ``plugin.py`` is never imported, so no code of a
folder that is not a plugin runs in the runtime. A folder that fails any of this is logged (with
its traceback if it raised) and recorded as broken with a one-line reason; the others are served.
Graphs are compiled on first use with the runtime's checkpointer and the plugin's own view of the
runtime's store, and cached.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import logging
import pkgutil
import sys
import threading
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.state import CompiledStateGraph
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore
from pydantic import BaseModel, ConfigDict

import runtime.plugins
from runtime.contract.ids import PLUGIN_ID_PATTERN, is_plugin_folder, is_plugin_id
from runtime.contract.plugin import Capabilities, PluginBase
from runtime.storage.plugin_store import PluginStore

logger = logging.getLogger(__name__)

DEFAULT_PLUGINS_PACKAGE = runtime.plugins.__name__
DEFAULT_PLUGINS_DIR = Path(runtime.plugins.__file__ or "").resolve().parent
REASON_MAX_CHARS = 200

Graph = CompiledStateGraph[Any, Any, Any, Any]


class PluginContractError(Exception):
    """A plugin folder imported fine but does not follow the plugin contract."""


class PluginsReport(BaseModel):
    """What ``GET /plugins`` and ``a2ui-runtime plugins --json`` show."""

    model_config = ConfigDict(extra="forbid")

    plugins: dict[str, Capabilities]
    broken: dict[str, str]


@dataclass
class Registry:
    """The plugins one runtime serves, the folders it could not load, and their compiled graphs."""

    plugins: dict[str, PluginBase]
    broken: dict[str, str]
    checkpointer: BaseCheckpointSaver[str]
    store: BaseStore
    _graphs: dict[str, Graph] = field(default_factory=dict, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def graph(self, plugin_id: str) -> Graph:
        """The plugin's graph compiled with the runtime's checkpointer and the plugin's
        ``PluginStore``; built once, thread-safe."""
        graph = self._graphs.get(plugin_id)
        if graph is None:
            with self._lock:
                graph = self._graphs.get(plugin_id)
                if graph is None:
                    builder = self.plugins[plugin_id].build_graph()
                    graph = builder.compile(
                        checkpointer=self.checkpointer, store=PluginStore(self.store, plugin_id)
                    )
                    self._graphs[plugin_id] = graph
        return graph

    def add(self, plugin_id: str, plugin: PluginBase) -> None:
        """Serve ``plugin`` from now on (a plugin written while the runtime runs)."""
        with self._lock:
            self.plugins[plugin_id] = plugin
            self.broken.pop(plugin_id, None)
            self._graphs.pop(plugin_id, None)

    def report(self) -> PluginsReport:
        return PluginsReport(
            plugins={pid: p.capabilities() for pid, p in sorted(self.plugins.items())},
            broken=dict(sorted(self.broken.items())),
        )


def discover(
    plugins_dir: Path | None = None,
    *,
    checkpointer: BaseCheckpointSaver[str] | None = None,
    store: BaseStore | None = None,
) -> Registry:
    """Load every plugin package in ``plugins_dir`` (default ``runtime/plugins/``)."""
    package, folder = plugins_package(plugins_dir)
    plugins: dict[str, PluginBase] = {}
    broken: dict[str, str] = {}
    for name in sorted(_plugin_folders(folder)):
        try:
            plugins[name] = load_plugin(package, name)
        except PluginContractError as exc:
            logger.error("plugin folder %r is broken and will not be served: %s", name, exc)
            broken[name] = one_line_reason(exc)
        except Exception as exc:
            logger.exception("plugin folder %r failed to import and will not be served", name)
            broken[name] = one_line_reason(exc)
    for name in sorted(_folders_without_init(folder)):
        logger.error("plugin folder %r has no __init__.py and will not be served", name)
        broken[name] = "not a Python package (no __init__.py)"
    return Registry(plugins, broken, checkpointer or InMemorySaver(), store or InMemoryStore())


def plugins_package(plugins_dir: Path | None) -> tuple[str, Path]:
    """The importable package name holding the plugins of ``plugins_dir``, and its folder.

    A folder outside this package gets a synthetic parent package (named after a hash of its path,
    so two folders never collide) so that plugins' relative imports work wherever they live.
    """
    folder = (plugins_dir or DEFAULT_PLUGINS_DIR).resolve()
    if folder == DEFAULT_PLUGINS_DIR:
        return DEFAULT_PLUGINS_PACKAGE, folder
    if not folder.is_dir():
        raise NotADirectoryError(f"plugins directory {folder} does not exist")
    name = "a2ui_plugins_" + hashlib.sha256(str(folder).encode()).hexdigest()[:12]
    if name not in sys.modules:
        package = types.ModuleType(name, f"Plugins discovered in {folder}.")
        package.__path__ = [str(folder)]
        sys.modules[name] = package
    return name, folder


def load_plugin(package: str, name: str) -> PluginBase:
    """Import ``<package>.<name>`` and its ``plugin.py``; return the checked plugin instance.

    ``plugin.py`` is looked for on disk first: importing the package runs its ``__init__.py``,
    which a folder that is no plugin (one dropped into the plugins folder) must never get to do.
    """
    (location,) = importlib.import_module(package).__path__
    if not (Path(location) / name / "plugin.py").is_file():
        raise PluginContractError("the folder has no plugin.py")
    importlib.import_module(f"{package}.{name}")
    module_name = f"{package}.{name}.plugin"
    module = importlib.import_module(module_name)
    classes = [
        obj
        for obj in vars(module).values()
        if inspect.isclass(obj)
        and issubclass(obj, PluginBase)
        and obj.__module__ == module_name
        and not inspect.isabstract(obj)
    ]
    if len(classes) != 1:
        found = ", ".join(c.__name__ for c in classes) or "none"
        raise PluginContractError(
            f"plugin.py must define exactly one concrete PluginBase subclass (found: {found})"
        )
    plugin = classes[0]()
    plugin_id = getattr(plugin, "plugin_id", None)
    if plugin_id != name:
        raise PluginContractError(f"plugin_id {plugin_id!r} must equal the folder name {name!r}")
    if not is_plugin_id(name):
        raise PluginContractError(f"plugin_id {name!r} must match {PLUGIN_ID_PATTERN.pattern}")
    return plugin


def one_line_reason(exc: BaseException) -> str:
    """``Type: first line of the message``, short enough for a listing."""
    if isinstance(exc, PluginContractError):
        text = str(exc)
    elif isinstance(exc, SyntaxError) and exc.filename:
        text = f"SyntaxError: {exc.msg} ({Path(exc.filename).name}:{exc.lineno})"
    else:
        lines = str(exc).strip().splitlines()
        text = f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__
    return text if len(text) <= REASON_MAX_CHARS else text[: REASON_MAX_CHARS - 1] + "…"


def _plugin_folders(folder: Path) -> list[str]:
    return [m.name for m in pkgutil.iter_modules([str(folder)]) if m.ispkg]


def _folders_without_init(folder: Path) -> list[str]:
    """Folders meant as plugins that ``iter_modules`` skips: reported, not silently ignored."""
    return [
        p.name for p in folder.iterdir() if is_plugin_folder(p) and not (p / "__init__.py").exists()
    ]
