"""Paths inside a source tree: the one place that decides whether a path may be read.

Everything the generator reads from an agent's repository goes through ``within``, so a
``langgraph.json`` entry like ``../../etc/passwd:x`` or a committed symlink to ``/home/...`` can
never make it read outside the folder that was fetched (docs/architecture.md).
"""

from __future__ import annotations

import os
from pathlib import Path

from generator.errors import AgentImportError


def within(root: Path, relative: str | Path, *, what: str) -> Path:
    """Resolve ``relative`` under ``root``; refuse paths or symlinks that leave the tree.

    ``root`` must already be resolved. The lexical check catches ``..`` escapes, the resolved
    check catches symlinks (of the file or of any folder on the way) pointing out.
    """
    lexical = Path(os.path.normpath(root / relative))
    if not lexical.is_relative_to(root):
        raise AgentImportError(f"{what} {Path(relative).as_posix()} leaves the source tree")
    resolved = lexical.resolve()
    if not resolved.is_relative_to(root):
        shown = lexical.relative_to(root).as_posix()
        raise AgentImportError(
            f"{what} {shown} is a symlink pointing out of the source tree (to {resolved})"
        )
    return resolved


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
