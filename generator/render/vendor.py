"""Vendor: copy the agent's source into the plugin's ``src/``, exactly what was inspected.

Only what the repository tracks is copied (plus untracked files that are not ignored, which a
dirty local source records as ``source_dirty``); never a tool's folder (``.git``, caches,
virtual environments: ``paths.TOOL_FOLDERS``), nor bytecode. A symlink is copied as the file it
points to when that file is inside the tree (``paths.resolved_inside``), and left out (and
reported) when it points outside or at a folder. The copy is refused past the size limit. The
licence travels with the code: when a sub-folder of a repository is imported and has no licence
of its own, the repository's licence is copied in.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from generator import gitops
from generator.errors import AgentImportError
from generator.fetch import MB, FetchLimits
from generator.models import Source
from generator.paths import TOOL_FOLDERS, resolved_inside

LICENCE_PREFIXES = ("license", "licence", "copying", "notice")
_SKIP_SUFFIXES = (".pyc", ".pyo")


class VendorResult(BaseModel):
    """What was copied into ``src/``."""

    model_config = ConfigDict(extra="forbid")

    files: list[str] = Field(description="Copied files, relative to src/.")
    bytes: int
    licence: str | None = Field(description="The licence file kept, relative to src/.")
    skipped: list[str] = Field(default_factory=list, description="Left out, with the reason.")


def vendor(source: Source, dest: Path, *, max_bytes: int = FetchLimits().max_bytes) -> VendorResult:
    """Copy ``source`` into ``dest`` (created; must not exist)."""
    root = Path(source.path).resolve()
    skipped: list[str] = []
    plan: list[tuple[str, Path]] = []
    for relative in _listed_files(root):
        path = root / relative
        if any(part in TOOL_FOLDERS for part in Path(relative).parts[:-1]):
            continue
        if path.is_symlink():
            target = resolved_inside(root, path)
            if target is None or not target.is_file():
                shown = os.readlink(path)
                skipped.append(f"{relative}: symlink to {shown} (outside the tree or a folder)")
                continue
            path = target
        if path.is_file():
            plan.append((relative, path))
    licence = _own_licence([relative for relative, _ in plan])
    if licence is None and (inherited := _repository_licence(root)) is not None:
        licence = inherited.name
        plan.append((licence, inherited))
    total = sum(path.stat().st_size for _, path in plan)
    if total > max_bytes:
        raise AgentImportError(
            f"the agent's source is {total / MB:.1f} MB, over the {max_bytes / MB:g} MB limit"
        )
    dest.mkdir(parents=True)
    for relative, path in plan:
        target = dest / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    return VendorResult(
        files=sorted(relative for relative, _ in plan),
        bytes=total,
        licence=licence,
        skipped=skipped,
    )


def _listed_files(root: Path) -> list[str]:
    """Files under ``root`` as POSIX paths: git's view when it is a work tree, else a walk."""
    listed = _git_files(root)
    if listed is not None:
        return listed
    found = []
    for folder, dirs, files in os.walk(root):  # does not follow symlinked folders
        dirs[:] = [d for d in dirs if d not in TOOL_FOLDERS]
        for name in files:
            if not name.endswith(_SKIP_SUFFIXES):
                found.append((Path(folder) / name).relative_to(root).as_posix())
    return sorted(found)


def _git_files(root: Path) -> list[str] | None:
    listed = gitops.query_source(
        root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"
    )
    if listed is None:
        return None
    return sorted(
        {name for name in listed.split("\0") if name and not name.endswith(_SKIP_SUFFIXES)}
    )


def _is_licence(name: str) -> bool:
    return name.lower().startswith(LICENCE_PREFIXES)


def _own_licence(relatives: list[str]) -> str | None:
    found = sorted(r for r in relatives if "/" not in r and _is_licence(r))
    return found[0] if found else None


def _repository_licence(root: Path) -> Path | None:
    """The licence at the top of the git repository ``root`` is a sub-folder of, if any."""
    toplevel = gitops.query_source(root, "rev-parse", "--show-toplevel")
    top = Path(toplevel).resolve() if toplevel else root
    if top == root:
        return None
    found = sorted(p for p in top.iterdir() if p.is_file() and _is_licence(p.name))
    return found[0] if found else None
