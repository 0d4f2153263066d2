"""Imports of requirements the runtime does not install: a library the repository itself provides
(an example in a subfolder of the library's repository) and LangGraph's server packages."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from plugin_repo import agent_repo, commit_all, echo_agent, git, options, pyproject, runtime_repo

from generator.pipeline.importer import import_agent
from runtime.contract.layout import AGENT_FILE, PLUGINS_FOLDER

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "agents" / "root_library_example"


@pytest.fixture
def offline_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty local package index: nothing can be fetched, nothing reaches the network."""
    (tmp_path / "index").mkdir()
    monkeypatch.setenv("UV_NO_INDEX", "1")
    monkeypatch.setenv("UV_FIND_LINKS", str(tmp_path / "index"))


@pytest.mark.slow
@pytest.mark.usefixtures("offline_index")
def test_an_example_runs_the_vendored_root_library_it_requires(tmp_path: Path) -> None:
    repo = runtime_repo(tmp_path / "repo")
    agent = tmp_path / "agent"
    shutil.copytree(FIXTURE, agent)
    git(agent, "init", "--quiet", "--initial-branch=main")
    commit_all(agent, "library")

    result = import_agent(options(agent, "desk", approve_deps=True), root=repo)

    assert result.validation.ok, result.validation.describe()
    plugin = repo / PLUGINS_FOLDER / "desk"
    assert "relay-desk" not in (plugin / "requirements.txt").read_text()
    spec = json.loads((plugin / AGENT_FILE).read_text())
    assert spec["python_paths"][-1] == "."
    answer = [line for line in result.validation.checks[-1].transcript if "Front desk here" in line]
    assert answer, result.validation.checks[-1].transcript


@pytest.mark.slow
@pytest.mark.usefixtures("offline_index")
def test_langgraph_server_packages_are_never_installed(tmp_path: Path) -> None:
    repo = runtime_repo(tmp_path / "repo")
    files = echo_agent("lobby_echo")
    files["pyproject.toml"] = pyproject(
        "lobby_echo",
        "langgraph>=1.0",
        "langgraph-api>=0.2.0,<0.2.9",
        "langgraph-cli[inmem]>=0.1",
        "langgraph-runtime-inmem>=0.1",
        "langgraph-sdk>=0.1",
    )
    agent = agent_repo(tmp_path / "agent", files)

    result = import_agent(options(agent, "lobby", approve_deps=True), root=repo)

    assert result.validation.ok, result.validation.describe()
    requirements = (repo / PLUGINS_FOLDER / "lobby" / "requirements.txt").read_text()
    assert "langgraph-sdk>=0.1" in requirements
    for server in ("langgraph-api", "langgraph-cli", "langgraph-runtime-inmem"):
        assert server not in requirements
