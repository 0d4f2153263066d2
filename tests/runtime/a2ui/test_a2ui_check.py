"""``python -m runtime.a2ui.check``: one line per issue, exit 1 on any."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from runtime.a2ui.check import main


def put(path: Path, data: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_valid_files_pass_silently(
    tmp_path: Path,
    example_screen: Callable[[str], dict[str, Any]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = put(
        tmp_path / "runtime" / "plugins" / "example" / "screens" / "confirm.json",
        example_screen("confirm"),
    )
    assert main([str(path)]) == 0
    assert capsys.readouterr().out == ""


def test_issues_one_line_each(
    tmp_path: Path,
    example_screen: Callable[[str], dict[str, Any]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    good = put(tmp_path / "example" / "screens" / "welcome.json", example_screen("welcome"))
    screen = example_screen("confirm")
    screen["components"] = [c for c in screen["components"] if c["id"] != "confirm_txt"]
    bad = put(tmp_path / "mortgage" / "screens" / "confirm.json", screen)
    assert main([str(good), str(bad)]) == 1
    wrong_namespace = "action name 'example.{}' must start with 'mortgage.'"
    assert capsys.readouterr().out.splitlines() == [
        f"{bad}: component 'confirm_btn' property 'child': dangling id 'confirm_txt'",
        f"{bad}: component 'cancel_btn' property 'action': " + wrong_namespace.format("cancel"),
        f"{bad}: component 'confirm_btn' property 'action': " + wrong_namespace.format("confirm"),
    ]


def test_plugin_id_option(
    tmp_path: Path,
    example_screen: Callable[[str], dict[str, Any]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = put(tmp_path / "confirm.json", example_screen("confirm"))
    assert main([str(path), "--plugin-id", "example"]) == 0
    assert main([str(path), "--plugin-id", "other"]) == 1
    assert main([str(tmp_path / "missing.json")]) == 1
    assert "missing.json: cannot read" in capsys.readouterr().out


def test_runs_as_a_module() -> None:
    examples = sorted(
        str(p) for p in (Path(__file__).parents[3] / "runtime" / "a2ui" / "examples").glob("*.json")
    )
    done = subprocess.run(
        [sys.executable, "-m", "runtime.a2ui.check", "--plugin-id", "example", *examples],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, "")


def test_the_hook_does_not_import_langgraph() -> None:
    """Pre-commit runs the check on every commit: it stays free of LangGraph's import time."""
    probe = (
        "import sys, runtime.a2ui.check; print(sorted(m for m in sys.modules if 'langgraph' in m))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
