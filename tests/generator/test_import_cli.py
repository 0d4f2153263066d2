"""``agent-import import`` and ``agent-import validate`` on the command line."""

from __future__ import annotations

import errno
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from plugin_repo import ROOT, agent_repo, echo_agent, git, runtime_repo, tree

from generator.checks.contract import check
from generator.cli import main
from generator.design import DesignOptions, design
from generator.inspect import inspect_source
from generator.models import Source
from runtime.contract.layout import PLUGINS_FOLDER
from runtime.isolated.pythons import PLACES_ENV

SAVINGS_HELPER = ROOT / "examples" / "savings_helper"
IMPORT_SAVINGS = [
    *(sys.executable, "-m", "generator.cli", "import", str(SAVINGS_HELPER)),
    *("--plugin-id", "savings", "--json"),
]
ALREADY_EXISTS = (
    "already exists; use --force to replace it (the old folder is kept if anything fails)"
)
CLAIMED = "plugin 'savings' is being imported or updated by another process (pid "


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = runtime_repo(tmp_path / "repo")
    monkeypatch.chdir(path)
    return path


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    return agent_repo(tmp_path / "agent", echo_agent("echo_cli"))


@pytest.mark.parametrize("bad", ["../x", "X", "a", "x" * 40])
def test_bad_plugin_ids_get_one_clear_line_and_exit_1(
    repo: Path, agent: Path, bad: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["import", str(agent), "--plugin-id", bad, "--offline"])

    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1
    assert err[-1].startswith(f"agent-import: error: plugin id {bad!r} must match")


def test_import_prints_progress_per_step_and_the_written_files(
    repo: Path, agent: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["import", str(agent), "--plugin-id", "echo", "--offline"])

    out, err = capsys.readouterr()
    assert code == 0
    for step in ("fetch", "inspect", "design", "render", "dependencies", "validate", "write"):
        assert any(line.split()[:1] == [step] and " s " in line for line in err.splitlines())
    assert "wrote" in out and "plugin.py" in out and "validate echo: passed" in out
    assert (repo / PLUGINS_FOLDER / "echo" / "plugin.py").is_file()


