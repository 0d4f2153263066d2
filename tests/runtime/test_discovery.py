"""Discovery: every folder is found, broken ones are reported, graphs are built once."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from runtime.discovery import DEFAULT_PLUGINS_PACKAGE, discover, plugins_package

PluginWriter = Callable[[Path, str, dict[str, str]], Path]


def test_good_plugins_load_and_broken_folders_are_reported(
    plugins_dir: Path, write_plugin: PluginWriter
) -> None:
    write_plugin(plugins_dir, "no_plugin_module", {"__init__.py": ""})
    (plugins_dir / "no_init").mkdir()
    (plugins_dir / "no_init" / "plugin.py").write_text("")
    registry = discover(plugins_dir)
    assert sorted(registry.plugins) == ["boom", "echo"]
    assert registry.broken == {
        "bad_import": "ModuleNotFoundError: No module named 'does_not_exist_anywhere'",
        "bad_syntax": "SyntaxError: invalid syntax (plugin.py:1)",
        "no_init": "not a Python package (no __init__.py)",
        "no_plugin_module": "the folder has no plugin.py",
        "wrong_id": "plugin_id 'something_else' must equal the folder name 'wrong_id'",
    }


def test_a_folder_without_plugin_py_is_never_imported(
    tmp_path: Path, write_plugin: PluginWriter
) -> None:
    marker = tmp_path / "imported"
    planted = f"open({str(marker)!r}, 'w').close()\n"
    write_plugin(tmp_path / "plugins", "zz_planted", {"__init__.py": planted})
    registry = discover(tmp_path / "plugins")
    assert not marker.exists()
    assert registry.broken == {"zz_planted": "the folder has no plugin.py"}


def test_import_failures_are_logged_with_their_traceback(
    plugins_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    discover(plugins_dir)
    failure = next(r for r in caplog.records if "'bad_import' failed to import" in r.getMessage())
    assert failure.exc_info is not None


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("x = 1\n", "exactly one concrete PluginBase subclass (found: none)"),
        (
            "from runtime.contract.plugin import PluginBase\n"
            "class A(PluginBase):\n    plugin_id = 'twice'\n    title = 'A'\n"
            "    def build_graph(self): ...\n"
            "class B(A):\n    pass\n",
            "exactly one concrete PluginBase subclass (found: A, B)",
        ),
        (
            "from runtime.contract.plugin import PluginBase\n"
            "class A(PluginBase):\n    title = 'A'\n    def build_graph(self): ...\n",
            "plugin_id None must equal the folder name 'twice'",
        ),
        (
            "from runtime.contract.plugin import PluginBase\n"
            "class A(PluginBase):\n    plugin_id = 'twice'\n    title = 'A'\n"
            "    def __init__(self):\n        raise ValueError('no config')\n"
            "    def build_graph(self): ...\n",
            "ValueError: no config",
        ),
    ],
)
def test_contract_violations(
    tmp_path: Path, write_plugin: PluginWriter, source: str, reason: str
) -> None:
    write_plugin(tmp_path, "twice", {"__init__.py": "", "plugin.py": source})
    registry = discover(tmp_path)
    assert registry.plugins == {}
    assert reason in registry.broken["twice"]


def test_a_plugin_id_must_match_the_pattern(tmp_path: Path, write_plugin: PluginWriter) -> None:
    source = (
        "from runtime.contract.plugin import PluginBase\n"
        "class A(PluginBase):\n    plugin_id = 'Bad-Name'\n    title = 'A'\n"
        "    def build_graph(self): ...\n"
    )
    write_plugin(tmp_path, "Bad-Name", {"__init__.py": "", "plugin.py": source})
    assert "must match" in discover(tmp_path).broken["Bad-Name"]


def test_two_folders_with_the_same_plugin_names_do_not_collide(
    tmp_path: Path, write_plugin: PluginWriter
) -> None:
    first = write_plugin(tmp_path / "a", "same", {"__init__.py": "", "plugin.py": ""}).parent
    second = write_plugin(tmp_path / "b", "same", {"__init__.py": "", "plugin.py": ""}).parent
    assert plugins_package(first)[0] != plugins_package(second)[0]
    assert plugins_package(None)[0] == DEFAULT_PLUGINS_PACKAGE


def test_a_missing_plugins_dir_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(NotADirectoryError, match="does not exist"):
        discover(tmp_path / "nope")


def test_graphs_are_compiled_once_with_the_runtime_checkpointer(plugins_dir: Path) -> None:
    saver = InMemorySaver()
    registry = discover(plugins_dir, checkpointer=saver)
    plugin = registry.plugins["echo"]
    calls = []
    original = plugin.build_graph

    def counting_build():  # type: ignore[no-untyped-def]
        calls.append(1)
        return original()

    plugin.build_graph = counting_build  # type: ignore[method-assign]
    graphs = []
    threads = [
        threading.Thread(target=lambda: graphs.append(registry.graph("echo"))) for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1
    assert all(graph is graphs[0] for graph in graphs)
    assert graphs[0].checkpointer is saver


def test_report_lists_capabilities_and_broken(plugins_dir: Path) -> None:
    report = discover(plugins_dir).report()
    assert report.plugins["echo"].actions == ["echo.press"]
    assert report.plugins["echo"].title == "Echo"
    assert "bad_syntax" in report.broken
