"""Long child processes: a progress line, a time limit, and the whole tree ended."""

from __future__ import annotations

import io
import os
import time
from pathlib import Path

import pytest

from generator.errors import AgentImportError
from generator.validate.processes import run_tree


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_child_that_finishes_reports_its_output_and_progress() -> None:
    progress = io.StringIO()

    done = run_tree(["sh", "-c", "echo out; echo err >&2"], what="echoing", timeout=30,
                    progress=progress)  # fmt: skip

    assert (done.returncode, done.stdout, done.stderr) == (0, "out\n", "err\n")
    assert progress.getvalue().startswith("echoing...\n")
    assert "echoing: done in" in progress.getvalue()


def test_the_time_limit_ends_every_process_the_child_started(tmp_path: Path) -> None:
    pidfile = tmp_path / "grandchild.pid"
    script = f"sleep 300 & echo $! > {pidfile}; wait"
    started = time.monotonic()

    with pytest.raises(AgentImportError, match=r"^sleeping took over 1 s and was stopped$"):
        run_tree(["sh", "-c", script], what="sleeping", timeout=1, progress=io.StringIO())

    assert time.monotonic() - started < 30
    grandchild = int(pidfile.read_text())
    deadline = time.monotonic() + 10
    while alive(grandchild) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(grandchild)


def test_input_reaches_the_child() -> None:
    done = run_tree(["cat"], what="copying", timeout=30, stdin="hello", progress=io.StringIO())

    assert done.stdout == "hello"
