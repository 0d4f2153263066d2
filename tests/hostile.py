"""A hostile agent's surroundings, for the sandbox's tests: secrets to steal, a loopback port to
reach, folders to plant files in, and the ``intruder`` fixture aimed at them.

The intruder (``tests/fixtures/agents/intruder``) tries each attack at import and on each turn
and answers ``name=got`` or ``name=refused``; what it managed to read it also writes into every
file it plants, so a test that cannot hear its answer (the import API's) sees what leaked.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

INTRUDER = Path(__file__).resolve().parent / "fixtures" / "agents" / "intruder"
#: What the intruder says it tried, at import and on a turn (curl's only where it is installed).
ATTEMPTS = (
    "env:GITHUB_TOKEN", "env:DATABASE_URL", "env:A2UI_ADMIN_TOKEN", "env:A2UI_STORAGE",
    "proc:given", "proc:any", "write:home", "write:repo", "write:plugins", "connect:socket",
    "connect:_socket", "remount", "namespace",
)  # fmt: skip
GIT = ["git", "-c", "user.name=Test", "-c", "user.email=test@example.invalid"]


class Listener:
    """A TCP server on the host's 127.0.0.1 that answers any connection with an HTTP 200 and
    counts them."""

    def __init__(self) -> None:
        self._socket = socket.create_server(("127.0.0.1", 0))
        self.port = self._socket.getsockname()[1]
        self.connections = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._socket.accept()
            except OSError:
                return
            self.connections += 1
            with conn:
                conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n")

    def close(self) -> None:
        self._socket.close()


@dataclass
class Hostile:
    """The secrets (in this process's environment and a decoy's), a listener, a home folder."""

    secret: str
    home: Path
    listener: Listener
    decoy: subprocess.Popen[bytes]
    planted: list[Path] = field(default_factory=list)

    def agent(self, dest: Path, *, repo: Path, database: Path | None = None) -> Path:
        """The intruder as a git repository at ``dest``, aimed at ``repo`` and its plugins."""
        shutil.copytree(INTRUDER, dest, ignore=shutil.ignore_patterns("__pycache__"))
        (dest / "targets.json").write_text(json.dumps(self.targets(repo, database)))
        for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "agent"]):
            subprocess.run([*GIT, "-C", str(dest), *args], check=True)
        return dest

    def targets(
        self, repo: Path, database: Path | None = None, *, plugins: Path | None = None
    ) -> dict[str, object]:
        """Where to aim (and, as ``planted``, the files a leak would leave): the repository's
        plugins folder unless a runtime serves another."""
        folders = {
            "home": self.home,
            "repo": repo,
            "plugins": plugins or repo / "runtime" / "plugins",
        }
        self.planted = [folder / f"intruder-{when}" for folder in folders.values()
                        for when in ("import", "turn")]  # fmt: skip
        return {
            "pids": [os.getpid(), self.decoy.pid],
            "marker": self.secret,
            "port": self.listener.port,
            **{name: str(folder) for name, folder in folders.items()},
            "database": str(database) if database else None,
        }

    def leaked(self) -> list[str]:
        """What got out: files planted outside the agent, connections to the listener."""
        found = [str(path) for path in self.planted if path.exists()]
        if self.listener.connections:
            found.append(f"{self.listener.connections} connections to the host's loopback")
        return found


def outcomes(text: str) -> dict[str, str]:
    """The intruder's answer (``when:name=outcome ...``) by attempt."""
    pairs = (word.rsplit("=", 1) for word in text.split() if "=" in word)
    return {name: outcome for name, outcome in pairs}


@contextmanager
def hostile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Hostile]:
    """Secrets in this process's environment (a token, database URLs with passwords, the admin
    token) and in a decoy process's (a shell of the user's, holding them from its start)."""
    secret = f"s3cret-{secrets.token_hex(8)}"
    values = {
        "GITHUB_TOKEN": secret,
        "DATABASE_URL": f"postgresql://app:{secret}@db.example/app",
        "A2UI_ADMIN_TOKEN": secret,
        "A2UI_STORAGE": f"postgresql://runtime:{secret}@127.0.0.1/sessions",
    }
    home = tmp_path / "home"
    home.mkdir()
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("HOME", str(home))
    sleeper = [sys.executable, "-c", "import time; time.sleep(600)"]
    decoy = subprocess.Popen(sleeper, env={**os.environ, **values})
    listener = Listener()
    try:
        yield Hostile(secret, home, listener, decoy)
    finally:
        listener.close()
        decoy.kill()
        decoy.wait()
