"""A name the repository provides is never fetched from a package index, in the uv workspace
shape that once installed an unrelated index project: root-level ``[tool.uv.sources]``, a
member with no sources of its own, and ``langgraph.json``'s ``source`` form."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from fixture_agents import fixture_repo
from plugin_repo import options, runtime_repo

from generator.dependencies.environment import approved_env_python
from generator.pipeline.importer import import_agent
from runtime.contract.layout import PLUGINS_FOLDER


@pytest.mark.slow
def test_the_workspace_shared_is_vendored_never_installed_from_the_index(
    tmp_path: Path, index_with_a_public_shared: Path
) -> None:
    repo = runtime_repo(tmp_path / "repo")
    agent = fixture_repo("uv_source_workspace", tmp_path / "agent")

    result = import_agent(options(agent, "ops", approve_deps=True), root=repo)

    assert result.validation.ok, result.validation.describe()
    names = [r.name for r in result.dependencies.requirements]
    assert names == ["extra-tool", "langgraph"]  # shared neither required nor proposed
    plugin = repo / PLUGINS_FOLDER / "ops"
    requirements = (plugin / "requirements.txt").read_text()
    assert "extra-tool" in requirements and "shared" not in requirements
    python = approved_env_python(repo, "ops")
    assert python is not None  # extra-tool was installed: the index was used
    probe = (
        "import importlib.metadata as m, extra_tool\n"
        "try:\n    print(m.version('shared'))\nexcept m.PackageNotFoundError:\n    print('absent')"
    )
    installed = subprocess.run([str(python), "-c", probe], capture_output=True, text=True)
    assert installed.stdout.strip() == "absent", installed.stderr
    answer = [line for line in result.validation.checks[-1].transcript if "ops desk" in line]
    assert answer, result.validation.checks[-1].transcript  # sign_off came from the vendored copy
