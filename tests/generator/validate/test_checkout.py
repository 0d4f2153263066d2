"""``python -m generator.cli`` run in a checkout other than the one the interpreter's editable
install points at (a clone, as ``bench/bench_update.py`` makes) imports that checkout's
``runtime`` and ``generator``; so do its checks, in the warm interpreter or a new one, and the
sandbox shows those packages: the plugin's ``runtime.adapters.wrapper`` is found there."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import generator
import runtime
from runtime.contract.layout import PLUGINS_FOLDER
from tests.generator.plugin_repo import runtime_repo

pytestmark = pytest.mark.usefixtures("sandbox_available")

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "savings_helper"


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository with its own copy of ``runtime`` and ``generator`` (not the runtime's
    plugins), the example imported there by its command line (whose checks must pass too)."""
    repo = runtime_repo(tmp_path_factory.mktemp("checkout") / "repo")
    plugins = Path(runtime.__file__).parent / "plugins"
    for package in (runtime, generator):
        source = Path(package.__file__ or "").parent
        shutil.copytree(
            source,
            repo / source.name,
            ignore=lambda folder, names: [
                name
                for name in names
                if name == "__pycache__" or (Path(folder) == plugins and name != "__init__.py")
            ],
            dirs_exist_ok=True,
        )
    imported = run(repo, "-m", "generator.cli", "import", str(EXAMPLE), "--plugin-id", "savings",
                   "--offline")  # fmt: skip
    assert imported.returncode == 0, imported.stdout + imported.stderr
    assert (repo / PLUGINS_FOLDER / "savings" / "plugin.py").is_file()
    return repo


def run(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` from ``repo`` (``-m`` and ``-c`` put it first on the path)."""
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    return subprocess.run(
        [sys.executable, *args], cwd=repo, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("extra", [[], ["--no-sandbox"]], ids=["sandboxed", "no-sandbox"])
def test_its_command_line_validates_with_its_own_packages(checkout: Path, extra: list[str]) -> None:
    """In a fork of the warm interpreter."""
    done = run(checkout, "-m", "generator.cli", "validate", "savings", *extra)

    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("validate savings: passed"), done.stdout


#: The checks in a new interpreter (as where the warm one cannot take them), in the sandbox and
#: not, and what the check interpreters are given first on their path.
COLD = """
import os
from pathlib import Path

from generator.validate import plugin, warm

warm.start = lambda: None
for sandboxed in (True, False):
    report = plugin.validate(Path("runtime/plugins/savings"), sandboxed=sandboxed)
    assert report.ok, report.describe()
print(os.pathsep.join(warm.package_roots()))
"""


def test_a_new_check_interpreter_imports_its_packages_too(checkout: Path) -> None:
    done = run(checkout, "-c", COLD)

    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == str(checkout)
