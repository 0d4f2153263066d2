"""``runtime/layout.py`` names a plugin folder's parts once: no other module spells them."""

from __future__ import annotations

import ast
from pathlib import Path

from runtime import layout

ROOT = Path(__file__).resolve().parents[2]
#: The names layout.py declares (the plugins folder is a path, checked by its parts elsewhere).
NAMES = {value for key, value in vars(layout).items() if key.isupper() and isinstance(value, str)}
#: The same spelling for something else: an agent's own requirements file and ``src/`` layout
#: (what the inspector reads), a scratch file pip is given, the CLI's argument, and the
#: template's question ``screens`` (a key of the recorded answers).
OTHER_MEANINGS = {
    ("generator/inspect/deps.py", "requirements.txt"),
    ("generator/validate/conflicts.py", "requirements.txt"),
    ("generator/inspect/local_packages.py", "src"),
    ("generator/cli/options.py", "src"),
    ("generator/checks/contract.py", "screens"),
    ("generator/pipeline/update.py", "screens"),
}


def spelt(path: Path) -> set[tuple[str, str]]:
    """(file, name) for each layout name ``path`` writes as a string literal."""
    shown = path.relative_to(ROOT).as_posix()
    return {
        (shown, node.value)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and node.value in NAMES
    }


def test_layout_names_are_spelt_only_in_the_layout_module() -> None:
    modules = [
        path
        for package in ("generator", "runtime")
        for path in sorted((ROOT / package).rglob("*.py"))
        if path != ROOT / "runtime" / "layout.py"
        and not path.is_relative_to(ROOT / layout.PLUGINS_FOLDER)
    ]

    found = set().union(*(spelt(path) for path in modules))

    assert found == OTHER_MEANINGS
