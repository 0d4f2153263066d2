"""The two distributions of this repository, installed as a user installs them.

``a2ui-runtime`` (``runtime/pyproject.toml``) is the runtime alone: a fresh environment that
installs it has none of the generator's libraries and serves the reference plugins.
``agent-import`` (``pyproject.toml``) is the generator, installed beside it. Each is built into a
wheel and installed from it (not editable), with uv from its cache or the package index.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.runtime.conftest import runtime_server

ROOT = Path(__file__).resolve().parents[1]
#: The generator's libraries, which the runtime must never bring.
GENERATOR_ONLY = {"agent-import", "libcst", "copier", "jinja2", "boto3", "botocore"}

pytestmark = pytest.mark.slow


def run(*command: str | Path, cwd: Path) -> str:
    done = subprocess.run(
        [str(part) for part in command], capture_output=True, text=True, cwd=cwd, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A new environment with ``a2ui-runtime`` installed from its wheel, and nothing else."""
    scratch = tmp_path_factory.mktemp("distributions")
    uv = Path(sys.executable).with_name("uv")
    run(uv, "venv", "--quiet", "--python", sys.executable, scratch / "venv", cwd=scratch)
    python = scratch / "venv" / "bin" / "python"
    run(uv, "pip", "install", "--quiet", "--python", python, ROOT / "runtime", cwd=scratch)
    yield scratch / "venv"


def installed(venv: Path) -> set[str]:
    script = "import importlib.metadata as m; print('\\n'.join(d.name for d in m.distributions()))"
    listed = run(venv / "bin" / "python", "-c", script, cwd=venv)
    return {name.strip().lower().replace("_", "-") for name in listed.split()}


def test_the_runtime_installs_without_the_generator_or_its_libraries(venv: Path) -> None:
    names = installed(venv)
    assert {"a2ui-runtime", "fastapi", "langgraph", "uvicorn"} <= names
    assert names & GENERATOR_ONLY == set()
    where = run(venv / "bin" / "python", "-c", "import runtime; print(runtime.__file__)", cwd=venv)
    assert Path(where.strip()).is_relative_to(venv)  # the wheel's copy, not this checkout


def test_the_installed_runtime_serves_the_reference_plugins(venv: Path) -> None:
    python = str(venv / "bin" / "python")
    with runtime_server(python=python, cwd=venv) as (address, _):
        listed = httpx.get(f"http://{address}/plugins").json()
        page = httpx.get(f"http://{address}/chat")
    assert sorted(listed["plugins"]) == ["lost_card", "mortgage"] and listed["broken"] == {}
    assert page.status_code == 200


def test_agent_import_installs_beside_the_runtime(venv: Path) -> None:
    uv = Path(sys.executable).with_name("uv")
    python = venv / "bin" / "python"
    # --no-sources: the runtime already installed meets agent-import's requirement, as an
    # index's would; the checkout's editable one is for development only.
    run(uv, "pip", "install", "--quiet", "--no-sources", "--python", python, ROOT, cwd=venv)
    assert "agent-import" in installed(venv)
    usage = run(venv / "bin" / "agent-import", "--help", cwd=venv)
    assert usage.startswith("usage: agent-import")
    script = (
        "from importlib.metadata import entry_points; "
        "print([e.value for e in entry_points(group='a2ui_runtime.extensions')])"
    )
    assert run(python, "-c", script, cwd=venv).strip() == "['generator.api:install']"