def test_dry_run_json_gives_the_files_as_strings_and_writes_nothing(
    repo: Path, agent: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = tree(repo)

    code = main(["import", str(agent), "--plugin-id", "echo", "--offline", "--dry-run", "--json"])

    result = json.loads(capsys.readouterr().out)
    assert code == 0 and tree(repo) == before
    assert result["dry_run"] is True
    assert json.loads(result["files"]["agent.json"])["graph_id"] == "agent"
    assert result["files"]["src/graph.py"].startswith("from langchain_core")


def test_a_dry_run_never_runs_a_command_the_agents_repository_configures(
    repo: Path, agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder handed to ``import`` is as untrusted as a URL: the ``core.fsmonitor`` command
    of its ``.git/config`` (a script, here) never runs, not even for a dry run."""
    ran = tmp_path / "ran"
    script = tmp_path / "fsmonitor.sh"
    script.write_text(f"#!/bin/sh\ntouch {ran}\nexit 1\n")
    script.chmod(0o755)
    git(agent, "config", "core.fsmonitor", str(script))

    code = main(["import", str(agent), "--plugin-id", "echo", "--offline", "--dry-run", "--json"])

    assert code == 0, capsys.readouterr().err
    assert not ran.exists()


def test_offline_and_design_file_are_exclusive(repo: Path, agent: Path) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["import", str(agent), "--plugin-id", "e", "--offline", "--design-file", "d.json"])
    assert exit_.value.code == 2


def test_validate_reports_a_plugin_and_refuses_an_unknown_one(
    repo: Path, agent: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["import", str(agent), "--plugin-id", "echo", "--offline"]) == 0
    capsys.readouterr()

    assert main(["validate", "echo"]) == 0
    assert capsys.readouterr().out.startswith("validate echo: passed")
    assert main(["validate", "nothing_here"]) == 1
    assert "no plugin 'nothing_here'" in capsys.readouterr().err


def test_a_failed_validation_prints_the_report_then_the_error(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = echo_agent("echo_cli_broken")
    files["echo_cli_broken/replies.py"] = "def reply(text, number):\n    raise KeyError('x')\n"
    broken = agent_repo(tmp_path / "broken", files)

    code = main(["import", str(broken), "--plugin-id", "broken", "--offline"])

    err = capsys.readouterr().err
    assert code == 1
    assert "validate broken: FAILED" in err and "KeyError" in err
    assert err.strip().splitlines()[-1].endswith("nothing was written")
    assert not (repo / PLUGINS_FOLDER / "broken").exists()


def test_an_agent_asking_for_a_python_not_here_imports_with_the_warning_printed(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PLACES_ENV, "")
    files = echo_agent("echo_cli_newer")
    files["langgraph.json"] = json.dumps(
        {**json.loads(files["langgraph.json"]), "python_version": "3.99"}
    )
    agent = agent_repo(tmp_path / "newer", files)

    code = main(["import", str(agent), "--plugin-id", "newer", "--offline"])

    out = capsys.readouterr().out
    assert code == 0, out
    assert "validate newer: passed with a warning: needs another Python: asked for Python 3.99" in (
        out
    )
    assert "fix: install it with `uv python install 3.99`, then import again" in out
    assert (
        json.loads((repo / PLUGINS_FOLDER / "newer" / "agent.json").read_text())["environment"][
            "asked_python"
        ]
        == "3.99"
    )


def test_a_failed_validation_prints_its_diagnosis_first_then_why_and_the_fix(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = echo_agent("echo_cli_input")
    files["echo_cli_input/replies.py"] = (
        "def reply(text, number):\n    state = {}\n    return state['topic']\n"
    )
    agent = agent_repo(tmp_path / "needs_input", files)

    code = main(["import", str(agent), "--plugin-id", "needs_input", "--offline"])

    lines = capsys.readouterr().err.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("validate needs_input"))
    assert code == 1
    assert lines[first] == (
        "validate needs_input: FAILED: needs a setting: the agent needs a value for 'topic' "
        "(src/echo_cli_input/replies.py:3)"
    )
    assert lines[first + 1].startswith("  The agent reads an input field, 'topic', that nothing")
    assert lines[first + 2] == '  fix: set agent.json "inputs": {"topic": ...}'
    assert lines[-1] == (
        "agent-import: error: the plugin did not validate (needs a setting: the agent needs a "
        "value for 'topic' (src/echo_cli_input/replies.py:3)); nothing was written"
    )


@pytest.fixture(scope="module")
def savings_design() -> str:
    """The offline design of examples/savings_helper as ``savings``, for ``--design-file``."""
    source = Source(url=str(SAVINGS_HELPER), path=str(SAVINGS_HELPER))
    offline = DesignOptions(offline=True, use_cache=False)
    return design(inspect_source(source), plugin_id="savings", options=offline).model_dump_json()


def start_import(repo: Path, *flags: str, design_file: Path | None = None) -> subprocess.Popen[str]:
    """``agent-import import`` of examples/savings_helper as ``savings`` in ``repo``, in a process
    of its own: offline, or with the design read from ``design_file``."""
    design = ["--design-file", str(design_file)] if design_file else ["--offline"]
    return subprocess.Popen(
        [*IMPORT_SAVINGS, *design, *flags],
        cwd=repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@contextmanager
def held_at_design(
    tmp_path: Path, repo: Path, savings_design: str, *flags: str
) -> Iterator[subprocess.Popen[str]]:
    """An import holding the claim: waiting at its design step to read the design from a pipe,
    which gets it when the block ends."""
    pipe = tmp_path / "design.pipe"
    os.mkfifo(pipe)
    process = start_import(repo, *flags, design_file=pipe)
    while True:  # opening a pipe's write end without blocking works once it is being read
        try:
            fd = os.open(pipe, os.O_WRONLY | os.O_NONBLOCK)
            break
        except OSError as exc:
            assert exc.errno == errno.ENXIO and process.poll() is None, process.communicate()
            time.sleep(0.05)
    os.set_blocking(fd, True)
    try:
        yield process
    finally:
        with open(fd, "w") as writer:
            writer.write(savings_design)


def finish(*processes: subprocess.Popen[str]) -> list[subprocess.CompletedProcess[str]]:
    done = []
    for process in processes:
        out, err = process.communicate(timeout=300)
        done.append(subprocess.CompletedProcess(process.args, process.returncode, out, err))
    return done


def error_line(done: subprocess.CompletedProcess[str]) -> str:
    assert (done.returncode, done.stdout) == (1, ""), done.stderr
    last = done.stderr.splitlines()[-1]
    assert last.startswith("agent-import: error: "), done.stderr
    return last


def assert_written_whole(repo: Path, winner: subprocess.CompletedProcess[str]) -> None:
    """The plugins folder holds the winner's plugin, every file of it, and nothing else."""
    plugins = repo / PLUGINS_FOLDER
    assert sorted(os.listdir(plugins)) == ["README.md", "savings"]  # no claim, no staging folder
    assert set(tree(plugins / "savings")) == set(json.loads(winner.stdout)["files"])
    assert check(plugins / "savings") == []


def test_an_import_is_refused_while_another_one_holds_the_plugin_id(
    tmp_path: Path, savings_design: str
) -> None:
    repo = runtime_repo(tmp_path / "repo")
    plugins = repo / PLUGINS_FOLDER

    with held_at_design(tmp_path, repo, savings_design) as first:
        before = sorted(os.listdir(plugins))
        (refused,) = finish(start_import(repo))
        assert sorted(os.listdir(plugins)) == before  # nothing of the refused import

    assert error_line(refused) == (
        f"agent-import: error: {CLAIMED}{first.pid} on {socket.gethostname()}); "
        "wait for it to finish, then try again"
    )
    (winner,) = finish(first)
    assert winner.returncode == 0, winner.stderr
    (late,) = finish(start_import(repo))
    assert error_line(late).endswith(ALREADY_EXISTS)
    assert_written_whole(repo, winner)


def test_forced_imports_of_one_plugin_id_replace_it_one_at_a_time(
    tmp_path: Path, savings_design: str
) -> None:
    repo = runtime_repo(tmp_path / "repo")
    (first,) = finish(start_import(repo))
    assert first.returncode == 0, first.stderr
    plugin = repo / PLUGINS_FOLDER / "savings"
    before = tree(plugin)

    with held_at_design(tmp_path, repo, savings_design, "--force") as second:
        (refused,) = finish(start_import(repo, "--force"))
        assert tree(plugin) == before

    assert f"{CLAIMED}{second.pid} " in error_line(refused)
    (replaced,) = finish(second)
    assert replaced.returncode == 0, replaced.stderr
    assert tree(plugin) != before
    assert_written_whole(repo, replaced)


@pytest.mark.parametrize("race", range(3))
def test_two_imports_of_one_plugin_id_at_once_make_one_plugin(tmp_path: Path, race: int) -> None:
    repo = runtime_repo(tmp_path / "repo")

    results = finish(start_import(repo), start_import(repo))

    assert sorted(done.returncode for done in results) == [0, 1], [d.stderr for d in results]
    winner, loser = sorted(results, key=lambda done: done.returncode)
    refusal = error_line(loser)
    assert CLAIMED in refusal or refusal.endswith(ALREADY_EXISTS)
    assert_written_whole(repo, winner)
