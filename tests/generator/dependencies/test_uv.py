"""The generator runs the uv the runtime finds (``runtime.isolated.envs.find_uv``, the one
lookup: the generator depends on the runtime, never the reverse), and says in one line when there
is none."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

from generator.cli import main
from generator.dependencies.lock import compile_lock
from runtime.isolated.envs import EnvBuildError


@pytest.fixture
def no_uv(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No uv on PATH, none beside the interpreter, no ``uv`` module."""
    monkeypatch.setattr(shutil, "which", lambda name, *args, **kwargs: None)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *args: None)


@pytest.mark.usefixtures("no_uv")
def test_a_lock_is_compiled_with_the_uv_the_runtime_finds() -> None:
    with pytest.raises(EnvBuildError, match=r"^uv is not installed: run `python3 dev\.py`"):
        compile_lock(["langgraph==0.2.60"], "3.11", local_packages=[])


@pytest.mark.usefixtures("no_uv")
def test_no_uv_is_one_line_from_the_command_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    def locking(args: object) -> int:  # a command that runs uv
        compile_lock(["langgraph==0.2.60"], "3.11", local_packages=[])
        return 0

    monkeypatch.setattr("generator.cli.inspect.run", locking)
    assert main(["inspect", str(tmp_path)]) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("agent-import: error: uv is not installed")
