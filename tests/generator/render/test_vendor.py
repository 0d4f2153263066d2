"""Vendoring the agent's source into ``src/``: what is copied, what never is, and the limits."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from plugin_repo import agent_repo, commit_all, git, write_files

from generator.errors import AgentImportError
from generator.models import Source
from generator.render.vendor import vendor


def source(path: Path) -> Source:
    return Source(url=str(path), path=str(path))


def test_tracked_files_are_copied_without_git_or_ignored_files(tmp_path: Path) -> None:
    agent = agent_repo(
        tmp_path / "agent",
        {".gitignore": "secrets.env\n", "app/graph.py": "graph = None\n", "LICENSE": "MIT\n"},
    )
    write_files(agent, {"secrets.env": "KEY=1\n", "app/__pycache__/graph.cpython-311.pyc": "x"})

    result = vendor(source(agent), tmp_path / "src")

    assert result.files == [".gitignore", "LICENSE", "app/graph.py"]
    assert result.licence == "LICENSE"
    assert not (tmp_path / "src" / ".git").exists()
    assert not (tmp_path / "src" / "secrets.env").exists()


def test_symlinks_leaving_the_tree_are_left_out_and_inner_ones_copied(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("private\n")
    agent = agent_repo(tmp_path / "agent", {"real.py": "VALUE = 1\n"})
    os.symlink(outside, agent / "escape.txt")
    os.symlink("real.py", agent / "alias.py")
    commit_all(agent, "links")

    result = vendor(source(agent), tmp_path / "src")

    assert "escape.txt" not in result.files and "escape.txt" in result.skipped[0]
    copied = tmp_path / "src" / "alias.py"
    assert not copied.is_symlink() and copied.read_text() == "VALUE = 1\n"
    assert not (tmp_path / "src" / "escape.txt").exists()


def test_a_source_over_the_size_limit_is_refused_before_copying(tmp_path: Path) -> None:
    agent = agent_repo(tmp_path / "agent", {"big.txt": "x" * 4096})

    with pytest.raises(AgentImportError, match=r"over the .* MB limit"):
        vendor(source(agent), tmp_path / "src", max_bytes=1024)

    assert not (tmp_path / "src").exists()


def test_a_sub_folder_without_a_licence_takes_the_repositorys(tmp_path: Path) -> None:
    repo = agent_repo(
        tmp_path / "mono", {"LICENSE.md": "Apache-2.0\n", "agents/faq/graph.py": "graph = 1\n"}
    )
    assert git(repo, "status", "--porcelain") == ""

    result = vendor(source(repo / "agents" / "faq"), tmp_path / "src")

    assert result.licence == "LICENSE.md"
    assert (tmp_path / "src" / "LICENSE.md").read_text() == "Apache-2.0\n"


def test_a_folder_that_is_not_a_git_repository_is_walked(tmp_path: Path) -> None:
    folder = write_files(
        tmp_path / "plain", {"graph.py": "graph = 1\n", ".venv/lib/x.py": "", "a/b.pyc": ""}
    )

    assert vendor(source(folder), tmp_path / "src").files == ["graph.py"]


def test_a_repository_never_runs_its_fsmonitor_command_while_listed(tmp_path: Path) -> None:
    """``git ls-files --others`` starts the ``core.fsmonitor`` command of the repository it
    lists, and a folder handed to ``import`` is as untrusted as a URL: it never runs, and git
    still lists the files (what it ignores left out)."""
    ran = tmp_path / "ran"
    agent = agent_repo(tmp_path / "agent", {".gitignore": "secrets.env\n", "graph.py": "g = 1\n"})
    write_files(agent, {"secrets.env": "KEY=1\n", "new.py": "n = 1\n"})
    git(agent, "config", "core.fsmonitor", f"touch {ran}; false")

    result = vendor(source(agent), tmp_path / "src")

    assert not ran.exists()
    assert result.files == [".gitignore", "graph.py", "new.py"]
