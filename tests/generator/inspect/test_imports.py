"""The inspector's modules import one another without a cycle, checked on the source (AST only).

A cycle hides anywhere an import can: at module level, inside a function or under
``TYPE_CHECKING``; all of them count. The interpreter (``evaluate``) is handed the modules that
handle graph-building calls instead of importing them, and this keeps it that way. The check is
a function over sources, so it is also tried on a package that has a cycle.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

PACKAGE = "generator.inspect"
FOLDER = Path(__file__).resolve().parents[3].joinpath(*PACKAGE.split("."))

#: A package's modules by dotted name, each with its source.
Sources = Mapping[str, str]


def package_sources(folder: Path = FOLDER, package: str = PACKAGE) -> dict[str, str]:
    """Every module of the package (its ``__init__`` named as the package), never imported."""
    return {
        package if path.stem == "__init__" else f"{package}.{path.stem}": path.read_text()
        for path in sorted(folder.glob("*.py"))
    }


def imported(source: str, module: str, *, is_package: bool) -> Iterator[tuple[str, list[str]]]:
    """Every import of ``source``, at any level: the module named and, for ``from``, the names
    taken from it; relative imports made absolute."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from ((alias.name, []) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".") if is_package else module.split(".")[:-1]
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            yield base, [alias.name for alias in node.names]


def import_graph(sources: Sources, package: str = PACKAGE) -> dict[str, set[str]]:
    """Which of the package's modules each module imports.

    ``from a import b`` imports the module ``a.b`` when there is one, else a name of ``a``; the
    package a submodule implicitly loads first does not count.
    """
    graph: dict[str, set[str]] = {module: set() for module in sources}
    for module, source in sources.items():
        for base, names in imported(source, module, is_package=module == package):
            targets = {f"{base}.{name}" for name in names} & sources.keys()
            takes_a_name = not names or len(targets) < len(names)  # not only submodules
            if base in sources and takes_a_name:
                targets.add(base)
            graph[module] |= targets - {module}
    return graph


def find_cycle(graph: Mapping[str, set[str]]) -> list[str] | None:
    """One import cycle as the modules along it, first repeated last; None if there is none."""
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> list[str] | None:
        if module in path:
            return [*path[path.index(module) :], module]
        if module in done:
            return None
        for target in sorted(graph.get(module, ())):
            cycle = visit(target, [*path, module])
            if cycle is not None:
                return cycle
        done.add(module)
        return None

    for module in sorted(graph):
        cycle = visit(module, [])
        if cycle is not None:
            return cycle
    return None


def test_the_inspector_has_no_import_cycle() -> None:
    graph = import_graph(package_sources())

    cycle = find_cycle(graph)

    assert "generator.inspect.evaluate" in graph  # the sources were found
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_interpreter_imports_no_handler() -> None:
    graph = import_graph(package_sources())

    handlers = {f"{PACKAGE}.{name}" for name in ("builders", "prebuilts", "returns")}

    assert not graph[f"{PACKAGE}.evaluate"] & handlers


def test_a_cycle_through_type_checking_and_function_imports_is_found() -> None:
    sources = {
        "pkg": "from pkg.top import run\n",
        "pkg.top": "from pkg import evaluate\n",
        "pkg.evaluate": "from pkg import builders\n",
        "pkg.builders": (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .values import Value\n"
        ),
        "pkg.values": "def scope():\n    from . import evaluate\n",
    }

    cycle = find_cycle(import_graph(sources, "pkg"))

    assert cycle == ["pkg.evaluate", "pkg.builders", "pkg.values", "pkg.evaluate"]


def test_names_imported_from_the_package_point_at_its_init() -> None:
    sources = {
        "pkg": "from pkg.helper import help\n",
        "pkg.helper": "from pkg import inspect_source\n",
        "pkg.other": "from pkg import helper\n",
    }

    graph = import_graph(sources, "pkg")

    assert graph == {"pkg": {"pkg.helper"}, "pkg.helper": {"pkg"}, "pkg.other": {"pkg.helper"}}
    assert find_cycle(graph) == ["pkg", "pkg.helper", "pkg"]
    assert find_cycle({**graph, "pkg.helper": set()}) is None
