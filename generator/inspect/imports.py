"""Undeclared imports: third-party modules the agent imports that no requirement provides.

The agent's code is every repository module reachable by imports from its graph files. Each
absolute import that is not a repository module, not the standard library and not guarded by
``except ImportError`` is a third-party module; when neither a declared requirement nor the
runtime's own requirements provide it, a requirement is proposed (shown for approval like any
other): the one the repository's other requirement files declare, else the module's usual
distribution name. Nothing is imported; module names are read from the source.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import libcst as cst
from libcst.helpers import get_full_name_for_node
from packaging.utils import canonicalize_name

from generator.inspect.deps import requirements_file
from generator.inspect.modules import Module, Project
from generator.models import Dependency
from generator.paths import is_searched_folder
from generator.runtime_packages import provided_modules

#: Import names whose distribution is not named like them (module -> distribution).
DISTRIBUTIONS = {
    "yaml": "pyyaml",
    "PIL": "pillow",
    "bs4": "beautifulsoup4",
    "dotenv": "python-dotenv",
    "dateutil": "python-dateutil",
    "sklearn": "scikit-learn",
    "cv2": "opencv-python",
    "googleapiclient": "google-api-python-client",
    "google_auth_oauthlib": "google-auth-oauthlib",
    "jwt": "pyjwt",
    "docx": "python-docx",
    "pptx": "python-pptx",
    "fitz": "pymupdf",
    "attr": "attrs",
    "magic": "python-magic",
    "serpapi": "google-search-results",
    "tavily": "tavily-python",
    "pkg_resources": "setuptools",
    "Crypto": "pycryptodome",
    "git": "gitpython",
    "github": "pygithub",
    "psycopg2": "psycopg2-binary",
    "duckduckgo_search": "duckduckgo-search",
    "google.genai": "google-genai",
    "google.generativeai": "google-generativeai",
}
#: Packages shared by several distributions: the first two name parts identify the module.
_NAMESPACES = frozenset({"google", "azure"})
_MAX_FILES = 200


def undeclared(
    project: Project, entry_files: list[Path], declared: list[Dependency]
) -> list[Dependency]:
    """A proposed requirement for each imported module that nothing provides, once each."""
    provided = {canonicalize_name(d.name) for d in declared}
    installed = provided_modules()
    proposals: dict[str, Dependency] = {}
    others: list[Dependency] | None = None
    for module_name, where in third_party_imports(project, entry_files).items():
        if _distribution(module_name) in provided or _installed(module_name, installed):
            continue
        others = _other_requirements(project) if others is None else others
        usual = _distribution(module_name)
        found = next((d for d in others if canonicalize_name(d.name) == usual), None)
        proposal = found or Dependency(name=usual, spec=usual, origin="usual distribution name")
        proposals.setdefault(
            usual, proposal.model_copy(update={"proposed_for": f"{module_name} ({where})"})
        )
    return list(proposals.values())


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
            name = _module_name(dotted)
            if name.partition(".")[0] not in sys.stdlib_module_names:
                found.setdefault(name, f"{module.rel}:{module.line(node)}")
    return found


def _targets(dotted: str, names: list[str]) -> list[str]:
    """What ``from dotted import names`` may load: the module, and each name as a submodule."""
    return [dotted, *(f"{dotted}.{name}".strip(".") for name in names)]


def _imports_of(module: Module) -> list[tuple[str, list[str], int, cst.CSTNode]]:
    collector = _Imports()
    module.tree.visit(collector)
    return collector.found


def _installed(module_name: str, installed: frozenset[str]) -> bool:
    """The runtime provides it: by top-level name; never a namespace package's part
    (``google.genai``), since ``google`` alone says nothing about which one."""
    return module_name.partition(".")[0] not in _NAMESPACES and module_name in installed


def _module_name(dotted: str) -> str:
    parts = dotted.split(".")
    return ".".join(parts[:2]) if parts[0] in _NAMESPACES and len(parts) > 1 else parts[0]


def _distribution(module_name: str) -> str:
    return canonicalize_name(DISTRIBUTIONS.get(module_name, module_name.replace(".", "-")))


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
