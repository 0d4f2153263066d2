"""The plugin-id claim across real processes: one holder at a time, none left by a killed one."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from generator.checks.contract import plugin_folders
from generator.checks.leftovers import leftovers
from generator.render.claim import CLAIM_PREFIX, Claim, ClaimHeld
from runtime.discovery import discover

#: A process that claims ``argv[2]`` in ``argv[1]``, says so, then dies (``kill``) or holds the
#: claim until its stdin closes.
HOLDER = """
import os, signal, sys
from pathlib import Path
from generator.render.claim import Claim

claim = Claim(Path(sys.argv[1]), sys.argv[2])
print("claimed", flush=True)
if sys.argv[3] == "kill":
    os.kill(os.getpid(), signal.SIGKILL)
sys.stdin.read()
claim.release()
"""


@contextmanager
def holder(plugins: Path, plugin_id: str, then: str) -> Iterator[subprocess.Popen[str]]:
    """Another process holding the claim (until the block ends, or dead after claiming)."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(plugins), plugin_id, then],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stdin is not None
    try:
        assert process.stdout.readline() == "claimed\n"
        if then == "kill":
            assert process.wait() == -signal.SIGKILL
        yield process
    finally:
        process.stdin.close()
        process.wait()


def test_a_claim_held_by_another_process_refuses_naming_it(tmp_path: Path) -> None:
    with holder(tmp_path, "savings", "hold") as other:
        with pytest.raises(ClaimHeld) as refused:
            Claim(tmp_path, "savings")
        with Claim(tmp_path, "other_plugin"):  # one claim per plugin id
            pass

    assert str(refused.value) == (
        f"plugin 'savings' is being imported or updated by another process "
        f"(pid {other.pid} on {socket.gethostname()}); wait for it to finish, then try again"
    )
    assert os.listdir(tmp_path) == []
    with Claim(tmp_path, "savings"):  # released by the other process
        pass


def test_a_claim_left_by_a_killed_process_is_taken_over(tmp_path: Path) -> None:
    with holder(tmp_path, "savings", "kill"):
        left = tmp_path / (CLAIM_PREFIX + "savings")
        assert left.is_file()

    with Claim(tmp_path, "savings") as claim:
        assert claim.path == left
        assert json.loads(left.read_text())["pid"] == os.getpid()
        with pytest.raises(ClaimHeld):
            Claim(tmp_path, "savings")  # held again, by this process now
    assert not left.exists()


def test_a_claim_left_behind_is_no_plugin_to_the_runtime_or_the_checks(tmp_path: Path) -> None:
    plugins = tmp_path / "runtime" / "plugins"
    plugins.mkdir(parents=True)
    with holder(plugins, "savings", "kill"):
        left = plugins / (CLAIM_PREFIX + "savings")

    registry = discover(plugins)
    assert (registry.plugins, registry.broken) == ({}, {})
    assert plugin_folders([left]) == []
    assert list(leftovers(left)) == []
