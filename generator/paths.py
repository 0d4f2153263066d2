"""Paths inside a source tree: the one place that decides whether a path may be read.

Everything the generator reads or copies from an agent's repository goes through ``within`` (or
``resolved_inside``, for what may be skipped), so a ``langgraph.json`` entry like
``../../etc/passwd:x`` or a committed symlink to ``/home/...`` can never make it read outside the
folder that was fetched (docs/architecture.md). ``root`` is always resolved already.
"""

from __future__ import annotations

import os
from pathlib import Path

from generator.errors import AgentImportError
from runtime.serving.quotes import excerpt

#: Folders of a source tree that never hold the agent's own code, by name, so nothing walks,
#: inspects or vendors them: git's data (``.git``), bytecode compiled from the source
#: (``__pycache__``), virtual environments and installed packages (``.venv``, ``venv``,
#: ``site-packages``, ``node_modules``), and tools' caches and environments (``.mypy_cache``,
#: ``.pytest_cache``, ``.ruff_cache``, ``.tox``, ``.nox``). Not ``build``, ``dist`` or ``env``:
#: an agent's own package may have a folder of that name, which vendoring must not drop.
TOOL_FOLDERS = frozenset(
    {
        ".git",
        "__pycache__",
        ".venv",
        "venv",
        "site-packages",
        "node_modules",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
        ".nox",
    }
)


def within(root: Path, relative: str | Path, *, what: str, file: str | None = None) -> Path:
    """Resolve ``relative`` under ``root``; refuse paths or symlinks that leave the tree.

    A NUL is refused first: no file name holds one, and the system calls below would raise
    ``ValueError`` for it. The lexical check catches ``..`` escapes, the resolved check catches
    symlinks (of the file or of any folder on the way) pointing out. ``file`` is where
    ``relative`` was written, named in the error.
    """
    written = Path(relative).as_posix()
    if "\0" in written:
        raise AgentImportError(f"{what} {excerpt(written)} holds a NUL character", file=file)
    lexical = Path(os.path.normpath(root / relative))
    if not is_inside(root, lexical):
        raise AgentImportError(f"{what} {written} leaves the source tree", file=file)
    resolved = lexical.resolve()
    if not is_inside(root, resolved):
        shown = lexical.relative_to(root).as_posix()
        raise AgentImportError(
            f"{what} {shown} is a symlink pointing out of the source tree (to {resolved})",
            file=file,
        )
    return resolved


def is_inside(root: Path, path: Path) -> bool:
    """Whether ``path`` is ``root`` or under it as written (``..`` parts taken into account,
    symlinks not followed: ``resolved_inside`` follows them)."""
    return Path(os.path.normpath(path)).is_relative_to(root)


def resolved_inside(root: Path, path: Path) -> Path | None:
    """``path`` (under ``root``) with its symlinks followed, if it stays in the tree; None when
    it, or a link on the way, leads out."""
    try:
        return within(root, path, what="path")
    except AgentImportError:
        return None


def is_searched_folder(name: str) -> bool:
    """Whether a search of the tree for the project's own files (``langgraph.json``,
    requirement files) enters a folder: not a tool's, and not hidden (editor, CI and tool
    settings, never where a project keeps its configuration)."""
    return not name.startswith(".") and name not in TOOL_FOLDERS


def relative(root: Path, path: Path) -> str:
    """``path`` relative to ``root`` in POSIX form, as shown in reports and JSON."""
    return path.relative_to(root).as_posix()


def find_module(root: Path, folders: list[Path], dotted: str) -> Path | None:
    """Where ``import dotted`` would come from when ``folders`` are on ``sys.path``.

    Returns the module file, the package's ``__init__.py``, or the folder of a namespace
    package; None when no folder has it (then it is a library, or missing).
    """
    bases = [folder.joinpath(*dotted.split(".")) for folder in folders]
    for base in bases:
        for candidate in (base.with_name(base.name + ".py"), base / "__init__.py"):
            if candidate.is_file():
                return within(root, candidate.relative_to(root), what="module")
    for base in bases:  # namespace packages only count when no regular one exists (PEP 420)
        if base.is_dir():
            return within(root, base.relative_to(root), what="package")
    return None
