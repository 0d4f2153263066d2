"""A validation environment gets only what the runtime's lacks, and is checked in a warm fork;
one that replaces an installed version gets the whole set and its own interpreter."""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from plugin_repo import (
    agent_repo,
    echo_agent,
    needs_dependency_agent,
    only_index,
    options,
    runtime_repo,
    wheel,
)

from generator.dependencies.additions import added_sites, planned_additions
from generator.dependencies.environment import approved_env_python, install_approved
from generator.dependencies.prefill import Prefill
from generator.pipeline.importer import import_agent
from generator.validate import warm
from generator.validate.plugin import validate
from runtime.contract.layout import PLUGINS_FOLDER
from runtime.isolated.envs import find_uv

#: An installed distribution of the runtime's, which a test's local index offers again.
INSTALLED = "packaging"


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A local package index: a new package that needs an installed one, and a newer version
    of that installed one."""
    folder = tmp_path / "index"
    wheel(folder, "new-tool", "new_tool", "1.0", requires=(INSTALLED,))
    wheel(folder, INSTALLED, "packaging_again", "999.0")
    return only_index(folder, monkeypatch)


def test_the_plan_is_what_the_runtime_lacks_or_none_when_it_would_replace_a_version(
    tmp_path: Path, index: Path
) -> None:
    adds, replaces = tmp_path / "adds.txt", tmp_path / "replaces.txt"
    adds.write_text("new-tool\n")
    replaces.write_text(f"{INSTALLED}>=999\n")

    def plan(requirements: Path) -> list[str] | None:
        return planned_additions(find_uv(), sys.executable, requirements, timeout=60)

    assert plan(adds) == ["new-tool==1.0"]  # packaging is installed: kept, not added
    assert plan(replaces) is None


def probe_agent(plugin: Path, record: Path) -> None:
    """Make the plugin's agent write which process checked it and with which interpreter."""
    graph = plugin / "src" / "graph.py"
    probe = (
        f"import os, sys\nopen({str(record)!r}, 'a').write(f'{{os.getppid()}} {{sys.prefix}}\\n')\n"
    )
    graph.write_text(probe + graph.read_text())


def test_an_environment_that_only_adds_holds_only_that_and_is_checked_in_a_warm_fork(
    tmp_path: Path,
) -> None:
    repo = runtime_repo(tmp_path / "repo")
    built = wheel(tmp_path / "wheels", "offline-add-pkg", "offline_add_pkg")
    requirement = f"offline-add-pkg @ {built.as_uri()}"
    agent = agent_repo(
        tmp_path / "agent", needs_dependency_agent("adds_only", requirement, "offline_add_pkg")
    )
    result = import_agent(options(agent, "adds", approve_deps=True), root=repo)
    python = approved_env_python(repo, "adds")
    assert result.validation.ok and python is not None

    sites = added_sites(python)
    assert sites is not None
    assert {d.metadata["Name"] for d in metadata.distributions(path=sites)} == {"offline-add-pkg"}
    record = tmp_path / "checked-by"
    plugin = repo / PLUGINS_FOLDER / "adds"
    probe_agent(plugin, record)

    report = validate(plugin, python=python, sandboxed=False)  # it writes what it saw outside

    assert report.ok, report.describe()
    interpreter = warm.start()
    assert interpreter is not None
    checked = {tuple(line.split()) for line in record.read_text().splitlines()}
    assert checked == {(str(interpreter.process.pid), sys.prefix)}  # a fork, the env's module in


def test_an_environment_that_replaces_a_version_is_checked_by_its_own_interpreter(
    tmp_path: Path, index: Path
) -> None:
    repo = runtime_repo(tmp_path / "repo")
    import_agent(options(agent_repo(tmp_path / "agent", echo_agent("replaced")), "echo"), root=repo)
    requirements = tmp_path / "requirements.txt"
    requirements.write_text(f"{INSTALLED}>=999\n")
    python = install_approved(repo, "echo", requirements)
    assert added_sites(python) is None  # it holds another packaging than the runtime's
    record = tmp_path / "checked-by"
    plugin = repo / PLUGINS_FOLDER / "echo"
    probe_agent(plugin, record)

    report = validate(plugin, python=python, sandboxed=False)  # it writes what it saw outside

    assert report.ok, report.describe()
    prefixes = {line.split()[1] for line in record.read_text().splitlines()}
    assert prefixes == {str(python.parent.parent)}  # the environment's own interpreter
    version = subprocess.run(
        [str(python), "-c", f"import importlib.metadata as m; print(m.version({INSTALLED!r}))"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert version.stdout.strip() == "999.0"


def test_an_install_started_early_is_used_or_redone_for_what_was_rendered(
    tmp_path: Path, index: Path
) -> None:
    wheel(index, "other-tool", "other_tool", "1.0")
    rendered = tmp_path / "rendered.txt"
    with Prefill() as prefill:
        prefill.start(tmp_path, "early", ["new-tool"], tmp_path)
        rendered.write_text("new-tool\nother-tool\n")
        python = prefill.python(tmp_path, "early", rendered)

    sites = added_sites(python)
    assert sites is not None
    names = {d.metadata["Name"] for d in metadata.distributions(path=sites)}
    assert names == {"new-tool", "other-tool"}
