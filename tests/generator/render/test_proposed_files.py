"""A file proposed from its example is made once: an update keeps the reviewed copy."""

from __future__ import annotations

from pathlib import Path

from generator.models import Inspection, ProposedFile, Source
from generator.render.proposed_files import write_proposed


def inspection(root: Path) -> Inspection:
    return Inspection(
        source=Source(url=str(root), path=str(root)),
        config_file="langgraph.json",
        graphs=[],
        proposed_files=[ProposedFile(path="conf/app.yaml", example="conf/app.example.yaml")],
    )


def test_the_example_is_copied_and_a_reviewed_copy_is_kept_on_update(tmp_path: Path) -> None:
    fresh, current = tmp_path / "fresh" / "src", tmp_path / "plugin" / "src"
    for src in (fresh, current):
        (src / "conf").mkdir(parents=True)
        (src / "conf" / "app.example.yaml").write_text("key: CHANGE-ME\n")
    (current / "conf" / "app.yaml").write_text("key: reviewed\n")

    first = write_proposed(inspection(tmp_path), current.parent.parent / "first")
    imported = tmp_path / "imported"
    (imported / "conf").mkdir(parents=True)
    (imported / "conf" / "app.example.yaml").write_text("key: CHANGE-ME\n")
    notes = write_proposed(inspection(tmp_path), imported)
    write_proposed(inspection(tmp_path), fresh, kept=current)

    assert first == []  # no example there: nothing made
    assert notes == ["proposed src/conf/app.yaml from conf/app.example.yaml: review it"]
    assert (imported / "conf" / "app.yaml").read_text() == "key: CHANGE-ME\n"
    assert (fresh / "conf" / "app.yaml").read_text() == "key: reviewed\n"
