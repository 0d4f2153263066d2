"""Dependencies: compared with what is installed, shown, and installed only when approved, into
an isolated validation environment (never the runtime's)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from plugin_repo import agent_repo, needs_dependency_agent, options, runtime_repo, tree, wheel

from generator.dependencies.distributions import HINT_ORIGIN
from generator.dependencies.environment import (
    approved_env_python,
    check_dependencies,
    install_approved,
    requirement_for_module,
)
from generator.errors import AgentImportError
from generator.models import Dependency
from generator.pipeline.importer import ValidationFailed, import_agent
from runtime.contract.layout import PLUGINS_FOLDER, REQUIREMENTS_LOCK


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


def test_each_line_says_why_a_requirement_is_proposed_and_which_version_the_agent_gets() -> None:
    hinted = Dependency(
        name="wikipedia",
        spec="wikipedia",
        origin=HINT_ORIGIN,
        proposed_for="wikipedia (`pip install wikipedia` in the turns check)",
    )
    written = Dependency(
        name="quotes-db",
        spec="quotes-db",
        origin=HINT_ORIGIN,
        proposed_for="quotes_db (agent/tools.py:26: `pip install -U quotes-db`)",
    )
    imported = Dependency(
        name="pyyaml",
        spec="pyyaml",
        origin="usual distribution name",
        proposed_for="yaml (agent/graph.py:3)",
    )
    report = check_dependencies([dep("pydantic<1"), hinted, written, imported])

    shared = report.describe().splitlines()
    isolated = report.model_copy(update={"locked": {"pydantic": "0.9", "wikipedia": "1.4.0"}})

    assert shared[0].startswith("pydantic<1 (pyproject.toml): installed 2.")
    assert shared[0].endswith(" does not satisfy it")
    assert shared[1].startswith(
        "pyyaml (usual distribution name; proposed for the undeclared import yaml "
        "(agent/graph.py:3)): "
    )
    assert shared[2].startswith(
        "quotes-db (an ImportError's install hint; proposed from the agent's "
        "`pip install quotes-db` hint for quotes_db, agent/tools.py:26): "
    )
    assert shared[3] == (
        "wikipedia (an ImportError's install hint; proposed from the agent's "
        "`pip install wikipedia` hint for wikipedia, in the turns check): not installed"
    )
    assert isolated.describe().splitlines()[0] == (
        f"pydantic<1 (pyproject.toml): locked 0.9 in {REQUIREMENTS_LOCK}"
    )
    assert isolated.describe().splitlines()[2].endswith("agent/tools.py:26): not locked")


def test_a_missing_module_is_traced_to_its_requirement() -> None:
    lines = ["langgraph>=1.0", "langchain-openai>=0.2"]

    assert requirement_for_module("langchain_openai.chat_models", lines) == "langchain-openai>=0.2"
    assert requirement_for_module("yaml", lines) is None


@pytest.mark.slow
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
    assert approved_env_python(repo, "needy") is None


@pytest.mark.slow
def test_approved_dependencies_go_into_the_isolated_env_only(tmp_path: Path) -> None:
    repo = runtime_repo(tmp_path / "repo")
    built = wheel(tmp_path / "wheels", "offline-dep-pkg", "offline_dep_pkg")
    requirement = f"offline-dep-pkg @ {built.as_uri()}"
    agent = agent_repo(
        tmp_path / "agent", needs_dependency_agent("needs_dep_b", requirement, "offline_dep_pkg")
    )

    result = import_agent(options(agent, "approved", approve_deps=True), root=repo)

    python = approved_env_python(repo, "approved")
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


def monorepo_agent(path: Path, *requirements: str) -> Path:
    """A monorepo app whose langgraph.json lists ``../../libs/shared``, a local package called
    ``shared`` (PyPI has an unrelated project of that name)."""
    deps = ", ".join(f'"{r}"' for r in ("langgraph>=1.0", "shared", *requirements))
    return agent_repo(
        path,
        {
            "libs/shared/pyproject.toml": '[project]\nname = "shared"\nversion = "0.1.0"\n',
            "libs/shared/shared/__init__.py": """
                def get_dummy_message() -> str:
                    return "from the monorepo"
            """,
            "apps/bot/langgraph.json": json.dumps(
                {"dependencies": [".", "../../libs/shared"], "graphs": {"bot": "./graph.py:graph"}}
            ),
            "apps/bot/pyproject.toml": (
                f'[project]\nname = "bot"\nversion = "0.1.0"\ndependencies = [{deps}]\n'
            ),
            "apps/bot/graph.py": """
                from langchain_core.messages import AIMessage
                from langgraph.graph import START, MessagesState, StateGraph
                from shared import get_dummy_message


                def answer(state: MessagesState):
                    return {"messages": [AIMessage(content=get_dummy_message())]}


                builder = StateGraph(MessagesState)
                builder.add_node("answer", answer)
                builder.add_edge(START, "answer")
                graph = builder.compile()
            """,
        },
    )


@pytest.mark.slow
def test_a_local_dependency_is_used_from_the_vendored_copy_never_fetched_by_name(
    tmp_path: Path, index_with_a_public_shared: Path
) -> None:
    repo = runtime_repo(tmp_path / "repo")
    agent = monorepo_agent(tmp_path / "agent", "extra-tool")

    result = import_agent(options(agent, "bot", approve_deps=True), root=repo)

    assert result.validation.ok
    requirements = (repo / PLUGINS_FOLDER / "bot" / "requirements.txt").read_text()
    assert "extra-tool" in requirements and "shared" not in requirements
    python = approved_env_python(repo, "bot")
    assert python is not None
    probe = "import importlib.metadata as m, extra_tool; print(m.version('shared'))"
    installed = subprocess.run([str(python), "-c", probe], capture_output=True, text=True)
    assert "PackageNotFoundError" in installed.stderr  # extra-tool came, shared never did


def test_an_index_package_that_pulls_a_local_name_refuses_the_import(
    tmp_path: Path, index_with_a_public_shared: Path
) -> None:
    repo = runtime_repo(tmp_path / "repo")
    agent = monorepo_agent(tmp_path / "agent", "helper-lib")

    with pytest.raises(AgentImportError, match=r"^shared would be installed from the package"):
        import_agent(options(agent, "bot", approve_deps=True), root=repo)

    assert tree(repo / PLUGINS_FOLDER) == {"README.md": b"Plugins live here.\n"}
    assert approved_env_python(repo, "bot") is None


def test_an_install_past_its_time_limit_is_stopped_with_a_clear_message(tmp_path: Path) -> None:
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("extra-tool\n")

    with pytest.raises(AgentImportError, match=r"took over 0\.001 s and was stopped$"):
        install_approved(tmp_path, "slow", requirements, timeout=0.001)
