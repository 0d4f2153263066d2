"""The official AG-UI client for the AG-UI tests: ``client/run.mjs`` over ``@ag-ui/client``.

``npm ci`` installs the pinned client (``client/package-lock.json``) on first use, under a file
lock so parallel test workers install it once. Without ``node`` the tests are skipped.
"""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

CLIENT = Path(__file__).parent / "client"
INSTALL_TIMEOUT_S = 300
RUN_TIMEOUT_S = 60


class ClientFailed(AssertionError):
    """The official client rejected a run, warned, or saw a stream end without a terminal event."""


AguiClient = Callable[[dict[str, Any]], dict[str, Any]]


def _installed() -> bool:
    """``node_modules`` holds exactly what the lock file pins (npm writes its own copy of it)."""
    hidden = CLIENT / "node_modules" / ".package-lock.json"
    if not hidden.exists():
        return False
    pinned = json.loads((CLIENT / "package-lock.json").read_text())["packages"]
    present = json.loads(hidden.read_text())["packages"]
    return all(present.get(path, {}).get("version") == entry.get("version")
               for path, entry in pinned.items() if path)  # fmt: skip


def _install(npm: str) -> None:
    with (CLIENT / ".npm-ci.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _installed():
            return
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=CLIENT,
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT_S,
        )
        if done.returncode != 0:
            raise RuntimeError(f"npm ci in {CLIENT} failed:\n{done.stderr}")


@pytest.fixture(scope="session")
def agui_client() -> AguiClient:
    """``agui_client(scenario)`` runs ``client/run.mjs`` (see there) and returns its report;
    ``ClientFailed`` says why the official client was not satisfied."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the AG-UI tests drive the official @ag-ui/client")
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("node is installed without npm, which installs @ag-ui/client")
    _install(npm)

    def run(scenario: dict[str, Any]) -> dict[str, Any]:
        done = subprocess.run(
            [node, str(CLIENT / "run.mjs")],
            input=json.dumps(scenario),
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT_S,
        )
        if done.returncode != 0:
            raise ClientFailed(done.stderr.strip() or f"node exited {done.returncode}")
        report: dict[str, Any] = json.loads(done.stdout)
        return report

    return run
