"""Screen files on update: the three versions of each ``screens/<name>.json``, merged by
``screens.merge_screen`` and written after Copier has run, conflicts marked for git.

``copier update`` is told to leave these files alone (``SCREEN_FILES``): a line merge of two
edits of one component list conflicts for no reason, the merge by component id does not.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from generator import gitops
from generator.errors import AgentImportError
from generator.render.screens import Screen, ScreenMerge, format_screen, merge_screen
from runtime.a2ui import InvalidScreenError, load_screens
from runtime.a2ui.validate import ValidationIssue
from runtime.layout import SCREENS_FOLDER

#: What ``copier update`` leaves to this module (relative to the plugin folder).
SCREEN_FILES = f"{SCREENS_FOLDER}/*.json"


class ScreenFile(BaseModel):
    """One screen file's three versions and their merge."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: Path
    base: Screen | None = Field(description="What the last import generated.")
    ours: str | None = Field(description="The file's text in the repository.")
    theirs: Screen | None = Field(description="What the new design generates.")
    merge: ScreenMerge
    hand_edited: bool = Field(description="Both the repository and the new design changed it.")

    def write(self, root: Path) -> list[ValidationIssue]:
        """Write the merge where it differs from the file (formatting alone is left alone)."""
        text = self.merge.text
        if text is None:
            self.path.unlink(missing_ok=True)
        elif self.merge.conflicts or self.ours is None or json.loads(self.ours) != json.loads(text):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(text, encoding="utf-8")
        if self.merge.conflicts:
            gitops.mark_conflicted(
                root,
                self.path,
                base=_text(self.base),
                ours=self.ours or "",
                theirs=_text(self.theirs),
            )
        return self.merge.conflicts


def merge_screen_files(
    root: Path, folder: Path, base: dict[str, Screen], new: dict[str, Screen]
) -> list[ScreenFile]:
    """Merge every screen of the last and the new design with the plugin's files.

    Nothing is written: an unreadable screen file stops the update before Copier writes.
    """
    merges: list[ScreenFile] = []
    for name in sorted({*base, *new}):
        path = folder / SCREENS_FOLDER / f"{name}.json"
        file = path.relative_to(root).as_posix()
        ours = path.read_text(encoding="utf-8") if path.is_file() else None
        ours_screen = parse_screen(ours, file) if ours is not None else None
        was, theirs = base.get(name), new.get(name)
        merges.append(
            ScreenFile(
                path=path,
                base=was,
                ours=ours,
                theirs=theirs,
                merge=merge_screen(was, ours_screen, theirs, file=file),
                hand_edited=ours_screen != was and theirs != was,
            )
        )
    return merges


def invalid_screens(folder: Path) -> list[ValidationIssue]:
    """The issues of the first invalid screen file, if any (a merge can leave a dangling id)."""
    try:
        load_screens(folder / SCREENS_FOLDER, plugin_id=folder.name)
    except InvalidScreenError as exc:
        return exc.issues
    return []


def parse_screen(text: str, file: str) -> Screen:
    try:
        screen: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise AgentImportError(
            f"not valid JSON ({exc.msg}): resolve it (a conflict left unresolved?) first",
            file=file,
            line=exc.lineno,
        ) from None
    if not isinstance(screen, dict):
        raise AgentImportError("a screen file holds a JSON object", file=file)
    return screen


def _text(screen: Screen | None) -> str:
    return "" if screen is None else format_screen(screen)
