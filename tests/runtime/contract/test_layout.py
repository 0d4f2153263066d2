"""``runtime/contract/layout.py`` names a plugin folder's parts once: no other module spells
them."""

from __future__ import annotations

import ast
from pathlib import Path

from runtime.contract import layout

ROOT = Path(__file__).resolve().parents[3]
#: The names layout.py declares (the plugins folder is a path, checked by its parts elsewhere).
NAMES = {value for key, value in vars(layout).items() if key.isupper() and isinstance(value, str)}
#: The same spelling for something else: an agent's own requirements file and ``src/`` layout
#: (what the inspector reads), a scratch file pip is given, the CLI's argument, and the
#: template's question ``screens`` (a key of the recorded answers).
OTHER_MEANINGS = {
    ("generator/dependencies/declared.py", "requirements.txt"),
    ("generator/dependencies/conflicts.py", "requirements.txt"),
    ("generator/dependencies/local_packages.py", "src"),
    ("generator/cli/options.py", "src"),
    ("generator/checks/contract.py", "screens"),
    ("generator/pipeline/update.py", "screens"),
}


def spelt(path: Path, source: str | None = None) -> set[tuple[str, str]]:
    """(file, name) for each layout name ``path`` writes in a string literal, alone or as a part
    of a path (``"screens/x.json"``, or the ``"/agent.json"`` of ``f"{folder}/agent.json"``)."""
    shown = path.relative_to(ROOT).as_posix()
    tree = ast.parse(path.read_text(encoding="utf-8") if source is None else source)
    prose = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}  # docstrings
    return {
        (shown, part)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose
        for part in {node.value, *node.value.split("/")}
        if part in NAMES
    }


def test_layout_names_are_spelt_only_in_the_layout_module() -> None:
    modules = [
        path
        for package in ("generator", "runtime")
        for path in sorted((ROOT / package).rglob("*.py"))
        if path != Path(layout.__file__).resolve()
        and not path.is_relative_to(ROOT / layout.PLUGINS_FOLDER)
    ]

    found = set().union(*(spelt(path) for path in modules))

    assert found == OTHER_MEANINGS


def test_a_name_inside_a_path_or_an_f_string_is_found() -> None:
    source = 'a = f"{folder}/agent.json"\nb = "screens/welcome.json"\nc = "agent.json is read"\n'
    found = spelt(ROOT / "runtime" / "example.py", source)
    assert found == {("runtime/example.py", "agent.json"), ("runtime/example.py", "screens")}
