"""Fixtures for runtime tests: plugin folders in tmp dirs and a real uvicorn on 127.0.0.1."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest

from runtime.server import create_app
from runtime.serving import serve_in_thread
from runtime.settings import Settings

FIXTURE_PLUGINS = Path(__file__).parent / "plugin_fixtures"

#: Folders that break the plugin contract in different ways: name -> {file: source}.
BROKEN_PLUGINS: dict[str, dict[str, str]] = {
    "bad_import": {"__init__.py": "", "plugin.py": "import does_not_exist_anywhere\n"},
    "bad_syntax": {"__init__.py": "", "plugin.py": "def oops(:\n"},
    "wrong_id": {
        "__init__.py": "",
        "plugin.py": (
            "from runtime.plugin import PluginBase\n"
            "class Wrong(PluginBase):\n"
            "    plugin_id = 'something_else'\n"
            "    title = 'Wrong'\n"
            "    def build_graph(self):\n"
            "        raise NotImplementedError\n"
        ),
    },
}


def _write_plugin(folder: Path, name: str, files: dict[str, str]) -> Path:
    """Write one plugin folder of ``files`` under ``folder``."""
    target = folder / name
    target.mkdir(parents=True, exist_ok=True)
    for filename, text in files.items():
        (target / filename).write_text(text)
    return target


PluginWriter = Callable[[Path, str, dict[str, str]], Path]


@pytest.fixture
def write_plugin() -> PluginWriter:
    """``write_plugin(folder, name, {file: source})`` writes a plugin folder."""
    return _write_plugin


@pytest.fixture
def plugins_dir(tmp_path: Path) -> Path:
    """A plugins folder with ``echo`` and ``boom`` and the broken folders."""
    folder = tmp_path / "plugins"
    for plugin in ("echo", "boom"):
        shutil.copytree(FIXTURE_PLUGINS / plugin, folder / plugin)
    for name, files in BROKEN_PLUGINS.items():
        _write_plugin(folder, name, files)
    return folder


ServerFactory = Callable[..., AbstractContextManager[str]]


@pytest.fixture
def start_server(plugins_dir: Path) -> ServerFactory:
    """Start a server (a context manager yielding ``host:port``); settings override defaults."""

    def start(**overrides: Any) -> AbstractContextManager[str]:
        callbacks = overrides.pop("callbacks", [])
        defaults = {"port": 0, "plugins_dir": plugins_dir, "default_agent": "echo"}
        settings = Settings(**{**defaults, "log_level": "DEBUG", **overrides})
        return serve_in_thread(create_app(settings, callbacks=callbacks), settings)

    return start


@pytest.fixture
def server(start_server: ServerFactory) -> Iterator[str]:
    """``host:port`` of a running server over the fixture plugins (memory checkpointer)."""
    with start_server() as address:
        yield address


@pytest.fixture
def real_server() -> Iterator[str]:
    """``host:port`` of a server over the project's own plugins (``runtime/plugins/``)."""
    settings = Settings(port=0, log_level="DEBUG")
    with serve_in_thread(create_app(settings, callbacks=[]), settings) as address:
        yield address
