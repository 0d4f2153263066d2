"""The atomic writer: nothing in the plugins folder changes unless ``commit`` completes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from plugin_repo import tree

from generator.errors import AgentImportError
from generator.render import staging
from generator.render.staging import Staging


def plugins(tmp_path: Path) -> Path:
    folder = tmp_path / "plugins"
    (folder / "old").mkdir(parents=True)
    (folder / "old" / "plugin.py").write_text("old\n")
    return folder


def test_a_committed_stage_replaces_the_plugin_and_leaves_no_trace(tmp_path: Path) -> None:
    folder = plugins(tmp_path)
    with Staging(folder, "old", force=True) as stage:
        stage.folder.mkdir()
        (stage.folder / "plugin.py").write_text("new\n")
        assert stage.folder.parent.name.startswith(".")
        stage.commit()

    assert tree(folder) == {"old/plugin.py": b"new\n"}


def test_a_failed_swap_restores_the_old_plugin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = plugins(tmp_path)
    renames: list[tuple[str, str]] = []
    real_rename = os.rename

    def rename(source: Path, target: Path) -> None:
        renames.append((Path(source).name, Path(target).name))
        if len(renames) == 2:  # the new folder moving into place
            raise OSError("disk full")
        real_rename(source, target)

    monkeypatch.setattr(staging.os, "rename", rename)
    with Staging(folder, "old", force=True) as stage, pytest.raises(AgentImportError):
        stage.folder.mkdir()
        stage.commit()

    assert tree(folder) == {"old/plugin.py": b"old\n"}
    assert len(renames) == 3


def test_a_dry_run_stages_outside_the_repository(tmp_path: Path) -> None:
    folder = plugins(tmp_path)
    with Staging(folder, "fresh", dry_run=True) as stage:
        assert not stage.folder.is_relative_to(tmp_path)
    assert tree(folder) == {"old/plugin.py": b"old\n"}
