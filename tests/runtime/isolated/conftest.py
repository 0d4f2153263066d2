"""The isolated environments the tests run their plugins in: built once with uv from PyPI and
kept in ``.a2ui-runtime/test-envs`` across runs (a machine that cannot reach PyPI skips)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from runtime.contract.layout import REQUIREMENTS_FILE, REQUIREMENTS_LOCK, SOURCE_FOLDER
from runtime.isolated.envs import ENVS_DIR_ENV, EnvBuildError, ensure_env, find_uv
from tests.runtime.conftest import FIXTURE_PLUGINS

#: Reused across test runs: building an environment from PyPI takes a while the first time.
CACHE = Path(__file__).resolve().parents[3] / ".a2ui-runtime" / "test-envs"
#: The second isolated plugin's pins: another LangGraph 0.2 and a langchain-core 0.2.
OTHER_PINS = "langgraph==0.2.60\nlangchain-core<0.3\n"
#: The pins of an agent written for LangGraph 1.0, below the runtime's own 1.2.
MODERN_PINS = "langgraph>=1.0,<1.1\n"


def _pypi_reachable() -> bool:
    try:
        socket.create_connection(("pypi.org", 443), timeout=5).close()
    except OSError:
        return False
    return True


def _build(folder: Path, plugin_id: str) -> None:
    try:
        ensure_env(folder, plugin_id, progress=lambda line: None)
    except EnvBuildError:
        if not _pypi_reachable():
            pytest.skip("PyPI is unreachable: the isolated environments cannot be built")
        raise


@pytest.fixture(scope="session")
def envs() -> Iterator[Path]:
    """The environments of ``legacy`` and ``vintage`` (its copy with other pins), built once."""
    before = os.environ.get(ENVS_DIR_ENV)
    os.environ[ENVS_DIR_ENV] = str(CACHE)
    try:
        vintage = locked_copy("vintage", OTHER_PINS)
        _build(FIXTURE_PLUGINS / "legacy", "legacy")
        _build(vintage, "vintage")
        yield vintage
    finally:
        if before is None:
            os.environ.pop(ENVS_DIR_ENV, None)
        else:
            os.environ[ENVS_DIR_ENV] = before


@pytest.fixture(scope="session")
def modern(envs: Path) -> Path:
    """The cached copy of ``modern`` (``legacy`` on LangGraph 1.0), its environment built once."""
    folder = locked_copy("modern", MODERN_PINS)
    _build(folder, "modern")
    return folder


def locked_copy(plugin_id: str, pins: str) -> Path:
    """``legacy`` as ``plugin_id`` in the cache with ``pins`` and their lock, made once."""
    folder = CACHE / f"{plugin_id}-plugin"
    if not (folder / REQUIREMENTS_LOCK).is_file():
        shutil.rmtree(folder, ignore_errors=True)
        copy_plugin(FIXTURE_PLUGINS / "legacy", folder, plugin_id)
        (folder / REQUIREMENTS_FILE).write_text(pins)
        (folder / REQUIREMENTS_LOCK).unlink()  # legacy's: uv would keep the versions it pins
        subprocess.run(
            [
                *find_uv(),
                "pip",
                "compile",
                "-q",
                "--universal",
                REQUIREMENTS_FILE,
                "-o",
                REQUIREMENTS_LOCK,
            ],
            cwd=folder,
            check=False,
            capture_output=True,
        )
    return folder


def pinned_plugin(cached: Path, target: Path, plugin_id: str) -> None:
    """``plugin_id`` in ``target``: the ``legacy`` fixture as it is now, with the pins (and the
    built environment) of ``cached``, whose copy of the source may be older."""
    copy_plugin(FIXTURE_PLUGINS / "legacy", target, plugin_id)
    for name in (REQUIREMENTS_FILE, REQUIREMENTS_LOCK):
        shutil.copyfile(cached / name, target / name)


def modern_plugin(modern: Path, target: Path) -> None:
    """``modern`` in ``target``: its model class from pydantic 2, as langchain-core 1 (which
    LangGraph 1.0 needs) has no ``langchain_core.pydantic_v1``."""
    pinned_plugin(modern, target, "modern")
    graph = target / SOURCE_FOLDER / "graph.py"
    graph.write_text(graph.read_text().replace("langchain_core.pydantic_v1", "pydantic"))


def copy_plugin(source: Path, target: Path, plugin_id: str) -> None:
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
    init = target / "__init__.py"
    init.write_text(init.read_text().replace('"legacy"', f'"{plugin_id}"'))
    for screen in (target / "screens").glob("*.json"):
        screen.write_text(screen.read_text().replace('"legacy.', f'"{plugin_id}.'))
