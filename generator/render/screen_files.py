"""The screen files the generator writes, and what the answers file records of them.

The screens are written by the generator, not rendered by Copier, and ``.copier-answers.yml``
records each as the id git gives the file (``git hash-object``), not its components: the answers
stay a few lines, and the screens are read once in a pull request. The next update's merge needs
the screens as last generated (its base); git has them, by that id, wherever the generated files
were committed. A base git does not have (the generated version was never committed on its own,
or not in this clone's history) is None: the merge then treats every difference as a conflict,
never silently over a hand edit.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from generator import gitops
from generator.design import Design
from generator.render.screens import format_screen
from runtime.layout import SCREENS_FOLDER

Screen = dict[str, Any]


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
    found: dict[str, Screen] = {}
    for name, blob in ids.items():
        text = gitops.query(root, "cat-file", "blob", blob) if _is_id(blob) else None
        if text is not None:
            found[name] = json.loads(text)
    return found


def _is_id(blob: object) -> bool:
    return isinstance(blob, str) and len(blob) == 40 and all(c in "0123456789abcdef" for c in blob)
