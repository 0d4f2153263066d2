"""paths: the one place that decides which paths of a source tree are read, searched or copied."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from plugin_repo import write_files

from generator.inspect.config import load_config
from generator.models import Source
from generator.paths import TOOL_FOLDERS, is_inside, resolved_inside
from generator.render.vendor import vendor

CONFIG = '{"graphs": {"agent": "./graph.py:graph"}}'


def test_inside_is_decided_by_the_path_as_written(tmp_path: Path) -> None:
    root = tmp_path.resolve()

    assert is_inside(root, root / "a" / ".." / "b")
    assert is_inside(root, root)
    assert not is_inside(root, root / "a" / ".." / ".." / "b")
    assert not is_inside(root, root.parent / (root.name + "-other"))


def test_resolved_inside_follows_links_and_refuses_those_leading_out(tmp_path: Path) -> None:
    root = (tmp_path / "tree").resolve()
    write_files(root, {"real.py": "X = 1\n", "pkg/mod.py": "Y = 2\n"})
    write_files(tmp_path, {"outside/secret.txt": "private\n"})
    os.symlink("real.py", root / "alias.py")
    os.symlink(tmp_path / "outside" / "secret.txt", root / "escape.txt")
    os.symlink(tmp_path / "outside", root / "linked")

    assert resolved_inside(root, root / "alias.py") == root / "real.py"
    assert resolved_inside(root, root / "pkg" / "mod.py") == root / "pkg" / "mod.py"
    assert resolved_inside(root, root / "escape.txt") is None
    assert resolved_inside(root, root / "linked" / "secret.txt") is None  # a folder on the way
    assert resolved_inside(root, root / ".." / "outside" / "secret.txt") is None


@pytest.mark.parametrize("folder", sorted(TOOL_FOLDERS))
def test_a_tools_folder_is_neither_searched_nor_vendored(tmp_path: Path, folder: str) -> None:
    """Each walk of the tree skips the same folders: a config or module in one is not the
    agent's (a walk taking it would find two configs, or copy an installed package)."""
    root = write_files(
        tmp_path / "agent",
        {
            "app/langgraph.json": CONFIG,
            "app/graph.py": "graph = None\n",
            f"{folder}/pkg/langgraph.json": CONFIG,
            f"{folder}/pkg/graph.py": "graph = None\n",
        },
    )

    config = load_config(root)
    result = vendor(Source(url=str(root), path=str(root)), tmp_path / "src")

    assert config.config_file == "app/langgraph.json"
    assert result.files == ["app/graph.py", "app/langgraph.json"]


@pytest.mark.parametrize("folder", ["build", "dist", "env"])
def test_a_package_named_like_build_output_is_the_agents_own(tmp_path: Path, folder: str) -> None:
    """``build``, ``dist`` and ``env`` are not tools' folders: an agent may name its package
    so, and what the inspector reads there is vendored too."""
    root = write_files(
        tmp_path / "agent",
        {f"{folder}/langgraph.json": CONFIG, f"{folder}/graph.py": "graph = None\n"},
    )

    config = load_config(root)
    result = vendor(Source(url=str(root), path=str(root)), tmp_path / "src")

    assert config.config_file == f"{folder}/langgraph.json"
    assert result.files == [f"{folder}/graph.py", f"{folder}/langgraph.json"]
