"""``a2ui-runtime``: plugins listing, demo, help and bad flags."""

from __future__ import annotations

import io
import json
import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from runtime.cli import STORAGE_ENVS, main
from runtime.testing.demo import run_demo


@pytest.fixture(autouse=True)
def restore_root_logger() -> Iterator[None]:
    """``main`` configures logging for the process; give the next test its logging back."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def test_plugins_lists_the_good_and_the_broken(
    plugins_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["plugins", "--plugins-dir", str(plugins_dir)]) == 0
    out = capsys.readouterr().out
    assert "echo  Echo\n    actions: echo.press\n" in out
    assert "boom  Boom\n    actions: (none)\n" in out
    assert (
        "bad_import  BROKEN: ModuleNotFoundError: No module named 'does_not_exist_anywhere'" in out
    )
    assert "wrong_id  BROKEN: plugin_id 'something_else' must equal the folder name" in out


def test_plugins_json_and_the_environment_variable(
    plugins_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("A2UI_PLUGINS_DIR", str(plugins_dir))
    assert main(["plugins", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert sorted(report["plugins"]) == ["boom", "echo"]
    assert sorted(report["broken"]) == ["bad_import", "bad_syntax", "wrong_id"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["serve", "--storage", "redis:x"], "storage must be 'memory', 'sqlite:PATH' or"),
        (["serve", "--checkpointer", "redis:x"], "storage must be"),  # its older name
        (
            ["plugins", "--plugins-dir", "/no/such/dir"],
            "plugins_dir: Path does not point to a directory",
        ),
    ],
)
def test_bad_settings_are_one_line_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("a2ui-runtime: error: ")
    assert message in err
    assert err.count("\n") == 1


@pytest.mark.parametrize("command", ["serve", "plugins", "demo"])
def test_every_command_explains_itself(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main([command, "--help"])
    assert caught.value.code == 0
    assert "--plugins-dir" in capsys.readouterr().out


def test_the_mortgage_demo_plays_to_the_end(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert '==> user says "my house is worth 400k' in out
    assert "==> user clicks Button 'product_choose' -> mortgage.select_product" in out
    assert "    voice  " in out
    assert "ProductCard#product_card" in out
    assert out.endswith("demo passed: 3 turn(s), no errors\n")


def test_the_text_demo_has_no_voice(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--text"]) == 0
    out = capsys.readouterr().out
    assert "    voice  " not in out
    assert "    text   " in out


def test_a_failing_demo_exits_non_zero(
    plugins_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["demo", "--plugins-dir", str(plugins_dir)]) == 1
    out = capsys.readouterr().out
    assert "the server closed the connection (4000: unknown agent 'mortgage'" in out
    assert "demo FAILED" in out


def test_a_demo_without_a_script(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["demo", "--agent", "nobody"])
    assert caught.value.code == 2
    assert "argument --agent: invalid choice: 'nobody'" in capsys.readouterr().err


def test_run_demo_refuses_an_agent_without_a_script() -> None:
    out = io.StringIO()
    assert run_demo("nobody", out=out) == 2
    assert out.getvalue() == (
        "demo: no script for agent 'nobody'; scripts exist for ['lost_card', 'mortgage']\n"
    )


def test_the_demo_honours_the_log_level() -> None:
    """The demo's server runs with the CLI's settings, uvicorn's loggers included."""
    done = subprocess.run(
        [sys.executable, "-m", "runtime.cli", "demo", "--log-level", "DEBUG"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert "DEBUG   uvicorn.error: > TEXT" in done.stderr  # the server's own frame log


@pytest.mark.parametrize("variable", STORAGE_ENVS)  # A2UI_STORAGE, and its older name
def test_an_unreachable_postgres_is_one_line_without_the_password(
    plugins_dir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    variable: str,
) -> None:
    for name in STORAGE_ENVS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(variable, "postgresql://app:s3cret@127.0.0.1:1/sessions")
    assert main(["serve", "--port", "0", "--plugins-dir", str(plugins_dir)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        "a2ui-runtime: error: cannot connect to PostgreSQL at postgresql://app:***@127.0.0.1:1/"
    )
    assert "s3cret" not in err
    assert err.count("\n") == 1
