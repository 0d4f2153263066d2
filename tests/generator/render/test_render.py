"""The Copier template through ``render``: what a plugin folder holds, and that it updates."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from plugin_repo import ROOT, agent_repo, commit_all, echo_agent, git, options, runtime_repo

from generator.errors import AgentImportError
from generator.pipeline.importer import import_agent
from generator.render.template import find_template, read_answers
from runtime.contract.layout import PLUGINS_FOLDER


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return runtime_repo(tmp_path / "runtime-repo")


def test_the_template_must_be_committed(tmp_path: Path) -> None:
    folder = tmp_path / "bare"
    folder.mkdir()
    git(folder, "init", "--quiet")
    (folder / "copier.yml").write_text("_subdirectory: copier-template\n")
    (folder / "copier-template").mkdir()

    with pytest.raises(AgentImportError, match="not committed"):
        find_template(folder)


def test_the_template_is_pinned_to_its_last_commit_and_edits_are_flagged(repo: Path) -> None:
    pinned = git(repo, "log", "-1", "--format=%H", "--", "copier.yml", "copier-template")
    (repo / "unrelated.txt").write_text("not the template\n")
    commit_all(repo, "unrelated")

    assert find_template(repo).commit == pinned and not find_template(repo).dirty
    (repo / "copier-template" / "README.md.jinja").write_text("edited\n")
    assert find_template(repo).dirty


@pytest.mark.slow
def test_generated_python_passes_the_projects_own_lint_and_types(
    repo: Path, tmp_path: Path
) -> None:
    files = echo_agent("echo_lint")
    files["README.md"] = "Answers questions about savings, " * 5 + "and much more besides.\n"
    agent = agent_repo(tmp_path / "echo", files)
    import_agent(options(agent, "linted"), root=repo)
    import_agent(options(agent, "linted_port", strategy="port"), root=repo)
    generated = [str(p) for p in (repo / PLUGINS_FOLDER).glob("*/*.py")]
    assert len(generated) == 5  # __init__.py and plugin.py each, and the port's respond.py
    project = ROOT
    first_party = "lint.isort.known-first-party = ['runtime', 'generator']"
    settings = ["--config", str(project / "pyproject.toml"), "--config", first_party]

    for tool in (
        ["ruff", "format", "--check", *settings, *generated],
        ["ruff", "check", *settings, *generated],
        [
            "mypy",
            "--strict",
            "--ignore-missing-imports",
            "--follow-imports=silent",
            # A warm cache kept with the project's: checking LangGraph's stubs cold costs ~20 s.
            f"--cache-dir={ROOT / '.mypy_cache' / 'generated-plugin'}",
            *generated,
        ],
    ):
        done = subprocess.run(
            [sys.executable, "-m", *tool],
            capture_output=True,
            text=True,
            cwd=repo,
            env={**os.environ, "MYPYPATH": str(project)},
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr


def test_copier_update_from_the_root_keeps_hand_edits(repo: Path, tmp_path: Path) -> None:
    agent = agent_repo(tmp_path / "echo", echo_agent("echo_update"))
    import_agent(options(agent, "updatable"), root=repo)
    plugin = repo / PLUGINS_FOLDER / "updatable"
    readme = plugin / "README.md"
    readme.write_text(readme.read_text() + "\nReviewed by the payments team.\n")
    commit_all(repo, "import and review")
    template = repo / "copier-template" / "README.md.jinja"
    template.write_text(template.read_text().replace("# {{ title }}", "# {{ title }} (imported)"))
    commit_all(repo, "template: mark imported plugins")

    for command in (
        ["generator.cli", "template"],
        ["copier", "update", str(plugin.relative_to(repo)), "--defaults"],
    ):
        done = subprocess.run(
            [sys.executable, "-m", *command], capture_output=True, text=True, cwd=repo, check=False
        )
        assert done.returncode == 0, done.stderr
    text = readme.read_text()
    assert "(imported)" in text and "Reviewed by the payments team." in text
    assert git(repo, "diff", "--name-only", "--diff-filter=U") == ""
    assert read_answers(plugin)["_src_path"] == ".agent-import/template"


def test_the_template_validators_refuse_what_the_importer_would_never_send(
    repo: Path, tmp_path: Path
) -> None:
    from copier import run_copy

    answers = {
        "plugin_id": "Bad-Id",
        "title": "Title",
        "source_url": "somewhere",
        "config_file": "langgraph.json",
        "graph_id": "agent",
        "graph_spec": "./agent.py:graph",
        "export_kind": "factory",
    }
    with pytest.raises(ValueError, match="plugin_id must match"):
        run_copy(str(repo), str(tmp_path / "out"), data=answers, defaults=True, quiet=True)
