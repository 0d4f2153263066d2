"""``runtime.isolated.envs``: an isolated plugin's environment is built once, rebuilt when its
pins change, never seen by the runtime before it is built, and a missing Python is one line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from runtime.cli import main
from runtime.contract.layout import AGENT_FILE, REQUIREMENTS_LOCK
from runtime.discovery import discover
from runtime.isolated.envs import (
    ENVS_DIR_ENV,
    MARKER,
    EnvBuildError,
    ensure_env,
    env_dir,
    find_uv,
    in_use,
    interpreter_path,
)
from tests.runtime.conftest import FIXTURE_PLUGINS


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The ``legacy`` fixture with no pins (nothing to download), its envs under ``tmp_path``."""
    monkeypatch.setenv(ENVS_DIR_ENV, str(tmp_path / "envs"))
    folder = Path(shutil.copytree(FIXTURE_PLUGINS / "legacy", tmp_path / "plugins" / "legacy"))
    (folder / REQUIREMENTS_LOCK).write_text("")
    return folder


def test_an_environment_is_built_once_and_again_when_its_pins_change(plugin: Path) -> None:
    lines: list[str] = []
    python = ensure_env(plugin, "legacy", progress=lines.append)
    built = (python.parents[1] / MARKER).read_text()
    assert lines[-1] == "legacy: environment ready"
    ran = subprocess.run([python, "-c", "import langgraph"], capture_output=True, check=False)
    assert ran.returncode != 0  # its own packages only: not the runtime's LangGraph
    lines.clear()
    assert ensure_env(plugin, "legacy", progress=lines.append) == python
    assert lines == []  # unchanged: not built again
    (plugin / REQUIREMENTS_LOCK).write_text("# another resolution\n")
    rebuilt = ensure_env(plugin, "legacy", progress=lines.append)
    assert lines and (rebuilt.parents[1] / MARKER).read_text() != built
    assert [p.name for p in env_dir("legacy").iterdir()] == [rebuilt.parents[1].name]


def test_a_rebuild_leaves_the_environment_a_worker_runs_on_until_it_stops(plugin: Path) -> None:
    """Built beside it and renamed into place; the worker's interpreter and packages stay."""
    python = ensure_env(plugin, "legacy", progress=lambda line: None)
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    (Path(site) / "mine.py").write_text("WHERE = 'old'\n")
    worker = in_use(python)  # as the runtime's worker holds it
    running = subprocess.Popen(
        [python, "-c", "import sys; sys.stdin.readline(); import mine; print(mine.WHERE)"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    (plugin / REQUIREMENTS_LOCK).write_text("# another resolution\n")
    assert main(["envs", "--plugins-dir", str(plugin.parent)]) == 0
    rebuilt = ensure_env(plugin, "legacy", progress=lambda line: None)
    assert rebuilt != python and rebuilt.parents[1].parent == python.parents[1].parent
    out, _ = running.communicate("go\n")
    assert out.strip() == "old"  # its packages were still there, imported after the rebuild
    assert worker is not None
    os.close(worker)  # the worker stopped: the next build removes its environment
    (plugin / REQUIREMENTS_LOCK).write_text("# a third resolution\n")
    third = ensure_env(plugin, "legacy", progress=lambda line: None)
    assert [p.name for p in env_dir("legacy").iterdir()] == [third.parents[1].name]


def test_a_failed_rebuild_leaves_nothing_partial_and_the_old_environment(plugin: Path) -> None:
    python = ensure_env(plugin, "legacy", progress=lambda line: None)
    (plugin / REQUIREMENTS_LOCK).write_text("./no-such-wheel-1.0-py3-none-any.whl\n")
    with pytest.raises(EnvBuildError, match=r"installing requirements\.lock failed"):
        ensure_env(plugin, "legacy", progress=lambda line: None)
    assert [p.name for p in env_dir("legacy").iterdir()] == [python.parents[1].name]
    assert subprocess.run([python, "-c", "pass"], check=False).returncode == 0


def test_a_plugin_whose_environment_is_not_built_is_unavailable_saying_how(plugin: Path) -> None:
    report = discover(plugin.parent).report()
    (need,) = report.plugins["legacy"].needs
    assert need.startswith(
        "needs its own Python environment, which is not built: run a2ui-runtime envs"
    )


def test_a_python_the_machine_lacks_is_named_with_how_to_install_it(plugin: Path) -> None:
    with pytest.raises(EnvBuildError, match=r"needs Python 3\.2, .*`uv python install 3\.2`"):
        interpreter_path(find_uv(), "3.2")
    spec = json.loads((plugin / AGENT_FILE).read_text())
    spec["environment"]["python"] = "3.2"
    (plugin / AGENT_FILE).write_text(json.dumps(spec))
    with pytest.raises(EnvBuildError):
        ensure_env(plugin, "legacy", progress=lambda line: None)
    assert not env_dir("legacy").exists()  # nothing partial left


def test_the_envs_command_builds_the_missing_environments(
    plugin: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["envs", "--plugins-dir", str(plugin.parent)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "legacy: environment ready"
    assert discover(plugin.parent).report().plugins["legacy"].needs == []
    assert main(["envs", "--plugins-dir", str(plugin.parent)]) == 0
    assert capsys.readouterr().out == ""  # built already: nothing to do
