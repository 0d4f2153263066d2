"""The import API's ``ref`` reaches git as a name, never as an option: a bad one is a 422 naming
the field, before anything is fetched, over real HTTP."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.generator.api.import_api_fixtures import Server
from tests.generator.plugin_repo import agent_repo, echo_agent

#: Both endpoints that fetch a source, and the fields each needs besides.
ENDPOINTS = [
    ("/api/import-agent", {"plugin_id": "echo", "design": "offline", "dry_run": True}),
    ("/api/import-agent/inspect", {}),
]


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    return agent_repo(tmp_path / "agent", echo_agent("echo_api_git"))


@pytest.mark.parametrize("local", [False, True], ids=["file-url", "folder"])
@pytest.mark.parametrize(("path", "fields"), ENDPOINTS, ids=["import", "inspect"])
def test_the_upload_pack_attack_is_422_and_runs_nothing(
    server: Server,
    agent: Path,
    tmp_path: Path,
    local: bool,
    path: str,
    fields: dict[str, object],
) -> None:
    marker = tmp_path / "pwned"
    body = {
        "url": str(agent) if local else agent.as_uri(),
        "ref": f"--upload-pack=touch {marker};git-upload-pack",
        **fields,
    }
    with server() as client:
        answer = client.post(path, json=body)

    assert answer.status_code == 422, answer.text
    error = answer.json()["error"]
    assert error.startswith("ref: Value error, '--upload-pack=touch ")
    assert error.endswith(" is not a branch, tag or commit name") and "\n" not in error
    assert not marker.exists()


@pytest.mark.parametrize("ref", ["-x", "--output=/tmp/x", "a..b", "a b", "x@{1}", "~1", "a\x00b"])
def test_a_ref_that_is_no_name_is_422(server: Server, agent: Path, ref: str) -> None:
    with server() as client:
        answer = client.post("/api/import-agent/inspect", json={"url": str(agent), "ref": ref})
    assert answer.status_code == 422, answer.text
    assert answer.json()["error"].startswith(f"ref: Value error, {ref!r} is not a branch")
