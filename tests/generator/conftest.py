"""Builders for the generator tests: small agent projects and real git repositories in tmp dirs."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from plugin_repo import only_index, wheel, write_files

from generator.inspect import inspect_source
from generator.models import Inspection, Source

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "agents"

#: A minimal valid agent: one TypedDict state, one node, compiled at module level.
MINIMAL_GRAPH = """
from typing import TypedDict

from langgraph.graph import END, START, StateGraph


class State(TypedDict):
    answer: str


def respond(state: State):
    return {"answer": "hi"}


builder = StateGraph(State)
builder.add_node("respond", respond)
builder.add_edge(START, "respond")
builder.add_edge("respond", END)
graph = builder.compile()
"""
MINIMAL_CONFIG = '{"dependencies": ["."], "graphs": {"agent": "./agent.py:graph"}}'


@pytest.fixture
def make_project(tmp_path: Path) -> Callable[[dict[str, str]], Path]:
    """A factory: files -> a project folder in tmp (a new folder per call)."""
    counter = iter(range(1000))

    def make(files: dict[str, str]) -> Path:
        return write_files(tmp_path / f"project{next(counter)}", files)

    return make


@pytest.fixture
def minimal_agent() -> dict[str, str]:
    """Files of a minimal valid agent: ``langgraph.json`` and ``agent.py``."""
    return {"langgraph.json": MINIMAL_CONFIG, "agent.py": MINIMAL_GRAPH}


@pytest.fixture
def inspect_folder() -> Callable[..., Inspection]:
    """``inspect_folder(path, **options)``: inspect a local folder in place."""

    def run(path: Path, **options: str) -> Inspection:
        return inspect_source(Source(url=str(path), path=str(path.resolve())), **options)

    return run


class GitRepo:
    """A real git repository in a tmp folder, driven through the git CLI."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "--quiet", "--initial-branch=main")

    @property
    def url(self) -> str:
        return self.path.as_uri()

    def git(self, *args: str) -> str:
        env_args = ["-c", "user.name=Test", "-c", "user.email=test@example.invalid"]
        done = subprocess.run(
            ["git", *env_args, "-C", str(self.path), *args],
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.strip()

    def commit(self, files: dict[str, str], message: str = "change") -> str:
        write_files(self.path, files)
        self.git("add", "--all")
        self.git("commit", "--quiet", "-m", message)
        return self.git("rev-parse", "HEAD")


@pytest.fixture
def git_repo(tmp_path: Path) -> Callable[[str], GitRepo]:
    return lambda name: GitRepo(tmp_path / name)


@pytest.fixture
def index_with_a_public_shared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The only package index (a folder of wheels, no network): an unrelated ``shared``, not the
    one an agent's repository provides (nothing of its code), beside ``extra-tool`` and
    ``helper-lib`` (which needs ``shared``), requirements agents take from an index."""
    folder = tmp_path / "index"
    wheel(folder, "shared", "shared", "9.9")
    wheel(folder, "extra-tool", "extra_tool", "1.0")
    wheel(folder, "helper-lib", "helper_lib", "1.0", requires=("shared",))
    return only_index(folder, monkeypatch)
