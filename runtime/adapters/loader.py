"""Load an agent's graph from its vendored source the way LangGraph's own server does.

A ``langgraph.json`` graph spec is ``./path/file.py:name`` (a file, relative to the folder of
``langgraph.json``; loaded by path under a private module name) or ``package.module:name`` (an
import). The export is a compiled graph, an uncompiled ``StateGraph`` (compiled here), or a
factory. Factories are called per run, like the server calls them: with no argument, with the
run's config, with a ``ServerRuntime`` (a parameter annotated so), or with both; the result may be
a graph, a coroutine, or a (sync or async) context manager that stays open for the run.

The agent's local dependency folders (``python_paths``) go on ``sys.path`` first, since the agent
was written to be installed. Two agents whose top-level packages share a name cannot live in one
process; that is detected and reported instead of silently running the wrong code.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import re
import sys
import threading
import typing
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AbstractContextManager, asynccontextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph import StateGraph
from langgraph.pregel import Pregel
from langgraph.store.base import BaseStore
from langgraph_sdk.runtime import _ExecutionRuntime

from runtime.adapters.agent import AgentSpec
from runtime.layout import SOURCE_FOLDER

_lock = threading.Lock()


class AgentLoadError(ImportError):
    """The agent's graph cannot be loaded; the message says which spec and why."""


def source_root(folder: Path) -> Path:
    """The plugin's vendored agent source."""
    return (folder / SOURCE_FOLDER).resolve()


def load_export(folder: Path, spec: AgentSpec, *, module_prefix: str) -> Any:
    """Import the module ``spec.graph_spec`` names and return the exported object.

    ``module_prefix`` keeps file-loaded modules of different plugins apart in ``sys.modules``.
    """
    root = source_root(folder)
    location, sep, variable = spec.graph_spec.rpartition(":")
    if not sep or not location or not variable.isidentifier():
        raise AgentLoadError(f"graph spec {spec.graph_spec!r} must be 'path.py:name' or 'mod:name'")
    with _lock:
        _add_paths(root, spec.python_paths)
        before = set(sys.modules)
        if "/" in location or location.endswith(".py"):
            module = _load_file(root, root / spec.config_dir / location, module_prefix)
        else:
            module = importlib.import_module(location)
        _check_clashes(root, spec.python_paths, before)
    try:
        return vars(module)[variable]
    except KeyError:
        graphs = [k for k, v in vars(module).items() if isinstance(v, StateGraph | Pregel)]
        hint = f"; graphs it defines: {', '.join(graphs)}" if graphs else ""
        raise AgentLoadError(f"{location} has no {variable!r}{hint}") from None


def _add_paths(root: Path, paths: list[str]) -> None:
    """Append the agent's folders to ``sys.path``, as an installed package would be."""
    for relative in paths:
        folder = str((root / relative).resolve())
        if folder not in sys.path:
            sys.path.append(folder)


def _check_clashes(root: Path, paths: list[str], before: set[str]) -> None:
    """Refuse an agent whose own top-level module resolved to someone else's code.

    Python has one module namespace: when two imported agents both have a top-level ``utils``,
    the second one gets the first one's. A name of the agent's folders that its code uses
    (imported during this load, or imported by its source) must come from its source.
    """
    names = set().union(*(_top_level_names(root / p) for p in paths)) - sys.stdlib_module_names
    loaded = [m for name, m in list(sys.modules.items()) if name not in before]
    used = {name for name in sys.modules if name not in before} | {
        top for module in loaded if _inside(module, root) for top in _imports(module)
    }
    for name in sorted(names & used):
        module = sys.modules.get(name)
        if module is not None and not _inside(module, root):
            raise AgentLoadError(
                f"the agent's module {name!r} resolved to {getattr(module, '__file__', name)}: "
                "two imported agents (or an agent and an installed package) cannot share a "
                "top-level module name in one runtime"
            )


def _inside(module: ModuleType, root: Path) -> bool:
    where = getattr(module, "__file__", None)
    return where is not None and Path(where).resolve().is_relative_to(root)


def _imports(module: ModuleType) -> set[str]:
    """Top-level names ``module``'s source imports absolutely (anywhere in the file)."""
    try:
        tree = ast.parse(Path(module.__file__ or "").read_bytes())
    except (OSError, SyntaxError, ValueError):
        return set()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.partition(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.partition(".")[0])
    return names


def _top_level_names(folder: Path) -> set[str]:
    """Modules and regular packages directly in ``folder``."""
    if not folder.is_dir():
        return set()
    return {
        entry.stem if entry.suffix == ".py" else entry.name
        for entry in folder.iterdir()
        if (entry.suffix == ".py" and entry.stem.isidentifier())
        or (entry.is_dir() and entry.name.isidentifier() and (entry / "__init__.py").exists())
    }


def _load_file(root: Path, path: Path, module_prefix: str) -> ModuleType:
    path = path.resolve()
    if not path.is_relative_to(root):
        raise AgentLoadError(f"graph file {path} is outside the vendored source {root}")
    relative = path.relative_to(root).with_suffix("")
    name = f"{module_prefix}__" + re.sub(r"\W", "_", "__".join(relative.parts))
    if name in sys.modules:
        return sys.modules[name]
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise AgentLoadError(f"cannot load graph file {path}")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    try:
        module_spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


@asynccontextmanager
async def graph_for_run(
    export: Any, config: RunnableConfig, *, store: BaseStore
) -> AsyncIterator[Pregel[Any, Any]]:
    """The compiled graph for one run of ``export`` (a factory is called as the server would,
    its ``ServerRuntime`` carrying ``store``: the plugin's view of the runtime's store)."""
    value = _call_factory(export, config, store) if _is_factory(export) else export
    if isinstance(value, AbstractAsyncContextManager):
        async with value as entered:
            yield _compiled(entered)
    elif isinstance(value, AbstractContextManager):
        with value as entered:
            yield _compiled(entered)
    elif inspect.isawaitable(value):
        yield _compiled(await value)
    else:
        yield _compiled(value)


def _is_factory(export: Any) -> bool:
    return callable(export) and not isinstance(export, StateGraph | Pregel)


def _compiled(value: Any) -> Pregel[Any, Any]:
    if isinstance(value, StateGraph):
        return value.compile()
    if isinstance(value, Pregel):
        return value
    raise AgentLoadError(f"the graph export produced {type(value).__name__}, not a graph")


def _call_factory(factory: Callable[..., Any], config: RunnableConfig, store: BaseStore) -> Any:
    """Pass ``config`` and/or a ``ServerRuntime`` by the factory's parameters (0, 1 or 2)."""
    params = list(inspect.signature(factory).parameters.values())
    if len(params) > 2:
        raise AgentLoadError(f"graph factory {factory.__name__} takes {len(params)} parameters")
    hints = _hints(factory)
    runtime: _ExecutionRuntime[Any] = _ExecutionRuntime(
        access_context="threads.create_run", store=store
    )
    wants_runtime = [_is_runtime(hints.get(p.name, p.annotation)) for p in params]
    if len(params) == 2 and not any(wants_runtime):
        wants_runtime = [False, True]  # the documented (config, runtime) order
    args = [runtime if is_runtime else config for is_runtime in wants_runtime]
    return factory(*args)


def _hints(factory: Callable[..., Any]) -> dict[str, Any]:
    try:
        return typing.get_type_hints(factory)
    except Exception:  # unresolvable annotations: fall back to what is written
        return {}


def _is_runtime(annotation: Any) -> bool:
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
    return "Runtime" in str(text) or "Runtime" in repr(annotation)
