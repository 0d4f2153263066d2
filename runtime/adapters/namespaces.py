"""One module namespace per imported agent, so agents with the same package names run side by side.

Most LangGraph templates keep their code in a top-level package called ``agent`` (or ``src``,
``app``, ``shared``), and Python has one ``sys.modules``: the second such agent would get the
first one's modules. So each agent's folders (its ``python_paths``) become the ``__path__`` of a
private package, ``<prefix>``, and its modules load as ``<prefix>.agent.graph`` and so on.

Its top-level names are the ones Python would find there first: its modules and regular packages,
and folders without ``__init__.py`` only when nothing installed has their name (a namespace
portion never shadows an installed package). Relative imports work unchanged. The agent's
*absolute* imports of its own top-level names (``from agent.state import State``) are resolved
by an ``__import__`` hook that looks at who is importing: a module inside ``<prefix>`` asking
for one of that agent's top-level names gets ``<prefix>.<name>``; everyone else, and every other
name, gets the ordinary import. Nothing is put on ``sys.path``, so one agent can neither see nor
replace another's modules, and the prefixed names are importable again (the checkpointer's
serializer finds pydantic and dataclass state classes by module name).
"""

from __future__ import annotations

import builtins
import hashlib
import importlib.util
import sys
import threading
import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_lock = threading.Lock()
_original_import = builtins.__import__


@dataclass(frozen=True)
class Namespace:
    """One agent's private package: its name and the top-level names it owns."""

    prefix: str
    folders: tuple[Path, ...]
    names: frozenset[str]

    def module_name(self, path: Path) -> str | None:
        """The dotted name of the file ``path`` inside one of the folders, if it has one and
        that name finds this file: ``graph`` in a second folder is the first folder's
        ``graph.py`` (folders ``01/`` and ``02/`` each holding one), so it has none."""
        for folder in self.folders:
            if path.is_relative_to(folder):
                parts = list(path.relative_to(folder).with_suffix("").parts)
                if parts and parts[-1] == "__init__":
                    parts.pop()
                if parts and all(part.isidentifier() for part in parts):
                    if self._first_holding(parts[0]) != folder:
                        return None
                    return ".".join([self.prefix, *parts])
        return None

    def _first_holding(self, top: str) -> Path | None:
        """The first folder where a top-level ``top`` (module or package) is found."""
        return next(
            (f for f in self.folders if (f / f"{top}.py").is_file() or (f / top).is_dir()), None
        )


_namespaces: dict[str, Namespace] = {}


def namespace(label: str, root: Path, folders: Sequence[Path]) -> Namespace:
    """The namespace of the agent vendored at ``root`` (made once, by root and label)."""
    digest = hashlib.sha256(str(root).encode()).hexdigest()[:10]
    prefix = f"{label}_{digest}"
    with _lock:
        existing = _namespaces.get(prefix)
        if existing is not None:
            return existing
        resolved = tuple(dict.fromkeys(folder.resolve() for folder in folders))
        names = frozenset().union(*(top_level_names(f) for f in resolved))
        made = Namespace(prefix, resolved, names - sys.stdlib_module_names)
        package = types.ModuleType(prefix, f"The imported agent vendored in {root}.")
        package.__path__ = [str(folder) for folder in resolved]
        sys.modules[prefix] = package
        _namespaces[prefix] = made
        if builtins.__import__ is not _namespaced_import:
            builtins.__import__ = _namespaced_import
    return made


def top_level_names(folder: Path) -> set[str]:
    """Modules and packages directly in ``folder`` that are the agent's own, as Python's import
    rules decide: a module or a regular package (``__init__.py``) is found before anything
    installed, a folder without ``__init__.py`` only when nothing installed has the name (a
    ``langgraph/`` folder holding the graph file never hides LangGraph)."""
    if not folder.is_dir():
        return set()
    modules = {
        entry.stem
        for entry in folder.iterdir()
        if entry.is_file() and entry.suffix == ".py" and entry.stem.isidentifier()
    }
    folders = {
        entry.name for entry in folder.iterdir() if entry.is_dir() and entry.name.isidentifier()
    }
    regular = {name for name in folders if (folder / name / "__init__.py").is_file()}
    return modules | regular | {name for name in folders - regular if not _installed(name)}


def _installed(name: str) -> bool:
    """Whether ``name`` is importable without any agent's folders (none is on ``sys.path``)."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def owner(module_name: str) -> Namespace | None:
    """The agent namespace a module belongs to."""
    return _namespaces.get(module_name.partition(".")[0])


def _namespaced_import(
    name: str,
    globals: Mapping[str, Any] | None = None,
    locals: Mapping[str, Any] | None = None,
    fromlist: Sequence[str] | None = (),
    level: int = 0,
) -> types.ModuleType:
    """``__import__``, except that an agent's absolute imports of its own names stay inside it."""
    if level == 0 and globals is not None:
        space = owner(str(globals.get("__name__") or ""))
        top = name.partition(".")[0]
        if space is not None and top in space.names:
            module = _original_import(f"{space.prefix}.{name}", globals, locals, fromlist, 0)
            return module if fromlist else sys.modules[f"{space.prefix}.{top}"]
    return _original_import(name, globals, locals, fromlist, level)
