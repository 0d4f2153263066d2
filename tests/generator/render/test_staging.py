"""The atomic writer: nothing in the plugins folder changes unless ``commit`` completes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from plugin_repo import tree

from generator.errors import AgentImportError
from generator.render import staging
from generator.render.claim import ClaimHeld
from generator.render.staging import Staging


def plugins(tmp_path: Path) -> Path:
    folder = tmp_path / "plugins"
    (folder / "old").mkdir(parents=True)
    (folder / "old" / "plugin.py").write_text("old\n")
    return folder


def build(stage: Staging, text: str) -> None:
    stage.folder.mkdir()
    (stage.folder / "plugin.py").write_text(text)


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


def test_a_second_stage_of_the_same_id_is_refused_until_the_first_is_done(tmp_path: Path) -> None:
    folder = plugins(tmp_path)
    with Staging(folder, "fresh") as first:
        with pytest.raises(ClaimHeld, match=f"pid {os.getpid()} "):
            Staging(folder, "fresh")
        with Staging(folder, "fresh", dry_run=True):  # a dry run writes nothing: no claim
            pass
        build(first, "first\n")
        first.commit()

    with pytest.raises(AgentImportError, match="already exists; use --force to replace it"):
        Staging(folder, "fresh")
    assert tree(folder) == {"old/plugin.py": b"old\n", "fresh/plugin.py": b"first\n"}
    assert sorted(os.listdir(folder)) == ["fresh", "old"]  # no claim, no staging folder


def test_forced_stages_of_the_same_id_replace_it_one_at_a_time(tmp_path: Path) -> None:
    folder = plugins(tmp_path)
    with Staging(folder, "old", force=True) as first:
        with pytest.raises(ClaimHeld):
            Staging(folder, "old", force=True)
        build(first, "first\n")
        first.commit()
    with Staging(folder, "old", force=True) as second:
        build(second, "second\n")
        second.commit()

    assert tree(folder) == {"old/plugin.py": b"second\n"}
    assert os.listdir(folder) == ["old"]


@pytest.mark.parametrize("made", [{}, {"plugin.py": "by hand\n"}], ids=["empty", "full"])
def test_a_folder_made_meanwhile_is_never_replaced_without_force(
    tmp_path: Path, made: dict[str, str]
) -> None:
    folder = plugins(tmp_path)
    with Staging(folder, "fresh") as stage:
        build(stage, "staged\n")
        (folder / "fresh").mkdir()  # by a writer that takes no claim
        for name, text in made.items():
            (folder / "fresh" / name).write_text(text)
        with pytest.raises(AgentImportError, match="already exists; use --force to replace it"):
            stage.commit()

    assert (folder / "fresh").is_dir()
    assert tree(folder / "fresh") == {name: text.encode() for name, text in made.items()}
    assert sorted(os.listdir(folder)) == ["fresh", "old"]


@pytest.mark.parametrize("interruption", [RuntimeError, KeyboardInterrupt])
def test_the_claim_is_released_however_the_stage_ends(
    tmp_path: Path, interruption: type[BaseException]
) -> None:
    folder = plugins(tmp_path)
    with pytest.raises(interruption), Staging(folder, "fresh") as stage:
        build(stage, "staged\n")
        with pytest.raises(ClaimHeld):
            Staging(folder, "fresh")
        raise interruption

    assert os.listdir(folder) == ["old"]
    with Staging(folder, "fresh") as again:
        build(again, "again\n")
        again.commit()
    assert tree(folder / "fresh") == {"plugin.py": b"again\n"}
