"""The rules ``docs/architecture.md`` states about imports, checked on the source (AST, no import).

* inside ``runtime/``, a module imports only from its own layer or the layers below it;
* nothing under ``runtime/`` imports the generator (the runtime installs without it);
* a name the plugin contract declares (``runtime/contract/``) is imported from the module that
  declares it, never through another module, and declared nowhere else;
* LangGraph's private modules are imported in one module, ``runtime/turns/_langgraph.py``.

Each rule is a function over parsed files, so each is also tried on code that breaks it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Where the contract rule is checked: the two halves, the benches, the tests.
CHECKED = ("runtime", "generator", "bench", "tests")
CONTRACT = "runtime.contract"

#: The runtime's layers, lowest first: a module imports from its own layer and those below only.
#: A layer is a set of module prefixes; the longest prefix that names a module places it.
LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"runtime.contract", "runtime.sandbox", "runtime.redaction"}),
    frozenset({"runtime.a2ui", "runtime.storage", "runtime.testing.offline_models"}),
    frozenset({"runtime.discovery", "runtime.settings", "runtime.extensions", "runtime.reply"}),
    frozenset({"runtime.turns"}),
    frozenset({"runtime.client_tools", "runtime.isolated"}),
    frozenset({"runtime.adapters"}),
    frozenset({"runtime.serving", "runtime.testing.client"}),
    frozenset({"runtime.testing", "runtime.cli"}),
)
#: Not placed: the package's own ``__init__`` (it installs the old import paths) and the plugins,
#: which are the contract's users, not part of the runtime's layers.
UNLAYERED = ("runtime", "runtime._moved", "runtime.plugins")


@dataclass(frozen=True)
class Import:
    """One ``import``/``from ... import`` in a file: the module and, for ``from``, the names."""

    where: str
    module: str
    names: tuple[str, ...] = ()


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_in(source: str, module: str, *, is_package: bool, where: str) -> Iterator[Import]:
    """Every import of ``source`` (module-level or not), relative ones made absolute."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(f"{where}:{node.lineno}", alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module.split(".")
                package = package if is_package else package[:-1]
                package = package[: len(package) - node.level + 1]
                base = ".".join([*package, base] if base else package)
            names = tuple(alias.name for alias in node.names)
            yield Import(f"{where}:{node.lineno}", base, names)
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            function = node.func
            name = (
                function.attr
                if isinstance(function, ast.Attribute)
                else getattr(function, "id", "")
            )
            if name in {"import_module", "__import__"} and isinstance(node.args[0].value, str):
                yield Import(f"{where}:{node.lineno}", node.args[0].value)


def python_files(*folders: str) -> Iterator[tuple[str, Path]]:
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "fixtures" not in path.parts and "node_modules" not in path.parts:
                yield module_name(path), path


def all_imports(*folders: str) -> Iterator[tuple[str, Import]]:
    for module, path in python_files(*folders):
        where = str(path.relative_to(ROOT))
        source = path.read_text(encoding="utf-8")
        for found in imports_in(source, module, is_package=path.name == "__init__.py", where=where):
            yield module, found


def layer_of(module: str) -> int | None:
    """The index of ``module``'s layer (longest matching prefix), None when it has none."""
    if module in UNLAYERED or module.startswith("runtime.plugins."):
        return None
    placed = [
        (len(prefix), index)
        for index, layer in enumerate(LAYERS)
        for prefix in layer
        if module == prefix or module.startswith(prefix + ".")
    ]
    if not placed:
        raise AssertionError(f"{module} is in no layer of tests/test_architecture.py")
    return max(placed)[1]


def upward_imports(found: Iterable[tuple[str, Import]]) -> list[str]:
    wrong = []
    for module, imported in found:
        if not imported.module.startswith("runtime"):
            continue
        submodules = [f"{imported.module}.{name}" for name in imported.names]
        submodules = [name for name in submodules if _is_module(name)]
        here = layer_of(module)
        for target in submodules or [imported.module]:
            if here is None:
                continue
            there = layer_of(target)
            if there is not None and there > here:
                wrong.append(
                    f"{imported.where}: {module} (layer {here}) imports {target} ({there})"
                )
    return wrong


def _is_module(target: str) -> bool:
    """True when ``target`` names a module or package of ours, not a name in a module."""
    path = ROOT / target.replace(".", "/")
    return path.is_dir() or path.with_suffix(".py").is_file()


def generator_imports(found: Iterable[tuple[str, Import]]) -> list[str]:
    return [
        f"{imported.where}: {imported.module}"
        for _, imported in found
        if imported.module.split(".")[0] == "generator"
        or (imported.module == "" and "generator" in imported.names)
    ]


#: The one module that imports LangGraph's private names.
LANGGRAPH_ADAPTER = "runtime.turns._langgraph"


def private_langgraph_imports(found: Iterable[tuple[str, Import]]) -> list[str]:
    """Imports of a private LangGraph module (a ``_`` part) outside ``LANGGRAPH_ADAPTER``."""
    return [
        f"{imported.where}: {imported.module}"
        for module, imported in found
        if module != LANGGRAPH_ADAPTER
        and imported.module.split(".")[0] == "langgraph"
        and any(part.startswith("_") for part in imported.module.split("."))
    ]


