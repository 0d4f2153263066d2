"""The inspector never imports or runs the agent: a repo that writes a file when imported
(package ``__init__``, state module, graph module, a builder function, a node) is inspected
fully, and the file never appears."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from generator.models import Inspection

TRIPWIRE = Path(__file__).resolve().parents[2] / "fixtures" / "agents" / "tripwire"


def fired(root: Path) -> list[Path]:
    return list(root.rglob("TRIPWIRE_FIRED"))


def test_inspecting_in_process_imports_nothing(
    tmp_path: Path, inspect_folder: Callable[..., Inspection]
) -> None:
    repo = shutil.copytree(TRIPWIRE, tmp_path / "repo")
    inspection = inspect_folder(repo)
    graph = inspection.graphs[0]
    assert graph.state is not None and [f.name for f in graph.state.fields] == ["value"]
    assert graph.nodes is not None and [n.name for n in graph.nodes] == ["fire"]
    assert fired(tmp_path) == []
    assert not any(name == "trap" or name.startswith("trap.") for name in sys.modules)


def test_inspecting_through_the_cli_imports_nothing(tmp_path: Path) -> None:
    repo = shutil.copytree(TRIPWIRE, tmp_path / "repo")
    done = subprocess.run(
        [sys.executable, "-m", "generator.cli", "inspect", str(repo), "--json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert '"fire"' in done.stdout
    assert fired(tmp_path) == []


def test_the_tripwire_is_armed(tmp_path: Path) -> None:
    """Importing the fixture for real does write the file: the tests above can fail."""
    repo = shutil.copytree(TRIPWIRE, tmp_path / "repo")
    subprocess.run(
        [sys.executable, "-c", "import trap.state"],
        cwd=repo,
        env={"PYTHONDONTWRITEBYTECODE": "1", "PATH": ""},
        timeout=60,
        check=True,
    )
    assert fired(tmp_path) == [repo / "trap" / "TRIPWIRE_FIRED"]
