"""``agent-import demo``: the README's main job, against a clone of this repository."""

from __future__ import annotations

import io
import os
import subprocess
import tempfile
from pathlib import Path

import pytest

from generator.errors import AgentImportError
from generator.pipeline.demo import clone_repository, run_import_demo

ROOT = Path(__file__).resolve().parents[3]


def plugins_status() -> str:
    """``git status`` of the real plugins folder, which the demo must leave alone."""
    command = ["git", "-C", str(ROOT), "status", "--porcelain", "--", "runtime/plugins"]
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout


def test_the_demo_imports_an_example_into_a_clone_and_converses() -> None:
    status = plugins_status()
    out = io.StringIO()

    code = run_import_demo(ROOT, out=out)

    text = out.getvalue()
    assert code == 0, text
    assert "validate" in text and "passed" in text
    assert 'user says "And how much can I put in?"' in text
    assert "Still on ISAs" in text
    assert "demo passed: 5 turn(s), no errors" in text
    assert plugins_status() == status


def test_an_unknown_example_is_refused(tmp_path: Path) -> None:
    with pytest.raises(AgentImportError, match="no example 'nope'"):
        run_import_demo(tmp_path, example="nope", out=io.StringIO())


OTHER_FILESYSTEM = Path("/dev/shm")


@pytest.mark.skipif(
    not OTHER_FILESYSTEM.is_dir() or OTHER_FILESYSTEM.stat().st_dev == ROOT.stat().st_dev,
    reason="needs a second filesystem (/dev/shm) besides the checkout's",
)
def test_clone_works_onto_another_filesystem() -> None:
    """A tmpfs /tmp is common: the scratch clone must copy where it cannot hardlink."""
    with tempfile.TemporaryDirectory(dir=OTHER_FILESYSTEM) as tmp:
        dest = clone_repository(ROOT, Path(tmp) / "repo")

        assert (dest / "copier.yml").is_file()
        assert os.stat(dest).st_dev != ROOT.stat().st_dev
