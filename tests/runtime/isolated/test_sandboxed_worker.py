"""An isolated plugin's worker runs in a sandbox: the intruder, served as an isolated plugin on a
real runtime with a SQLite session database, reads no secret, no other process, no database and
writes nowhere but its own private folders; with ``"network": false`` it connects nowhere."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from runtime.contract.layout import AGENT_FILE, SOURCE_FOLDER
from runtime.isolated.envs import ENVS_DIR_ENV
from runtime.testing.client import RuntimeClient
from tests.generator.plugin_repo import tree
from tests.hostile import INTRUDER, Hostile, hostile, outcomes
from tests.runtime.conftest import FIXTURE_PLUGINS, runtime_server
from tests.runtime.isolated.conftest import CACHE

pytestmark = [pytest.mark.usefixtures("sandbox_available", "envs"), pytest.mark.timeout(300)]

#: What a worker may never get, network or not.
CONFINED = (
    "env:GITHUB_TOKEN", "env:DATABASE_URL", "env:A2UI_ADMIN_TOKEN", "env:A2UI_STORAGE",
    "proc:given", "proc:any", "read:database", "write:home", "write:repo", "write:plugins",
    "remount", "namespace",
)  # fmt: skip


@pytest.fixture
def attacker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Hostile]:
    monkeypatch.setenv(ENVS_DIR_ENV, str(CACHE))
    with hostile(tmp_path, monkeypatch) as found:
        yield found


def intruder_plugin(plugins: Path, *, network: bool) -> Path:
    """``legacy`` (isolated, its environment built) running the intruder as its agent."""
    folder = plugins / "legacy"
    shutil.copytree(FIXTURE_PLUGINS / "legacy", folder)
    shutil.copyfile(INTRUDER / "agent.py", folder / SOURCE_FOLDER / "intruder.py")
    spec = json.loads((folder / AGENT_FILE).read_text())
    spec |= {"graph_spec": "./intruder.py:graph", "network": network, "context": {}}
    (folder / AGENT_FILE).write_text(json.dumps(spec))
    config = {"dependencies": ["."], "graphs": {"agent": "./intruder.py:graph"}}
    (folder / SOURCE_FOLDER / "langgraph.json").write_text(json.dumps(config))
    return folder


def text(frames: list[dict[str, Any]]) -> str:
    return " ".join(f["payload"]["text"] for f in frames if f["type"] == "server.transcript.final")


@pytest.mark.parametrize("network", [True, False], ids=["network", "no-network"])
def test_an_isolated_worker_gets_nothing_it_tries(
    attacker: Hostile, tmp_path: Path, network: bool
) -> None:
    plugins, database = tmp_path / "plugins", tmp_path / "sessions.db"
    folder = intruder_plugin(plugins, network=network)
    serve = (
        "--plugins-dir",
        str(plugins),
        "--offline-models",
        "--storage",
        f"sqlite:{database}",
    )
    with runtime_server(*serve) as (address, runtime):
        targets = attacker.targets(tmp_path, database, plugins=plugins)
        targets["pids"] = [runtime.pid, attacker.decoy.pid]
        (folder / SOURCE_FOLDER / "targets.json").write_text(json.dumps(targets))
        before = tree(plugins)
        with RuntimeClient(address, agent="legacy") as client:
            client.receive_turn()
            said = outcomes(text(client.say("hello")))

    for when in ("import", "turn"):
        for attempt in CONFINED:
            assert said[f"{when}:{attempt}"] == "refused", (when, attempt)
        connected = {said[f"{when}:connect:socket"], said[f"{when}:connect:_socket"]}
        assert connected == ({"got"} if network else {"refused"})
    assert tree(plugins) == before
    assert [path for path in attacker.leaked() if "connections" not in path] == []


def test_served_with_no_sandbox_the_same_worker_gets_in(attacker: Hostile, tmp_path: Path) -> None:
    """The test above can fail: unconfined, the worker reads the runtime's database and plants
    files (its variables were always only those agent.json names)."""
    plugins, database = tmp_path / "plugins", tmp_path / "sessions.db"
    folder = intruder_plugin(plugins, network=True)
    serve = ("--plugins-dir", str(plugins), "--offline-models", "--no-sandbox")
    with runtime_server(*serve, "--storage", f"sqlite:{database}") as (address, _):
        targets = attacker.targets(tmp_path, database, plugins=plugins)
        (folder / SOURCE_FOLDER / "targets.json").write_text(json.dumps(targets))
        with RuntimeClient(address, agent="legacy") as client:
            client.receive_turn()
            said = outcomes(text(client.say("hello")))

    for attempt in ("read:database", "write:plugins", "write:home", "connect:_socket"):
        assert said[f"turn:{attempt}"] == "got", attempt


def test_a_worker_that_cannot_be_sandboxed_leaves_its_plugin_not_ready_saying_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from runtime import sandbox
    from runtime.discovery import discover
    from runtime.isolated.process import WORKERS

    why = "cannot make the sandbox (unshare: Operation not permitted): ..."
    monkeypatch.setattr(sandbox, "_probed", why)
    intruder_plugin(tmp_path / "plugins", network=True)

    needs = discover(tmp_path / "plugins").report().plugins["legacy"].needs

    assert needs == [f"its worker cannot run in a sandbox: {why}"]
    monkeypatch.setattr(WORKERS, "sandboxed", False)  # serve --no-sandbox
    assert discover(tmp_path / "plugins").report().plugins["legacy"].needs == []


def test_a_worker_whose_sandbox_fails_says_why_in_one_line(tmp_path: Path) -> None:
    """The helper's own line, not 'exited (code 125)': its output and its exit are waited for."""
    import sys

    from runtime import sandbox
    from runtime.isolated.process import Worker, WorkerCrashed

    spec = sandbox.Spec(binds=(sandbox.Bind("/no/such/folder"),))

    with pytest.raises(WorkerCrashed) as failed:
        Worker("broken", tmp_path, Path(sys.executable), confinement=spec)

    assert str(failed.value).startswith(
        "the broken worker: cannot make the sandbox (bind /no/such/folder: No such file"
    )
