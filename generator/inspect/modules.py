"""The agent's repository as the inspector sees it: files parsed once, imports found on disk.

Each Python file is read and parsed with LibCST at most once per inspection, however many graphs
or imports reach it. Imports are resolved the way the LangGraph server would resolve them, but on
disk only: absolute imports against the config's import roots (``src/`` layouts, local
dependencies) and then the importer's own folder (flat siblings), relative imports by walking up
from the importer. Nothing is ever imported.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path
from typing import TypeVar

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from generator.errors import AgentImportError
from generator.models import Warning_
from generator.paths import find_module, is_inside, relative, within

#: Files above this size are not parsed (generated code, vendored data).
MAX_FILE_BYTES = 2 * 1024 * 1024


N = TypeVar("N", bound=cst.CSTNode)


def find_nodes(tree: cst.CSTNode, *kinds: type[N]) -> list[N]:
    """Every node of ``kinds`` under ``tree`` (itself included), in source order.

    What ``libcst.matchers.findall`` does for plain node types, without importing the matchers
    (a third of a second of the command line's start-up).
    """
    found: list[N] = []

    class Finder(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if isinstance(node, kinds):
                found.append(node)
            return True

    tree.visit(Finder())
    return found


class Module:
    """One parsed file; ``rel`` is its path relative to the source root."""

    def __init__(self, path: Path, rel: str, tree: cst.Module, data: bytes) -> None:
        self.path = path
        self.rel = rel
        self.tree = tree
        self.data = data  # the raw text, for cheap "does it mention X at all" checks
        self._positions: dict[cst.CSTNode, CodeRange] | None = None

    def line(self, node: cst.CSTNode | None) -> int | None:
        """The line ``node`` starts on (positions are computed on first use only)."""
        if node is None:
            return None
        if self._positions is None:
            wrapper = MetadataWrapper(self.tree, unsafe_skip_copy=True)
            self._positions = dict(wrapper.resolve(PositionProvider))
        position = self._positions.get(node)
        return position.start.line if position else None

    def code(self, node: cst.CSTNode) -> str:
        """``node`` as written in the file (whitespace inside it normalised)."""
        return " ".join(self.tree.code_for_node(node).split())

    def shown(self, node: cst.CSTNode) -> str:
        """``node``'s code for a message: quoted with backticks, cut at 60 characters."""
        code = self.code(node)
        return f"`{code if len(code) <= 60 else code[:57] + '...'}`"

    def __repr__(self) -> str:
        return f"Module({self.rel!r})"


class Project:
    """Parsed modules, import resolution and the warnings of one inspection."""

    def __init__(self, root: Path, import_roots: list[Path]) -> None:
        self.root = root
        self.import_roots = import_roots
        self.warnings: list[Warning_] = []
        self._modules: dict[Path, Module] = {}

    def module(self, path: Path) -> Module:
        """The parsed file at ``path`` (already checked to be inside the tree)."""
        cached = self._modules.get(path)
        if cached is not None:
            return cached
        rel = relative(self.root, path)
        data = path.read_bytes()
        if len(data) > MAX_FILE_BYTES:
            raise AgentImportError(f"larger than {MAX_FILE_BYTES // 1024} KB; not parsed", file=rel)
        try:
            tree = cst.parse_module(data)
        except cst.ParserSyntaxError as exc:
            raise _syntax_error(data, rel, exc) from None
        except RecursionError:
            raise AgentImportError("nested too deeply to parse", file=rel) from None
        except Exception as exc:  # LibCST's other rejections of untrusted text, e.g. bad names
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise AgentImportError(f"not valid Python source: {reason}", file=rel) from None
        module = Module(path, rel, tree, data)
        self._modules[path] = module
        return module

    @property
    def modules(self) -> list[Module]:
        """The files parsed so far, in the order they were first read."""
        return list(self._modules.values())

    def find(self, importer: Module, dotted: str, level: int) -> Path | None:
        """The file or namespace folder ``from <level dots><dotted> import ...`` names.

        None means it is not in the repository: a library (or a typo, which the warnings of
        whatever uses it will show).
        """
        if level == 0:
            return find_module(self.root, [*self.import_roots, importer.path.parent], dotted)
        base = importer.path.parent
        for _ in range(level - 1):
            base = base.parent
        if not is_inside(self.root, base):
            return None
        if not dotted:
            init = base / "__init__.py"
            return (
                within(self.root, relative(self.root, init), what="module")
                if init.is_file()
                else base
            )
        return find_module(self.root, [base], dotted)

    def read_optional(self, path: Path) -> str | None:
        """Text of an optional file (README, pyproject...); None if absent or unreadable.

        A symlink pointing out of the tree is skipped with a warning, never followed.
        """
        if not path.is_file():
            return None
        rel = relative(self.root, Path(os.path.normpath(path)))
        try:
            safe = within(self.root, rel, what="file")
            return safe.read_text(encoding="utf-8")
        except AgentImportError as exc:
            self.warn(rel, None, f"{exc}; skipped")
        except (OSError, UnicodeDecodeError):
            self.warn(rel, None, "not readable as UTF-8 text; skipped")
        return None

    def warn(self, module: Module | str, node: cst.CSTNode | None, message: str) -> None:
        """Record something that cannot be known statically, once per place and message."""
        if isinstance(module, Module):
            warning = Warning_(file=module.rel, line=module.line(node), message=message)
        else:
            warning = Warning_(file=module, message=message)
        if warning not in self.warnings:
            self.warnings.append(warning)


def _syntax_error(data: bytes, rel: str, exc: cst.ParserSyntaxError) -> AgentImportError:
    """The error with Python's own line and wording, which are more precise than LibCST's.

    ``ast.parse`` only parses (nothing runs); it is asked only once LibCST has failed.
    """
    try:
        ast.parse(data, filename=rel)
    except SyntaxError as err:
        return AgentImportError(f"syntax error: {err.msg}", file=rel, line=err.lineno)
    except (ValueError, RecursionError, MemoryError):
        pass
    return AgentImportError(f"syntax error: {exc.message}", file=rel, line=exc.raw_line)
