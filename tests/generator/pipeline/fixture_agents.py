"""Fixture agents (``tests/fixtures/agents``) as the git repositories an import reads."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.generator.plugin_repo import commit_all, git

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "agents"


def fixture_repo(name: str, path: Path) -> Path:
    """The fixture agent ``name``, less its ``expected.json``, committed in a new repository at
    ``path``."""
    shutil.copytree(FIXTURES / name, path, ignore=shutil.ignore_patterns("expected.json"))
    git(path, "init", "--quiet", "--initial-branch=main")
    commit_all(path, name)
    return path
