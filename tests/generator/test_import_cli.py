"""``agent-import import`` and ``agent-import validate`` on the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from plugin_repo import agent_repo, echo_agent, runtime_repo, tree

from generator.cli import main
from runtime.layout import PLUGINS_FOLDER


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
    assert json.loads(result["files"]["agent.json"])["strategy"] == "wrapper"
    assert result["files"]["src/graph.py"].startswith("from langchain_core")


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
