"""Fixtures for runtime tests: plugin folders in tmp dirs, a real uvicorn on 127.0.0.1 (in a
thread or its own process) and a real PostgreSQL."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager, suppress
from pathlib import Path
from typing import Any, BinaryIO

import httpx
import pytest

from runtime.serving.app import create_app
from runtime.serving.launch import free_port, serve_in_thread
from runtime.settings import Settings
from tests.runtime.postgres import create_database, server_bindir, temporary_postgres

FIXTURE_PLUGINS = Path(__file__).parent / "plugin_fixtures"
#: A fresh interpreter imports LangGraph and friends first: slow on a busy machine.
PROCESS_START_TIMEOUT_S = 120.0

#: Folders that break the plugin contract in different ways: name -> {file: source}.
BROKEN_PLUGINS: dict[str, dict[str, str]] = {
    "bad_import": {"__init__.py": "", "plugin.py": "import does_not_exist_anywhere\n"},
    "bad_syntax": {"__init__.py": "", "plugin.py": "def oops(:\n"},
    "wrong_id": {
        "__init__.py": "",
        "plugin.py": (
            "from runtime.contract.plugin import PluginBase\n"
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


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The URL of a real PostgreSQL started for this test session (see ``postgres.py``)."""
    if server_bindir() is None:
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) are not installed")
    with temporary_postgres() as url:
        yield url


@pytest.fixture
def postgres_url(postgres_server: str) -> str:
    """A fresh database of the session's PostgreSQL, for one test."""
    return create_database(postgres_server)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.slow)])
def shared_storage(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A storage URL several processes share: a SQLite file, or a PostgreSQL database."""
    if request.param == "postgres":
        postgres_url: str = request.getfixturevalue("postgres_url")
        return postgres_url
    return f"sqlite:{tmp_path / 'runtime.sqlite'}"


@pytest.fixture
def memo_plugins(plugins_dir: Path) -> Path:
    """``plugins_dir`` with ``memo`` (keeps facts in the store) and ``snoop``, a copy of it under
    another plugin id, which must see none of memo's facts."""
    shutil.copytree(FIXTURE_PLUGINS / "memo", plugins_dir / "memo")
    snoop = Path(shutil.copytree(FIXTURE_PLUGINS / "memo", plugins_dir / "snoop"))
    source = (snoop / "plugin.py").read_text()
    (snoop / "plugin.py").write_text(source.replace('plugin_id = "memo"', 'plugin_id = "snoop"'))
    return plugins_dir


@contextmanager
def runtime_server(
    *args: str,
    module: str = "runtime.cli",
    log: BinaryIO | None = None,
    python: str = sys.executable,
    cwd: Path | None = None,
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``a2ui-runtime serve ARGS`` in its own process on a free port: ``host:port`` once it
    answers, and the process (a test may kill it; stopped on exit otherwise). ``module`` is what
    ``python -m`` runs instead of the CLI (a test's wrapper around it), ``python`` the interpreter
    (another environment's); ``log`` takes its output (else its stderr is kept to say why it did
    not start)."""
    port = free_port()
    command = [python, "-m", module, "serve", "--port", str(port), *args]
    address = f"127.0.0.1:{port}"
    with ExitStack() as stack:
        output = log or stack.enter_context(tempfile.TemporaryFile())
        process = subprocess.Popen(command, stdout=log, stderr=output, cwd=cwd)
        try:
            deadline = time.monotonic() + PROCESS_START_TIMEOUT_S
            while True:
                if process.poll() is not None or time.monotonic() > deadline:
                    output.flush()
                    output.seek(0)
                    tail = output.read().decode(errors="replace")[-2000:]
                    raise RuntimeError(f"the runtime process on {address} did not start:\n{tail}")
                with suppress(httpx.HTTPError):
                    if httpx.get(f"http://{address}/health", timeout=1).status_code == 200:
                        break
                time.sleep(0.05)
            yield address, process
        finally:
            process.terminate()
            process.wait(timeout=PROCESS_START_TIMEOUT_S)


@contextmanager
def runtime_process(*args: str, module: str = "runtime.cli") -> Iterator[str]:
    """``runtime_server``'s address alone."""
    with runtime_server(*args, module=module) as (address, _):
        yield address
