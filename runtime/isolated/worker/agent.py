"""Load the agent's graph the way LangGraph's server does, with the standard library only.

A ``langgraph.json`` spec is ``./path/file.py:name`` (relative to the folder of
``langgraph.json``) or ``package.module:name``; the export is a compiled graph, a ``StateGraph``
or a factory (called with the run's config when it takes an argument). One agent per process,
so its folders simply go on ``sys.path`` (the runtime's in-process loader needs namespaces; this
one does not).
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import inspect
import json
import sys
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, AbstractContextManager, asynccontextmanager
from pathlib import Path
from typing import Any


class LoadError(ImportError):
    """The agent cannot be loaded; the message says which spec and why."""


def load_export(agent_file: Path, root: Path) -> tuple[Any, dict[str, Any]]:
    """The exported graph or factory ``agent_file`` (the plugin's ``agent.json``) names, in the
    vendored source ``root``, and the file's contents."""
    spec = json.loads(agent_file.read_text(encoding="utf-8"))
    root = root.resolve()
    for folder in reversed([root, *(root / p for p in spec.get("python_paths", []))]):
        if str(folder) not in sys.path:
            sys.path.insert(0, str(folder))
    location, _, variable = spec["graph_spec"].rpartition(":")
    if "/" in location or location.endswith(".py"):
        config_dir = Path(spec["config_file"]).parent
        path = (root / config_dir / location).resolve()
        if not path.is_relative_to(root):
            raise LoadError(f"graph file {path} is outside the vendored source {root}")
        module = _load_file(path, root)
    else:
        module = importlib.import_module(location)
    try:
        return vars(module)[variable], spec
    except KeyError:
        raise LoadError(f"{location} has no {variable!r}") from None


def _load_file(path: Path, root: Path) -> Any:
    """A graph file, as the module of its package when it sits in one on ``sys.path``."""
    entries = [Path(entry) for entry in sys.path if entry and Path(entry).is_dir()]
    for entry in entries:
        if path.is_relative_to(entry.resolve()):
            parts = path.relative_to(entry.resolve()).with_suffix("").parts
            packaged = all(
                (entry / Path(*parts[:i]) / "__init__.py").is_file() for i in range(1, len(parts))
            )
            first = next((e for e in entries if _holds(e, parts[0])), None)
            if packaged and all(part.isidentifier() for part in parts) and first == entry:
                return importlib.import_module(".".join(parts))
    name = "agent_graph_" + "_".join(path.relative_to(root).with_suffix("").parts)
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise LoadError(f"cannot load graph file {path}")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    module_spec.loader.exec_module(module)
    return module


def _holds(entry: Path, top: str) -> bool:
    """Whether a top-level ``top`` is found in the ``sys.path`` folder ``entry``: the name
    imports the first one's, so a file of the same name in a later folder is loaded by path."""
    return (entry / f"{top}.py").is_file() or (entry / top).is_dir()


@asynccontextmanager
async def compiled(
    export: Any, config: dict[str, Any], checkpointer: Any, store: Any
) -> AsyncIterator[Any]:
    """The graph for one run, with this run's checkpointer and store. A factory (sync or async)
    is called with the run's config when it takes an argument, as the server calls it; one that
    returns a context manager (``@asynccontextmanager``, sync or async) keeps it open for the
    run."""
    value = export
    if callable(export) and not hasattr(export, "stream") and not _is_builder(export):
        takes = len(inspect.signature(export).parameters)
        value = export(config) if takes else export()
    if isinstance(value, AbstractAsyncContextManager):
        async with value as entered:
            yield _with_storage(entered, checkpointer, store)
    elif isinstance(value, AbstractContextManager):
        with value as entered:
            yield _with_storage(entered, checkpointer, store)
    else:
        if inspect.isawaitable(value):
            value = await value
        yield _with_storage(value, checkpointer, store)


def _is_builder(value: Any) -> bool:
    from langgraph.graph import StateGraph

    return isinstance(value, StateGraph)


def _with_storage(value: Any, checkpointer: Any, store: Any) -> Any:
    """``value`` (a builder or a compiled graph) with this run's checkpointer and store."""
    if _is_builder(value):
        return value.compile(checkpointer=checkpointer, store=store)
    if not hasattr(value, "copy") or not hasattr(value, "astream"):
        raise LoadError(f"the graph export produced {type(value).__name__}, not a graph")
    return value.copy(update={"checkpointer": checkpointer, "store": store})


def build_context(schema: Any, values: dict[str, Any]) -> Any:
    """The graph's ``context_schema`` from its defaults and the values it has fields for."""
    if schema is None:
        return None
    if dataclasses.is_dataclass(schema):
        names = {f.name for f in dataclasses.fields(schema) if f.init}
        factory: Any = schema
        return factory(**{k: v for k, v in values.items() if k in names})
    fields = getattr(schema, "model_fields", None) or getattr(schema, "__fields__", None)
    if fields is not None:
        return schema(**{k: v for k, v in values.items() if k in fields})
    hints = getattr(schema, "__annotations__", {})
    return {k: v for k, v in values.items() if k in hints}
