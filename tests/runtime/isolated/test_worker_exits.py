"""A worker that exits says why: the error its stderr ended on, and, when the environment's own
packages do not fit together, which requirement is unmet (never only an exit code)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from runtime.isolated.envs import find_uv
from runtime.isolated.process import Worker, WorkerCrashed, broken_pins, last_error
from tests.generator.plugin_repo import wheel

TRACEBACK = [
    "Traceback (most recent call last):",
    '  File "/src/agent/graph.py", line 3, in <module>',
    "    from langchain_core.tools import tool_call",
    "ImportError: cannot import name 'tool_call' from 'langchain_core.tools'",
]


def test_the_last_error_is_a_tracebacks_last_line_else_the_last_plain_line() -> None:
    assert last_error([*TRACEBACK, ""]) == TRACEBACK[-1]
    assert last_error(["starting", "config.yaml not found, copy config.example.yaml"]) == (
        "config.yaml not found, copy config.example.yaml"
    )
    assert last_error(["", "   "]) is None


@pytest.fixture(scope="module")
def clashing_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtual environment whose ``alpha`` needs ``beta<2`` beside ``beta`` 2.0 (and no
    LangGraph, so a worker on it cannot start)."""
    base = tmp_path_factory.mktemp("clash")
    wheels = base / "wheels"
    wheel(wheels, "alpha", "alpha", "1.0", requires=("beta<2",))
    wheel(wheels, "beta", "beta", "2.0")
    uv = find_uv()
    env = base / "env"
    subprocess.run([*uv, "venv", "-q", "--python", sys.executable, str(env)], check=True)
    python = env / "bin" / "python"
    offline = ["--no-index", "--find-links", str(wheels), "--python", str(python)]
    subprocess.run(
        [*uv, "pip", "install", "-q", *offline, "--no-deps", "alpha", "beta"], check=True
    )
    return python


def test_broken_pins_name_the_unmet_requirement(clashing_env: Path) -> None:
    assert broken_pins(clashing_env) == "alpha needs beta<2, and 2.0 is installed"
    assert broken_pins(Path(sys.executable).parent / "no-such-python") is None


def test_a_worker_that_cannot_start_says_why_and_which_pins_clash(
    clashing_env: Path, tmp_path: Path
) -> None:
    with pytest.raises(WorkerCrashed) as crashed:
        Worker("clash", tmp_path, clashing_env)

    message = str(crashed.value)
    assert message.startswith("the clash worker exited (code 1): its requirements do not work ")
    assert "alpha needs beta<2, and 2.0 is installed" in message
    assert "ModuleNotFoundError: No module named 'langgraph'" in message
