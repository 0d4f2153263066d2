"""``agent-import update`` and ``import --branch`` on the command line, and a plain
``copier update`` of an imported plugin, in real git repositories."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from plugin_repo import (
    ImportedPlugin,
    agent_repo,
    commit_all,
    echo_agent,
    git,
    options,
    runtime_repo,
)

from generator.cli import main
from generator.pipeline.importer import import_agent
from runtime.contract.layout import PLUGINS_FOLDER

FOOTER = "\nReviewed by the platform team.\n"


@pytest.fixture
def imported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ImportedPlugin:
    plugin = ImportedPlugin(tmp_path, package="counter_cli")
    monkeypatch.chdir(plugin.repo)
    return plugin


def change_template(repo: Path) -> str:
    template = repo / "copier-template" / "README.md.jinja"
    template.write_text(template.read_text() + FOOTER)
    return commit_all(repo, "template: a footer")


def test_a_conflict_exits_1_and_names_each_file(
    imported: ImportedPlugin, capsys: pytest.CaptureFixture[str]
) -> None:
    readme = imported.plugin / "README.md"
    readme.write_text(readme.read_text().replace("| Commit |", "| Pinned commit |"))
    commit_all(imported.repo, "hand edit of the README")
    imported.change_upstream({"NOTES.md": "upstream notes\n"})

    code = main(["update", "counter", "--offline", "--branch", "update/counter"])

    out = capsys.readouterr().out
    assert code == 1
    assert "1 conflicts, marked in the files" in out
    assert "  runtime/plugins/counter/README.md: conflicting lines" in out
    assert git(imported.repo, "branch", "--list", "update/counter") == ""


def test_refusals_are_one_line_with_exit_1(
    imported: ImportedPlugin, capsys: pytest.CaptureFixture[str]
) -> None:
    (imported.plugin / "notes.txt").write_text("draft\n")

    assert main(["update", "counter"]) == 1
    assert main(["update", "nope"]) == 1

    err = capsys.readouterr().err.splitlines()
    errors = [line for line in err if line.startswith("agent-import: error:")]
    assert errors[0].startswith(
        "agent-import: error: runtime/plugins/counter has uncommitted changes (runtime/plugins/"
        "counter/notes.txt): commit or stash them first"
    )
    assert errors[1] == "agent-import: error: unknown plugin 'nope' (plugins: counter)"
    assert len(errors) == 2


def test_all_template_only_updates_every_imported_plugin_and_skips_hand_written_ones(
    imported: ImportedPlugin, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    second = agent_repo(tmp_path / "echo", echo_agent("echo_update_all"))
    import_agent(options(second, "echo"), root=imported.repo)
    (imported.repo / PLUGINS_FOLDER / "manual").mkdir()
    (imported.repo / PLUGINS_FOLDER / "manual" / "__init__.py").write_text("")
    commit_all(imported.repo, "a second plugin, and a hand-written one")
    change_template(imported.repo)

    code = main(["update", "--all", "--template-only", "--json"])

    results = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [(r["plugin_id"], r["status"]) for r in results] == [
        ("counter", "updated"),
        ("echo", "updated"),
    ]
    for plugin_id in ("counter", "echo"):
        readme = imported.repo / PLUGINS_FOLDER / plugin_id / "README.md"
        assert readme.read_text().endswith(FOOTER)


def import_on_branch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, package: str
) -> tuple[int, Path, Path, str]:
    """``agent-import import --branch add-echo`` of an echo agent in a new runtime repository:
    the exit code, the repository, the agent and the repository's HEAD before."""
    repo = runtime_repo(tmp_path / "repo")
    agent = agent_repo(tmp_path / "echo", echo_agent(package))
    monkeypatch.chdir(repo)
    before = git(repo, "rev-parse", "HEAD")
    code = main(["import", str(agent), "--plugin-id", "echo", "--offline", "--branch", "add-echo"])
    return code, repo, agent, before


def test_import_branch_makes_one_commit_of_the_plugin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, repo, agent, before = import_on_branch(tmp_path, monkeypatch, "echo_branch")

    assert code == 0
    assert "committed" in capsys.readouterr().out
    assert len(git(repo, "rev-list", f"{before}..add-echo").splitlines()) == 1
    message = git(repo, "log", "-1", "--format=%B", "add-echo").splitlines()
    assert message[0] == f"Import plugin echo from {agent} @ {git(agent, 'rev-parse', 'HEAD')[:12]}"
    assert "Strategy: wrapper (graph agent: ./graph.py:graph)" in message
    assert "Dependencies: langgraph>=1.0" in message
    assert git(repo, "status", "--porcelain") == ""
    changed = git(repo, "show", "--name-only", "--format=", "add-echo").splitlines()
    assert all(name.startswith("runtime/plugins/echo/") for name in changed)


@pytest.mark.usefixtures("no_git_identity")
def test_import_branch_without_a_git_identity_says_how_to_set_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, repo, _, before = import_on_branch(tmp_path, monkeypatch, "echo_no_identity")

    assert code == 1
    errors = [line for line in capsys.readouterr().err.splitlines() if "error" in line]
    assert len(errors) == 1
    assert "git has no identity to commit with" in errors[0]
    assert "git config --global user.email" in errors[0]
    assert git(repo, "rev-parse", "HEAD") == before
    assert git(repo, "branch", "--list", "add-echo") == ""
    assert git(repo, "status", "--porcelain") == ""


def test_a_plain_copier_update_keeps_hand_edits(imported: ImportedPlugin) -> None:
    imported.edit_screen("result", "title", text="Counted by hand")
    change_template(imported.repo)

    assert main(["template"]) == 0  # the template's own repository, in step with the change
    subprocess.run(
        [sys.executable, "-m", "copier", "update", "runtime/plugins/counter", "--defaults"],
        cwd=imported.repo,
        capture_output=True,
        check=True,
    )

    assert (imported.plugin / "README.md").read_text().endswith(FOOTER)
    title = next(c for c in imported.screen("result")["components"] if c["id"] == "title")
    assert title["text"] == "Counted by hand"
