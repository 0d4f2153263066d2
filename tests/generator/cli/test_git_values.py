"""Values that reach git from the command line (--ref, --branch, a plugin's recorded ref) are
names, never options: a bad one is refused in one line before git runs, and nothing it asked
for ever happens."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from plugin_repo import ImportedPlugin, agent_repo, commit_all, echo_agent, runtime_repo

from generator.cli import build_parser, main

#: Every command that takes --ref, with the arguments it needs besides.
REF_COMMANDS = [
    ["inspect", "agent"],
    ["design", "agent", "--plugin-id", "demo"],
    ["import", "agent", "--plugin-id", "demo"],
    ["update", "demo"],
]
#: An import that writes nothing and needs no model.
FLAGS = ["--plugin-id", "demo", "--offline", "--dry-run"]
BAD_REFS = ["--upload-pack=touch pwned;git-upload-pack", "-x", "--output=/tmp/x", "a..b", "x@{1}"]


def upload_pack_attack(marker: Path) -> str:
    """A --ref that, read as an option of ``git fetch``, runs ``touch MARKER``."""
    return f"--upload-pack=touch {marker};git-upload-pack"


@pytest.mark.parametrize("command", REF_COMMANDS, ids=lambda argv: argv[0])
@pytest.mark.parametrize("ref", BAD_REFS)
def test_a_ref_that_is_no_name_is_a_usage_error(
    command: list[str], ref: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args([*command, f"--ref={ref}"])
    assert exit_.value.code == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith(f"agent-import {command[0]}: error: argument --ref: '")
    assert last.endswith(" is not a branch, tag or commit name")


@pytest.mark.parametrize(
    "command", [["import", "agent", "--plugin-id", "demo"], ["update", "demo"]]
)
@pytest.mark.parametrize("branch", ["-evil", "--force", "HEAD", "a..b"])
def test_a_branch_git_would_not_take_is_a_usage_error(
    command: list[str], branch: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args([*command, f"--branch={branch}"])
    assert exit_.value.code == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert last == (
        f"agent-import {command[0]}: error: argument --branch: "
        f"{branch!r} is not a valid branch name"
    )


def test_names_are_taken_as_they_are() -> None:
    args = build_parser().parse_args(
        ["import", "agent", "--plugin-id", "demo", "--ref", "v1.2.3", "--branch", "feature/x"]
    )
    assert (args.ref, args.branch) == ("v1.2.3", "feature/x")


@pytest.mark.parametrize("local", [False, True], ids=["file-url", "folder"])
def test_the_upload_pack_attack_on_import_runs_nothing(tmp_path: Path, local: bool) -> None:
    """``agent-import import`` in its own process, as a person would type it."""
    repo = runtime_repo(tmp_path / "repo")
    agent = agent_repo(tmp_path / "agent", echo_agent("echo_git_values"))
    marker = tmp_path / "pwned"
    src = str(agent) if local else agent.as_uri()

    attack = ["--ref", upload_pack_attack(marker)]

    done = subprocess.run(
        [sys.executable, "-m", "generator.cli", "import", src, *attack, *FLAGS],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )

    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert done.stderr.splitlines()[-1].startswith(
        "agent-import import: error: argument --ref: '--upload-pack=touch "
    )
    assert not marker.exists()


def test_a_recorded_ref_that_is_an_option_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The answers file is reviewed like any file, but a ref read from it still never reaches
    git as an option."""
    imported = ImportedPlugin(tmp_path, package="counter_git_values")
    monkeypatch.chdir(imported.repo)
    marker = tmp_path / "pwned"
    answers_file = imported.plugin / ".copier-answers.yml"
    answers = imported.answers()
    answers["source_ref"] = upload_pack_attack(marker)
    answers_file.write_text(yaml.safe_dump(answers, sort_keys=False))
    commit_all(imported.repo, "a poisoned answers file")

    code = main(["update", "counter", "--offline"])

    assert code == 1
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith("agent-import: error: '--upload-pack=touch ")
    assert last.endswith(" is not a branch, tag or commit name")
    assert not marker.exists()
