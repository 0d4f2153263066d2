"""The checks run an agent nobody has reviewed in the sandbox: through the command line (a dry
run, an import, an update) and the import API, the intruder gets nothing it tries, and nothing
outside the staged copy changes; with ``--no-sandbox`` the same attempts succeed."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from generator.cli import main
from generator.validate import confinement
from runtime import sandbox
from runtime.contract.layout import AGENT_FILE, PLUGINS_FOLDER
from runtime.serving.app import create_app
from runtime.serving.launch import serve_in_thread
from tests.generator.api.import_api_fixtures import api_settings
from tests.generator.plugin_repo import commit_all, git, runtime_repo, tree
from tests.hostile import ATTEMPTS, Hostile, hostile, outcomes

pytestmark = [pytest.mark.usefixtures("sandbox_available"), pytest.mark.timeout(600)]


@pytest.fixture
def attacker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Hostile]:
    with hostile(tmp_path, monkeypatch) as found:
        yield found


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = runtime_repo(tmp_path / "repo")
    monkeypatch.chdir(path)
    return path


@pytest.fixture(autouse=True)
def sandboxed_again() -> Iterator[None]:
    """``--no-sandbox`` is a choice of the process: the tests' process takes it back after."""
    yield
    confinement._unconfined = False


def reply(result: dict[str, Any]) -> dict[str, str]:
    """What the intruder answered in the checks' conversation (its last line, in text)."""
    transcript = result["validation"]["checks"][-1]["transcript"]
    return outcomes(next(line for line in reversed(transcript) if ": text: " in line))


def imported(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    code = main(["import", *args, "--plugin-id", "intruder", "--offline", "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    result: dict[str, Any] = json.loads(captured.out)
    return result


def test_a_dry_run_gives_the_agent_nothing_it_tries_and_changes_nothing(
    attacker: Hostile, repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = attacker.agent(tmp_path / "agent", repo=repo)
    before = tree(repo), tree(attacker.home), tree(agent)

    result = imported(capsys, str(agent), "--dry-run")

    said = reply(result)
    for when in ("import", "turn"):
        for attempt in ATTEMPTS:
            assert said[f"{when}:{attempt}"] == "refused", (when, attempt)
    assert attacker.leaked() == []
    assert (tree(repo), tree(attacker.home), tree(agent)) == before
    assert result["validation"]["sandbox"].startswith("sandbox: no network;")


def test_without_the_sandbox_the_same_attempts_succeed(
    attacker: Hostile, repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The test above can fail: unconfined, the intruder reads, writes and connects."""
    agent = attacker.agent(tmp_path / "agent", repo=repo)

    result = imported(capsys, str(agent), "--dry-run", "--no-sandbox")

    said = reply(result)
    for attempt in ("env:GITHUB_TOKEN", "proc:given", "proc:any", "write:home", "write:repo",
                    "connect:socket", "connect:_socket"):  # fmt: skip
        assert said[f"import:{attempt}"] == "got", attempt
    assert attacker.secret in (attacker.home / "intruder-import").read_text()
    assert attacker.listener.connections > 0
    assert result["validation"]["sandbox"].startswith("no sandbox (--no-sandbox)")


def test_an_import_and_its_update_run_the_new_code_in_the_sandbox_too(
    attacker: Hostile, repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = attacker.agent(tmp_path / "agent", repo=repo)
    result = imported(capsys, str(agent))
    assert set(reply(result).values()) == {"refused"}
    commit_all(repo, "import intruder")
    (agent / "agent.py").write_text((agent / "agent.py").read_text() + "\n# upstream change\n")
    git(agent, "commit", "-qam", "upstream")

    code = main(["update", "intruder", "--offline", "--json"])

    captured = capsys.readouterr()
    assert code == 0, captured.err
    (updated,) = json.loads(captured.out)
    assert set(reply(updated).values()) == {"refused"}
    assert attacker.leaked() == []
    assert (
        "validated_without_sandbox"
        not in (repo / PLUGINS_FOLDER / "intruder" / AGENT_FILE).read_text()
    )


def test_an_import_without_the_sandbox_says_so_in_agent_json_and_the_commit(
    attacker: Hostile, repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = attacker.agent(tmp_path / "agent", repo=repo)

    imported(capsys, str(agent), "--no-sandbox", "--branch", "import/intruder")

    spec = json.loads(git(repo, "show", f"import/intruder:{PLUGINS_FOLDER}/intruder/{AGENT_FILE}"))
    assert spec["validated_without_sandbox"] is True
    assert "Validated WITHOUT the sandbox" in git(
        repo, "log", "-1", "--format=%B", "import/intruder"
    )


@contextmanager
def serving(repo: Path, **overrides: Any) -> Iterator[httpx.Client]:
    """The runtime with the import API over ``repo`` (``serve --import-api``), on real uvicorn."""
    settings = api_settings(repo, port=0, **overrides)
    with (
        serve_in_thread(create_app(settings, callbacks=[]), settings) as address,
        httpx.Client(base_url=f"http://{address}", timeout=120) as client,
    ):
        yield client


def dry_run(client: httpx.Client, agent: Path, **extra: object) -> httpx.Response:
    body = {"url": str(agent), "plugin_id": "intruder", "design": "offline", "dry_run": True}
    return client.post("/api/import-agent", json={**body, **extra})


def followed(client: httpx.Client, agent: Path) -> dict[str, Any]:
    """A dry run as the wizard starts one (``wait: false``), followed to its end."""
    job = dry_run(client, agent, wait=False).json()["job_id"]
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        status: dict[str, Any] = client.get(f"/api/import-agent/status/{job}").json()
        if status["state"] in ("DONE", "ERROR"):
            return status
        time.sleep(0.05)
    raise AssertionError("the dry run did not finish")


@pytest.mark.parametrize("sandbox", [True, False], ids=["sandboxed", "server-no-sandbox"])
def test_the_wizards_dry_run_is_sandboxed_unless_the_server_was_started_without(
    attacker: Hostile, repo: Path, tmp_path: Path, sandbox: bool
) -> None:
    agent = attacker.agent(tmp_path / "agent", repo=repo)
    before = tree(repo)
    with serving(repo, sandbox=sandbox) as client:
        status = followed(client, agent)

    assert status["state"] == "DONE", status
    if sandbox:
        assert attacker.leaked() == []
        assert tree(repo) == before
    else:
        assert attacker.secret in (attacker.home / "intruder-import").read_text()
        assert attacker.listener.connections > 0


def test_a_request_cannot_ask_for_no_sandbox(attacker: Hostile, repo: Path, tmp_path: Path) -> None:
    agent = attacker.agent(tmp_path / "agent", repo=repo)
    with serving(repo) as client:
        for field in ("sandbox", "no_sandbox"):
            answer = dry_run(client, agent, **{field: field == "no_sandbox"})
            assert answer.status_code in (400, 422), answer.text
    assert attacker.leaked() == []


def test_where_no_sandbox_can_be_made_nothing_of_the_agent_runs(
    attacker: Hostile,
    repo: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    why = "cannot make the sandbox (unshare: Operation not permitted): allow ...; or --no-sandbox"
    monkeypatch.setattr(sandbox, "_probed", why)
    agent = attacker.agent(tmp_path / "agent", repo=repo)
    before = tree(repo)

    code = main(["import", str(agent), "--plugin-id", "intruder", "--offline"])

    assert code == 1
    assert capsys.readouterr().err.splitlines()[-1] == f"agent-import: error: {why}"
    assert attacker.leaked() == [] and tree(repo) == before
