"""Dependencies: compared with what is installed, shown, and installed only when approved, into
an isolated validation environment (never the runtime's)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from plugin_repo import agent_repo, needs_dependency_agent, options, runtime_repo, tree, wheel

from generator.models import Dependency
from generator.pipeline.importer import ValidationFailed, import_agent
from generator.validate.environment import check_dependencies, env_python, requirement_for_module
from runtime.layout import PLUGINS_FOLDER


def dep(spec: str, origin: str = "pyproject.toml") -> Dependency:
    return Dependency(name=spec, spec=spec, origin=origin)


def test_requirements_are_checked_against_the_installed_versions() -> None:
    report = check_dependencies(
        [
            dep("langgraph>=1.0"),
            dep("pydantic<1"),
            dep("surely-not-installed-xyz>=2"),
            dep("LangGraph>=0.1", "requirements.txt"),
            dep("windows-only ; sys_platform == 'win32'"),
            dep("not a requirement !!"),
        ]
    )

    status = {r.name: (r.satisfied, r.installed is not None) for r in report.requirements}
    assert status == {
        "langgraph": (True, True),
        "pydantic": (False, True),
        "surely-not-installed-xyz": (False, False),
    }
    assert [r.name for r in report.missing] == ["pydantic", "surely-not-installed-xyz"]
    assert report.lines() == ["langgraph>=1.0", "pydantic<1", "surely-not-installed-xyz>=2"]
    assert report.invalid and "not a requirement" in report.invalid[0]
    assert "does not satisfy" in report.describe() and "not installed" in report.describe()


def test_a_missing_module_is_traced_to_its_requirement() -> None:
    lines = ["langgraph>=1.0", "langchain-openai>=0.2"]

    assert requirement_for_module("langchain_openai.chat_models", lines) == "langchain-openai>=0.2"
    assert requirement_for_module("yaml", lines) is None


def test_an_unapproved_dependency_fails_validation_and_says_how_to_approve(
    tmp_path: Path,
) -> None:
    repo = runtime_repo(tmp_path / "repo")
    agent = agent_repo(
        tmp_path / "agent",
        needs_dependency_agent("needs_dep_a", "absent-helper-pkg>=1", "absent_helper_pkg"),
    )

    with pytest.raises(ValidationFailed, match="--approve-deps") as failure:
        import_agent(options(agent, "needy"), root=repo)

    missing = failure.value.report.missing
    assert missing is not None and missing.module == "absent_helper_pkg"
    assert missing.requirement == "absent-helper-pkg>=1"
    assert "isolated validation environment" in missing.hint
    assert tree(repo / PLUGINS_FOLDER) == {"README.md": b"Plugins live here.\n"}
    assert env_python(repo, "needy") is None


def test_approved_dependencies_go_into_the_isolated_env_only(tmp_path: Path) -> None:
    repo = runtime_repo(tmp_path / "repo")
    built = wheel(tmp_path / "wheels", "offline-dep-pkg", "offline_dep_pkg")
    requirement = f"offline-dep-pkg @ {built.as_uri()}"
    agent = agent_repo(
        tmp_path / "agent", needs_dependency_agent("needs_dep_b", requirement, "offline_dep_pkg")
    )

    result = import_agent(options(agent, "approved", approve_deps=True), root=repo)

    python = env_python(repo, "approved")
    assert python is not None and result.validation.python == str(python)
    requirements = (repo / PLUGINS_FOLDER / "approved" / "requirements.txt").read_text()
    assert requirement in requirements
    runtime_env = subprocess.run(
        [sys.executable, "-c", "import offline_dep_pkg"], capture_output=True, check=False
    )
    assert runtime_env.returncode != 0
    isolated = subprocess.run(
        [str(python), "-c", "import offline_dep_pkg, langgraph; print(offline_dep_pkg.VALUE)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert isolated.stdout.strip() == "42"
