"""The screen files: written by the generator, recorded by git blob id, merged on update.

The screens (and ``agent.json``: ``agent_file.py``) are written by the generator, not rendered by
Copier, and ``.copier-answers.yml``
records each as the id git gives the file (``git hash-object``), not its components: the answers
stay a few lines, and the screens are read once in a pull request. The next update's merge needs
the screens as last generated (its base); git has them, by that id, wherever the generated files
were committed. A base git does not have (the generated version was never committed on its own,
or not in this clone's history) is None: the merge then treats every difference as a conflict,
never silently over a hand edit.

On update the three versions of each ``screens/<name>.json`` are merged by component id
(``screens.merge_screen``) and written after Copier has run, conflicts marked for git; Copier is
told to leave these files alone (``SCREEN_FILES``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from generator import gitops
from generator.design import Design
from generator.errors import AgentImportError
from generator.render.screens import Screen, ScreenMerge, format_screen, merge_screen
from runtime.a2ui import InvalidScreenError, load_screens
from runtime.a2ui.validate import ValidationIssue
from runtime.contract.layout import SCREENS_FOLDER

#: What ``copier update`` leaves to this module (relative to the plugin folder).
SCREEN_FILES = f"{SCREENS_FOLDER}/*.json"


def screens_of(design: Design) -> dict[str, Screen]:
    """A design's screens as the files hold them, by name."""
    return {name: screen.model_dump(mode="json") for name, screen in design.screens().items()}


def blob_id(text: str) -> str:
    """The id git gives a file holding ``text`` (``git hash-object``, SHA-1 repositories)."""
    data = text.encode()
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def screen_ids(screens: dict[str, Screen]) -> dict[str, str]:
    """What the answers record of the generated screens: each file's blob id, by name."""
    return {name: blob_id(format_screen(screen)) for name, screen in screens.items()}


def write_screens(folder: Path, screens: dict[str, Screen]) -> None:
    """Write ``screens/<name>.json`` for each screen into a plugin folder."""
    (folder / SCREENS_FOLDER).mkdir(parents=True, exist_ok=True)
    for name, screen in screens.items():
        (folder / SCREENS_FOLDER / f"{name}.json").write_text(
            format_screen(screen), encoding="utf-8"
        )


def generated_screens(root: Path, ids: dict[str, str]) -> dict[str, Screen]:
    """The recorded screens as generated, read from git by blob id; the ones git has."""
    found = {name: generated_file(root, blob) for name, blob in ids.items()}
    return {name: screen for name, screen in found.items() if screen is not None}


def generated_file(root: Path, blob: str) -> dict[str, Any] | None:
    """A generated JSON file as git has it by its recorded blob id; None if git has not."""
    text = gitops.query(root, "cat-file", "blob", blob) if _is_id(blob) else None
    return None if text is None else json.loads(text)


class MergedFile(BaseModel):
    """One generated JSON file's three versions (a screen, ``agent.json``) and their merge."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: Path
    base: Screen | None = Field(description="What the last import generated.")
    ours: str | None = Field(description="The file's text in the repository.")
    theirs: Screen | None = Field(description="What the update generates.")
    merge: ScreenMerge
    hand_edited: bool = Field(description="Both the repository and the update changed it.")

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
) -> list[MergedFile]:
    """Merge every screen of the last and the new design with the plugin's files.

    Nothing is written: an unreadable screen file stops the update before Copier writes.
    """
    return [
        merge_file(root, folder / SCREENS_FOLDER / f"{name}.json", base.get(name), new.get(name))
        for name in sorted({*base, *new})
    ]


def merge_file(
    root: Path,
    path: Path,
    base: dict[str, Any] | None,
    theirs: dict[str, Any] | None,
    *,
    by: str = "the new design",
) -> MergedFile:
    """Merge the file at ``path`` with ``theirs`` against ``base`` (None: no such file on that
    side); ``by`` names what generated ``theirs``. Nothing is written."""
    file = path.relative_to(root).as_posix()
    ours = path.read_text(encoding="utf-8") if path.is_file() else None
    ours_object = parse_screen(ours, file) if ours is not None else None
    return MergedFile(
        path=path,
        base=base,
        ours=ours,
        theirs=theirs,
        merge=merge_screen(base, ours_object, theirs, file=file, by=by),
        hand_edited=ours_object != base and theirs != base,
    )


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
        raise AgentImportError("must hold a JSON object", file=file)
    return screen


def _text(screen: Screen | None) -> str:
    return "" if screen is None else format_screen(screen)


def _is_id(blob: object) -> bool:
    return isinstance(blob, str) and len(blob) == 40 and all(c in "0123456789abcdef" for c in blob)
