"""Undeclared imports: third-party modules the agent imports that no requirement provides.

The agent's code is every repository module reachable by imports from its graph files. Each
absolute import that is not a repository module, not the standard library and not guarded by
``except ImportError`` is a third-party module; when neither a declared requirement nor the
runtime's own requirements provide it, a requirement is proposed (shown for approval like any
other): the one the repository's other requirement files declare, else the module's usual
distribution name (``distributions.py``). An optional import whose ``except ImportError`` raises
with a ``pip install X`` hint proposes ``X``. The repository's own projects are never proposed,
nor LangGraph's server packages (``server_packages.py``).
Nothing is imported; module names are read from the source.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Collection
from pathlib import Path

import libcst as cst
from libcst.helpers import get_full_name_for_node
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from generator.dependencies.declared import requirements_file
from generator.dependencies.distributions import (
    HINT_ORIGIN,
    USUAL_NAME,
    distribution,
    is_namespace,
    module_of,
    needs_more_parts,
    pip_install_specs,
)
from generator.dependencies.runtime_packages import provided_distributions, provided_modules
from generator.dependencies.server_packages import is_server_package
from generator.inspect.modules import Module, Project
from generator.models import Dependency
from generator.paths import is_searched_folder

_MAX_FILES = 200


def undeclared(
    project: Project,
    entry_files: list[Path],
    declared: list[Dependency],
    local: Collection[str] = (),
) -> list[Dependency]:
    """A proposed requirement for each imported module that nothing provides, once each; never
    one of the repository's own projects (``local``, canonical names: ``panel_monitoring`` is
    the project ``panel-monitoring``)."""
    provided = {canonicalize_name(d.name) for d in declared} | set(local)
    proposals: dict[str, Dependency] = {}
    others: list[Dependency] | None = None
    for module_name, where in third_party_imports(project, entry_files).items():
        usual = distribution(module_name)
        top = canonicalize_name(module_name.partition(".")[0])
        if usual in provided or top in local or _installed(module_name) or is_server_package(usual):
            continue
        others = _other_requirements(project) if others is None else others
        found = next((d for d in others if canonicalize_name(d.name) == usual), None)
        proposal = found or Dependency(name=usual, spec=usual, origin=USUAL_NAME)
        proposals.setdefault(
            usual, proposal.model_copy(update={"proposed_for": f"{module_name} ({where})"})
        )
    for spec, module_name, where in install_hints(project, entry_files):
        name = canonicalize_name(Requirement(spec).name)
        skip = name in provided or name in proposals or is_server_package(name)
        if skip or _installed(module_name or name):
            continue
        proposals[name] = Dependency(
            name=name,
            spec=spec,
            origin=HINT_ORIGIN,
            proposed_for=f"{module_name or name} ({where}: `pip install {spec}`)",
        )
    return list(proposals.values())


def install_hints(project: Project, entry_files: list[Path]) -> list[tuple[str, str, str]]:
    """``(requirement, guarded module, file:line)`` of each optional import whose ``except
    ImportError`` raises with a ``pip install`` hint: the agent needs it when that code runs."""
    found = []
    for module in reachable_modules(project, entry_files):
        guards = _Guards()
        module.tree.visit(guards)
        found += [
            (spec, name, f"{module.rel}:{module.line(node)}") for spec, name, node in guards.found
        ]
    return found


def reachable_modules(project: Project, entry_files: list[Path]) -> list[Module]:
    """The repository modules the graph files import, directly or not (the agent's code)."""
    queue = [project.module(path) for path in entry_files]
    seen: dict[Path, Module] = {}
    while queue and len(seen) < _MAX_FILES:
        module = queue.pop(0)
        if module.path in seen:
            continue
        seen[module.path] = module
        for dotted, names, level, _ in _imports_of(module):
            found = (project.find(module, t, level) for t in _targets(dotted, names))
            queue += [project.module(path) for path in found if path is not None and path.is_file()]
    return list(seen.values())


def third_party_imports(project: Project, entry_files: list[Path]) -> dict[str, str]:
    """Imported library modules (``google.genai`` for namespaces) -> where first seen."""
    found: dict[str, str] = {}
    for module in reachable_modules(project, entry_files):
        for dotted, names, level, node in _imports_of(module):
            if level or not dotted:
                continue
            if any(project.find(module, t, 0) is not None for t in _targets(dotted, names)):
                continue
            if dotted.partition(".")[0] in sys.stdlib_module_names:
                continue
            paths = [f"{dotted}.{n}" for n in names] if needs_more_parts(dotted) else [dotted]
            for path in paths:
                found.setdefault(module_of(path), f"{module.rel}:{module.line(node)}")
    return found


def _targets(dotted: str, names: list[str]) -> list[str]:
    """What ``from dotted import names`` may load: the module, and each name as a submodule."""
    return [dotted, *(f"{dotted}.{name}".strip(".") for name in names)]


def _imports_of(module: Module) -> list[tuple[str, list[str], int, cst.CSTNode]]:
    collector = _Imports()
    module.tree.visit(collector)
    return collector.found


def _installed(module_name: str) -> bool:
    """The runtime provides it: its distribution, or its top-level module; never by a namespace
    package's top folder (``google`` alone says nothing about which one)."""
    top = module_name.partition(".")[0]
    if distribution(module_name) in provided_distributions():
        return True
    return not is_namespace(top) and module_name in provided_modules()


def _other_requirements(project: Project) -> list[Dependency]:
    """Every requirements file of the repository (``requirements*.txt``), read once."""
    found: list[Dependency] = []
    count = 0
    for folder, dirs, files in os.walk(project.root):
        dirs[:] = sorted(d for d in dirs if is_searched_folder(d))
        for name in sorted(files):
            if name.startswith("requirements") and name.endswith(".txt") and count < _MAX_FILES:
                count += 1
                found += requirements_file(project, Path(folder) / name)
    return found


class _Imports(cst.CSTVisitor):
    """Imports of one module: (dotted, imported names, level, node); optional ones skipped."""

    def __init__(self) -> None:
        self.found: list[tuple[str, list[str], int, cst.CSTNode]] = []
        self._optional = 0

    def visit_Try(self, node: cst.Try) -> None:
        self._optional += _catches_import_error(node)

    def leave_Try(self, original_node: cst.Try) -> None:
        self._optional -= _catches_import_error(original_node)

    def visit_Import(self, node: cst.Import) -> None:
        if not self._optional:
            for alias in node.names:
                self.found.append((get_full_name_for_node(alias.name) or "", [], 0, node))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if self._optional:
            return
        dotted = get_full_name_for_node(node.module) if node.module else ""
        names = (
            []
            if isinstance(node.names, cst.ImportStar)
            else [get_full_name_for_node(alias.name) or "" for alias in node.names]
        )
        self.found.append((dotted or "", names, len(node.relative), node))


def _catches_import_error(node: cst.Try) -> int:
    caught: set[str | None] = set()
    for handler in node.handlers:
        kinds = handler.type.elements if isinstance(handler.type, cst.Tuple) else [handler.type]
        for kind in kinds:
            expr = kind.value if isinstance(kind, cst.Element) else kind
            caught.add(get_full_name_for_node(expr) if expr is not None else "Exception")
    return int(bool(caught & {"ImportError", "ModuleNotFoundError", "Exception"}))


class _Guards(cst.CSTVisitor):
    """``try: import x`` whose ``except ImportError`` raises an error with a ``pip install``
    hint written in the source: (requirement, x, the try statement)."""

    def __init__(self) -> None:
        self.found: list[tuple[str, str, cst.CSTNode]] = []

    def visit_Try(self, node: cst.Try) -> None:
        if not _catches_import_error(node):
            return
        guarded = [
            get_full_name_for_node(name) or ""
            for statement in _statements(node.body)
            for name in (
                [alias.name for alias in statement.names]
                if isinstance(statement, cst.Import)
                else [statement.module]
                if isinstance(statement, cst.ImportFrom) and statement.module is not None
                else []
            )
        ]
        for handler in node.handlers:
            for statement in _statements(handler.body):
                if isinstance(statement, cst.Raise) and statement.exc is not None:
                    specs = pip_install_specs(_text(statement.exc))
                    self.found += [(spec, guarded[0] if guarded else "", node) for spec in specs]


def _statements(block: cst.BaseSuite) -> list[cst.BaseSmallStatement]:
    """The simple statements of an indented block, in order."""
    lines = block.body if isinstance(block, cst.IndentedBlock) else [block]
    return [
        statement
        for line in lines
        if isinstance(line, cst.SimpleStatementLine | cst.SimpleStatementSuite)
        for statement in line.body
    ]


def _text(node: cst.BaseExpression) -> str:
    """The literal text of a raised error's message (the fixed parts of an f-string)."""
    if isinstance(node, cst.Call):
        return " ".join(_text(arg.value) for arg in node.args)
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else ""
    if isinstance(node, cst.ConcatenatedString):
        return _text(node.left) + _text(node.right)
    if isinstance(node, cst.FormattedString):
        return "".join(
            part.value if isinstance(part, cst.FormattedStringText) else " " for part in node.parts
        )
    return ""
