"""``plugin-contract PATH...``: the static contract of every plugin folder the paths are in.

Static on purpose: nothing of a plugin is imported or run, so the hook is quick and safe on any
commit (the ``plugins`` nox session imports and runs them). Every plugin folder must have:

* a folder name that is a plugin id (``runtime.contract.ids.PLUGIN_ID_PATTERN``);
* ``__init__.py`` (the manifest) and ``plugin.py``;
* in ``plugin.py``, exactly one leaf class deriving from ``runtime.contract.plugin.PluginBase``
(followed
  through this package's own modules, read as source), whose ``plugin_id`` is the folder name:
  a string, or a name the manifest (or ``plugin.py``) sets to one.

**Imported plugins** must also keep what ``copier update`` and ``agent-import update`` need. A
folder holding ``.copier-answers.yml`` or ``agent.json`` is an imported plugin, so deleting either
alone is caught. It needs ``.copier-answers.yml`` with Copier's ``_src_path`` and ``_commit``, a
``plugin_id`` that is the folder name, a ``strategy`` the template knows, a full
``source_commit``, and ``agent_file`` and ``screens`` recording ``agent.json`` and each screen
file by its git blob id as generated (the base of the next update's merge); an ``agent.json`` the
runtime reads (``runtime.contract.agent.AgentSpec``: data, checked without running anything);
``requirements.txt`` and the vendored ``src/``. The answers and ``agent.json`` share no value, so
there is nothing to keep in agreement between them. The offline smoke test is not part of the
folder: ``plugins`` runs it on every plugin. Hand-written plugins (``mortgage``, ``lost_card``)
have neither file.

A path belongs to the plugin folder named by the segment after its first ``plugins`` segment
(``runtime/plugins/<id>/...``); other paths, and folders starting with ``.`` or ``_``, are skipped.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Any, get_args

import yaml

import runtime
from runtime.contract.agent import AgentFileError, load_agent_spec
from runtime.contract.ids import PLUGIN_ID_PATTERN, is_plugin_folder, is_plugin_id
from runtime.contract.layout import (
    AGENT_FILE,
    ANSWERS_FILE,
    REQUIREMENTS_FILE,
    SCREENS_FOLDER,
    SOURCE_FOLDER,
    Strategy,
)

PLUGINS_SEGMENT = "plugins"
MANIFEST = "__init__.py"
PLUGIN_MODULE = "plugin.py"
#: What an imported plugin needs besides the answers file.
IMPORTED_PATHS = (AGENT_FILE, REQUIREMENTS_FILE, f"{SOURCE_FOLDER}/")
STRATEGIES = get_args(Strategy)
PLUGIN_BASE = ("runtime.contract.plugin", "PluginBase")
#: Modules whose source is followed to find a class's bases: this package's own.
FOLLOWED_PACKAGE = "runtime"
MAX_DEPTH = 20
_SHA = re.compile(r"[0-9a-f]{40}")

Ref = tuple[str, str]  # (module, name)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="plugin-contract", description="Check the static plugin contract of plugin folders."
    )
    parser.add_argument("paths", nargs="*", type=Path, metavar="PATH")
    args = parser.parse_args(argv)
    problems = [problem for folder in plugin_folders(args.paths) for problem in check(folder)]
    for problem in problems:
        print(problem)
    return 1 if problems else 0


def plugin_folders(paths: Sequence[Path]) -> list[Path]:
    """The plugin folders ``paths`` are in (or are), each once, in order."""
    folders: dict[Path, None] = {}
    for path in paths:
        parts = path.parts
        if PLUGINS_SEGMENT not in parts[:-1]:
            continue
        index = parts.index(PLUGINS_SEGMENT)
        folder = Path(*parts[: index + 2])
        if is_plugin_folder(folder):
            folders[folder] = None
    return list(folders)


def check(folder: Path) -> list[str]:
    """Every contract problem of one plugin folder, one line each, naming the file."""
    problems = list(_plugin_problems(folder))
    if (folder / ANSWERS_FILE).exists() or (folder / AGENT_FILE).exists():
        problems += _imported_problems(folder)
    return problems


def _plugin_problems(folder: Path) -> Iterator[str]:
    if not is_plugin_id(folder.name):
        pattern = PLUGIN_ID_PATTERN.pattern
        yield f"{folder}: folder name {folder.name!r} is not a plugin id ({pattern})"
    for name in (MANIFEST, PLUGIN_MODULE):
        if not (folder / name).is_file():
            yield f"{folder / name}: missing (a plugin has {MANIFEST} and {PLUGIN_MODULE})"
    if not (folder / PLUGIN_MODULE).is_file():
        return
    plugin = _Module(folder / PLUGIN_MODULE)
    try:
        plugin.tree  # noqa: B018 - parse now, to report a syntax error with its line
    except SyntaxError as exc:
        yield f"{plugin.path}:{exc.lineno}: syntax error: {exc.msg}"
        return
    except (OSError, UnicodeDecodeError) as exc:
        yield f"{plugin.path}: cannot be read: {exc}"
        return
    leaves = plugin.plugin_classes()
    if len(leaves) != 1:
        found = ", ".join(c.name for c in leaves) or "none"
        yield f"{plugin.path}: must define exactly one PluginBase subclass (found: {found})"
        return
    cls = leaves[0]
    plugin_id = plugin.plugin_id(cls, _module(folder / MANIFEST), package=folder.name)
    where = f"{plugin.path}:{cls.lineno}: class {cls.name}"
    if plugin_id is None:
        yield (
            f"{where}: plugin_id cannot be read statically; set it to a string, or to PLUGIN_ID "
            f"from {MANIFEST}"
        )
    elif plugin_id != folder.name:
        yield f"{where}: plugin_id {plugin_id!r} must equal the folder name {folder.name!r}"


def _imported_problems(folder: Path) -> Iterator[str]:
    """What ``copier update`` and ``agent-import update`` need of an imported plugin."""
    for name in IMPORTED_PATHS:
        if not (folder / name).exists():
            yield f"{folder / name}: missing (an imported plugin keeps it)"
    if (folder / AGENT_FILE).is_file():
        try:
            load_agent_spec(folder)
        except AgentFileError as exc:
            yield str(exc)
    path = folder / ANSWERS_FILE
    if not path.is_file():
        yield (
            f"{path}: missing: an imported plugin keeps the answers it was rendered from "
            "(agent-import update and copier update need them)"
        )
        return
    try:
        answers = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        yield f"{path}: cannot be read: {str(exc).splitlines()[0]}"
        return
    if not isinstance(answers, dict):
        yield f"{path}: must be a YAML mapping"
        return
    yield from _answers_problems(path, answers, folder)


def _answers_problems(path: Path, answers: dict[str, Any], folder: Path) -> Iterator[str]:
    for key in ("_src_path", "_commit"):
        if not answers.get(key):
            yield f"{path}: no {key}: not written by Copier, so `copier update` cannot update it"
    if answers.get("plugin_id") != folder.name:
        shown = answers.get("plugin_id")
        yield f"{path}: plugin_id {shown!r} differs from the folder name {folder.name!r}"
    if answers.get("strategy") not in STRATEGIES:
        yield (
            f"{path}: strategy must be one of {', '.join(STRATEGIES)} (how the plugin runs its "
            f"agent), not {answers.get('strategy')!r}"
        )
    for key, what in (("source_commit", "a full commit sha"), ("agent_file", "a git blob id")):
        value = answers.get(key, "")
        if value and not (isinstance(value, str) and _SHA.fullmatch(value)):
            yield f"{path}: {key} {value!r} is not {what}"
    screens = answers.get("screens")
    if not isinstance(screens, dict):
        screens = {}
        yield f"{path}: screens must map each screen's name to its git blob id"
    for name, blob in screens.items():
        screen = folder / SCREENS_FOLDER / f"{name}.json"
        if not (isinstance(blob, str) and _SHA.fullmatch(blob)):
            yield f"{path}: screens.{name} must be the git blob id of {screen.name} as generated"
        if not screen.is_file():
            yield f"{screen}: missing ({ANSWERS_FILE} records it)"


@dataclass(frozen=True)
class _Module:
    """One Python file read statically: its classes, imported names and string constants."""

    path: Path
    package: str = ""

    @cached_property
    def tree(self) -> ast.Module:
        return ast.parse(self.path.read_text(encoding="utf-8"), filename=str(self.path))

    @cached_property
    def classes(self) -> dict[str, ast.ClassDef]:
        return {node.name: node for node in self.tree.body if isinstance(node, ast.ClassDef)}

    @cached_property
    def imports(self) -> dict[str, Ref]:
        """Local name -> (module, name) of every ``from M import N [as A]``; a relative ``M`` is
        resolved against ``package`` (without one, as in a plugin folder, it stays relative)."""
        found: dict[str, Ref] = {}
        for node in self.tree.body:
            if isinstance(node, ast.ImportFrom):
                module = self._absolute(node.level, node.module or "")
                for alias in node.names:
                    found[alias.asname or alias.name] = (module, alias.name)
        return found

    def literal(self, name: str) -> str | None:
        """The string a module-level ``NAME = "..."`` sets, if any."""
        value = _assigned(self.tree.body, name)
        return (
            value.value
            if isinstance(value, ast.Constant) and isinstance(value.value, str)
            else None
        )

    def plugin_classes(self) -> list[ast.ClassDef]:
        """Classes deriving from PluginBase that no other class here derives from."""
        plugins = [c for c in self.classes.values() if self.derives(c.name)]
        local_bases = {base.id for c in plugins for base in c.bases if isinstance(base, ast.Name)}
        return [c for c in plugins if c.name not in local_bases]

    def plugin_id(self, cls: ast.ClassDef, manifest: _Module | None, *, package: str) -> str | None:
        """The string ``plugin_id`` is set to in ``cls``, followed to the manifest if needed."""
        value = _assigned(cls.body, "plugin_id")
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return value.value
        if not isinstance(value, ast.Name):
            return None
        if (local := self.literal(value.id)) is not None:
            return local
        module, name = self.imports.get(value.id, ("", ""))
        own = module == "." or module.rsplit(".", 1)[-1] == package
        return manifest.literal(name) if own and manifest else None

    def derives(self, name: str, depth: int = 0) -> bool:
        """Whether the class ``name`` (defined or imported here) derives from PluginBase."""
        cls = self.classes.get(name)
        if cls is None:  # imported, or re-exported: follow the import
            return name in self.imports and _derives(self.imports[name], depth + 1)
        for base in cls.bases:
            if isinstance(base, ast.Name):
                found = (
                    self.derives(base.id, depth + 1)
                    if base.id in self.classes
                    else base.id in self.imports and _derives(self.imports[base.id], depth + 1)
                )
            elif isinstance(base, ast.Attribute):  # runtime.contract.plugin.PluginBase
                found = _derives((ast.unparse(base.value), base.attr), depth + 1)
            else:
                found = False
            if found:
                return True
        return False

    def _absolute(self, level: int, module: str) -> str:
        if level == 0:
            return module
        if not self.package:
            return "." * level + module
        parts = self.package.split(".")[: len(self.package.split(".")) - level + 1]
        return ".".join([*parts, module] if module else parts)


def _derives(ref: Ref, depth: int) -> bool:
    """Whether ``module.name`` is PluginBase or derives from it, read from this package's source."""
    if ref == PLUGIN_BASE:
        return True
    module = _followed_module(ref[0])
    return module is not None and depth <= MAX_DEPTH and module.derives(ref[1], depth)


@cache
def _followed_module(module: str) -> _Module | None:
    """A module of this package (parsed, never imported); None for any other module."""
    if module.split(".")[0] != FOLLOWED_PACKAGE:
        return None
    root = Path(runtime.__file__ or "").resolve().parent.parent
    base = root.joinpath(*module.split("."))
    if (path := base.with_suffix(".py")).is_file():
        return _parsed(_Module(path, package=module.rpartition(".")[0]))
    if (path := base / "__init__.py").is_file():
        return _parsed(_Module(path, package=module))
    return None


def _module(path: Path) -> _Module | None:
    """A plugin folder's module, if it exists and parses."""
    return _parsed(_Module(path)) if path.is_file() else None


def _parsed(module: _Module) -> _Module | None:
    try:
        module.tree  # noqa: B018 - parse now, so a syntax error reads as "no module"
    except (OSError, UnicodeDecodeError, SyntaxError):
        return None
    return module


def _assigned(body: list[ast.stmt], name: str) -> ast.expr | None:
    for node in body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            return node.value
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and node.target.id == name
        ):
            return node.value
    return None


if __name__ == "__main__":
    sys.exit(main())