def contract_declarations() -> dict[str, str]:
    """Each public top-level name the contract declares -> the module declaring it."""
    declared: dict[str, str] = {}
    for module, path in python_files("runtime/contract"):
        for name in _top_level_names(path.read_text(encoding="utf-8")):
            if not name.startswith("_"):
                declared[name] = module
    return declared


def _top_level_names(source: str) -> Iterator[str]:
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            yield node.name
        elif isinstance(node, ast.Assign):
            yield from (t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            yield node.target.id


def contract_detours(found: Iterable[tuple[str, Import]], declared: dict[str, str]) -> list[str]:
    """Imports of a contract name from a module other than the one declaring it."""
    wrong = []
    for _, imported in found:
        for name in imported.names:
            home = declared.get(name)
            ours = imported.module.split(".")[0] in {"runtime", "generator"}
            if home is not None and ours and imported.module != home:
                wrong.append(f"{imported.where}: {name} from {imported.module}, not {home}")
    return wrong


def contract_redeclarations(
    declared: dict[str, str], sources: Iterable[tuple[str, str]]
) -> list[str]:
    """Top-level names of ``(module, source)`` outside the contract that the contract declares."""
    return [
        f"{module}: {name} (declared in {declared[name]})"
        for module, source in sources
        if not module.startswith(CONTRACT)
        for name in _top_level_names(source)
        if name in declared and name not in {"logger", "main"}
    ]


# -- the rules, on the repository -------------------------------------------------------------


def test_inside_the_runtime_no_module_imports_from_a_layer_above_its_own() -> None:
    assert upward_imports(all_imports("runtime")) == []


def test_nothing_under_runtime_imports_the_generator() -> None:
    assert generator_imports(all_imports("runtime")) == []


def test_langgraphs_private_modules_are_imported_in_one_module() -> None:
    assert private_langgraph_imports(all_imports("runtime", "generator", "bench")) == []


def test_contract_names_are_imported_from_the_module_that_declares_them() -> None:
    declared = contract_declarations()
    assert {"PluginBase", "CommonState", "SCREEN_NAMES", "PLUGINS_FOLDER"} <= declared.keys()
    assert contract_detours(all_imports(*CHECKED), declared) == []


def test_contract_names_are_declared_once() -> None:
    sources = [
        (module, path.read_text(encoding="utf-8"))
        for module, path in python_files("runtime", "generator", "bench")
    ]
    assert contract_redeclarations(contract_declarations(), sources) == []


# -- the rules can fail -----------------------------------------------------------------------


def _parsed(module: str, source: str) -> list[tuple[str, Import]]:
    return [(module, i) for i in imports_in(source, module, is_package=False, where=module)]


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("runtime.storage.locks", "from runtime.serving.app import create_app\n"),
        ("runtime.contract.plugin", "def f():\n    import runtime.turns.engine\n"),
        ("runtime.turns.engine", "from ..serving import app\n"),
    ],
)
def test_an_upward_import_is_found(module: str, source: str) -> None:
    assert len(upward_imports(_parsed(module, source))) == 1


def test_a_downward_import_is_not_flagged() -> None:
    source = "from runtime.turns.engine import TurnEngine\nfrom runtime.contract import state\n"
    assert upward_imports(_parsed("runtime.serving.app", source)) == []


@pytest.mark.parametrize(
    "source",
    [
        "import generator.api\n",
        "def f():\n    from generator import cli\n",
        "importlib.import_module('generator.api')\n",
    ],
)
def test_a_generator_import_is_found(source: str) -> None:
    assert len(generator_imports(_parsed("runtime.cli", source))) == 1


@pytest.mark.parametrize(
    "source",
    ["from langgraph._internal._constants import NS_SEP\n", "import langgraph.pregel._loop\n"],
)
def test_a_private_langgraph_import_elsewhere_is_found(source: str) -> None:
    assert len(private_langgraph_imports(_parsed("runtime.turns.engine", source))) == 1
    assert private_langgraph_imports(_parsed(LANGGRAPH_ADAPTER, source)) == []


def test_a_contract_name_imported_through_another_module_is_found() -> None:
    declared = contract_declarations()
    source = "from runtime.contract.plugin import CommonState\nfrom runtime.reply import View\n"
    assert contract_detours(_parsed("runtime.serving.app", source), declared) == [
        "runtime.serving.app:1: CommonState from runtime.contract.plugin, "
        "not runtime.contract.state"
    ]


def test_a_second_declaration_of_a_contract_name_is_found() -> None:
    source = 'ScreenName = Literal["welcome"]\nSTATE_KEY: Final = "state"\nOTHER = 1\n'
    assert contract_redeclarations(contract_declarations(), [("generator.design", source)]) == [
        "generator.design: ScreenName (declared in runtime.contract.screens)",
        "generator.design: STATE_KEY (declared in runtime.contract.screens)",
    ]
