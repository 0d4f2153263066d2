"""Load an agent's graph from its vendored source the way LangGraph's own server does.

A ``langgraph.json`` graph spec is ``./path/file.py:name`` (a file, relative to the folder of
``langgraph.json``; loaded by path under a private module name) or ``package.module:name`` (an
import). The export is a compiled graph, an uncompiled ``StateGraph`` (compiled here), or a
factory. Factories are called per run, like the server calls them: with no argument, with the
run's config, with a ``ServerRuntime`` (a parameter annotated so), or with both; the result may be
a graph, a coroutine, or a (sync or async) context manager that stays open for the run.

The agent's local dependency folders (``python_paths``) hold its own modules; they load inside a
namespace of the agent's own (``runtime.adapters.namespaces``), so two agents whose top-level
packages share a name (``agent``, ``src``...) run side by side in one process.
"""

from __future__ import annotations

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
from langgraph_sdk.auth.types import BaseUser
from langgraph_sdk.runtime import ServerRuntime, _ExecutionRuntime, _ReadRuntime

from runtime.adapters.namespaces import Namespace, namespace
from runtime.contract.agent import AgentSpec
from runtime.contract.layout import SOURCE_FOLDER

_lock = threading.Lock()


class AgentLoadError(ImportError):
    """The agent's graph cannot be loaded; the message says which spec and why."""


def server_runtime(*, context: Any, user: BaseUser | None, store: BaseStore) -> ServerRuntime[Any]:
    """What the server passes a factory for a run: the run's context, the user and ``store`` (the
    plugin's view of the runtime's store)."""
    return _ExecutionRuntime(
        access_context="threads.create_run", store=store, context=context, user=user
    )


def schema_runtime(store: BaseStore) -> ServerRuntime[Any]:
    """What the server passes a factory when it only reads the graph (its schemas)."""
    return _ReadRuntime(access_context="assistants.read", store=store)


def source_root(folder: Path) -> Path:
    """The plugin's vendored agent source."""
    return (folder / SOURCE_FOLDER).resolve()


def load_export(folder: Path, spec: AgentSpec, *, module_prefix: str) -> Any:
    """Import the module ``spec.graph_spec`` names and return the exported object.

    The agent's modules load under a private package named from ``module_prefix`` (and the
    source's location), which keeps them apart from every other agent's.
    """
    root = source_root(folder)
    location, sep, variable = spec.graph_spec.rpartition(":")
    if not sep or not location or not variable.isidentifier():
        raise AgentLoadError(f"graph spec {spec.graph_spec!r} must be 'path.py:name' or 'mod:name'")
    space = namespace(module_prefix, root, [root / path for path in spec.python_paths])
    with _lock:
        if "/" in location or location.endswith(".py"):
            module = _load_file(root, root / spec.config_dir / location, space)
        elif location.partition(".")[0] in space.names:
            module = importlib.import_module(f"{space.prefix}.{location}")
        else:
            module = importlib.import_module(location)
    try:
        return vars(module)[variable]
    except KeyError:
        graphs = [k for k, v in vars(module).items() if isinstance(v, StateGraph | Pregel)]
        hint = f"; graphs it defines: {', '.join(graphs)}" if graphs else ""
        raise AgentLoadError(f"{location} has no {variable!r}{hint}") from None


def _load_file(root: Path, path: Path, space: Namespace) -> ModuleType:
    """Load a graph file inside the agent's namespace (as its package module when it is in one)."""
    path = path.resolve()
    if not path.is_relative_to(root):
        raise AgentLoadError(f"graph file {path} is outside the vendored source {root}")
    name = space.module_name(path)
    if name is not None:
        return importlib.import_module(name)
    relative = path.relative_to(root).with_suffix("")
    name = f"{space.prefix}.__file__" + re.sub(r"\W", "_", "__".join(relative.parts))
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
    export: Any, config: RunnableConfig, runtime: ServerRuntime[Any]
) -> AsyncIterator[Pregel[Any, Any]]:
    """The compiled graph for one run of ``export`` (a factory is called as the server would,
    with ``config`` and/or ``runtime``)."""
    value = _call_factory(export, config, runtime) if is_factory(export) else export
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


def is_factory(export: Any) -> bool:
    """True for an export that is called to make the graph, rather than a graph."""
    return callable(export) and not isinstance(export, StateGraph | Pregel)


def _compiled(value: Any) -> Pregel[Any, Any]:
    if isinstance(value, StateGraph):
        return value.compile()
    if isinstance(value, Pregel):
        return value
    raise AgentLoadError(f"the graph export produced {type(value).__name__}, not a graph")


def _call_factory(
    factory: Callable[..., Any], config: RunnableConfig, runtime: ServerRuntime[Any]
) -> Any:
    """Pass ``config`` and/or ``runtime`` by the factory's parameters (0, 1 or 2)."""
    params = list(inspect.signature(factory).parameters.values())
    if len(params) > 2:
        raise AgentLoadError(f"graph factory {factory.__name__} takes {len(params)} parameters")
    hints = _hints(factory)
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
