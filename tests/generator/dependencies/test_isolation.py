"""Decide at import: an agent whose requirements cannot share the runtime's environment gets one
of its own (recorded in agent.json, locked beside requirements.txt); one that fits shares.

Real uv, real resolution from PyPI: the agent of our own below pins LangGraph 0.2, which the
runtime's LangGraph (1.x) excludes. It is imported once per session, its environment built once.
"""

from __future__ import annotations

import ast
import contextlib
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from plugin_repo import (
    agent_repo,
    commit_all,
    echo_agent,
    options,
    runtime_repo,
    tree,
    wheel,
    write_files,
)

from generator.cli.import_ import summary
from generator.dependencies.conflicts import RequirementsConflict, check_conflicts
from generator.dependencies.isolation import conflict_reason, decide
from generator.dependencies.lock import pinned
from generator.design import DesignOptions
from generator.errors import AgentImportError
from generator.models import Inspection
from generator.pipeline.importer import ImportResult, import_agent
from generator.pipeline.steps import Step
from generator.pipeline.update import UpdateOptions, update_plugin
from runtime.contract.agent import load_agent_spec
from runtime.contract.layout import PLUGINS_FOLDER, REQUIREMENTS_FILE, REQUIREMENTS_LOCK
from runtime.isolated.pythons import PLACES_ENV

RUNNING = f"{sys.version_info[0]}.{sys.version_info[1]}"


@pytest.fixture
def no_other_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """No Python but the runtime's is found: none in the places searched, uv asked of nothing."""
    monkeypatch.setenv(PLACES_ENV, "")
    monkeypatch.setenv("UV_PYTHON_INSTALL_DIR", "/nonexistent")


OLD_PIN = "langgraph>=0.2.57,<0.3"
#: The lazy librarian's tools (a fixture agent), whose helper ``_require`` imports a tool's package
#: when first called and says what to install when it is missing, in a message built at run time.
LIBRARIAN_TOOLS = (
    Path(__file__).resolve().parents[2] / "fixtures/agents/lazy_tool_import/lazy_librarian/tools.py"
)


def lazy_module() -> str:
    """The librarian's ``_require`` alone, as a module: only running the agent shows what it
    needs (the librarian's tools, left out, name a package in a hint inspection reads)."""
    source = LIBRARIAN_TOOLS.read_text()
    kept = [
        ast.get_source_segment(source, node)
        for node in ast.parse(source).body
        if isinstance(node, ast.Import) or getattr(node, "name", None) == "_require"
    ]
    return "\n\n\n".join(segment for segment in kept if segment) + "\n"


LAZY = lazy_module()


def lazy_graph(package: str, module: str, distribution: str) -> str:
    """A message graph whose node needs ``module`` (``pip install distribution``) to answer."""
    return f"""
        from langchain_core.messages import AIMessage, HumanMessage
        from langgraph.graph import END, START, MessagesState, StateGraph

        from {package}.lazy import _require as required


        def answer(state: MessagesState):
            asked = [m for m in state["messages"] if isinstance(m, HumanMessage)]
            found = required("{module}", "{distribution}").VALUE
            return {{"messages": [AIMessage(content=f"{{asked[-1].content}} found {{found}}")]}}


        builder = StateGraph(MessagesState)
        builder.add_node("answer", answer)
        builder.add_edge(START, "answer")
        builder.add_edge("answer", END)
        graph = builder.compile()
    """


def old_agent(package: str, *, pin: str = OLD_PIN, asks: str | None = None) -> dict[str, str]:
    """An agent written for LangGraph 0.2: Poetry-era pins and ``langchain_core.pydantic_v1``;
    with ``asks``, the distribution its answer imports when it runs (module: its name with _)."""
    needed = (
        f'found = required("{asks.replace("-", "_")}", "{asks}").VALUE'
        if asks
        else 'found = "nothing"'
    )
    return {
        "langgraph.json": json.dumps(
            {"dependencies": ["."], "graphs": {"agent": "./graph.py:graph"}}
        ),
        "pyproject.toml": (
            f'[project]\nname = "{package}"\nversion = "0.1.0"\n'
            f'dependencies = ["{pin}", "langchain-core>=0.2.43,<0.4"]\n'
        ),
        "LICENSE": "MIT License\n",
        f"{package}/__init__.py": "",
        f"{package}/lazy.py": LAZY,
        f"{package}/schema.py": """
            from langchain_core.pydantic_v1 import BaseModel, Field


            class Reply(BaseModel):
                text: str = Field(description="What the agent says")
        """,
        "graph.py": f"""
            from langchain_core.messages import AIMessage, HumanMessage
            from langgraph.graph import END, START, MessagesState, StateGraph

            from {package}.lazy import _require as required
            from {package}.schema import Reply


            def answer(state: MessagesState):
                asked = [m for m in state["messages"] if isinstance(m, HumanMessage)]
                {needed}
                reply = Reply(text=f"LangGraph 0.2 heard: {{asked[-1].content}} ({{found}})")
                return {{"messages": [AIMessage(content=reply.text)]}}


            builder = StateGraph(MessagesState)
            builder.add_node("answer", answer)
            builder.add_edge(START, "answer")
            builder.add_edge("answer", END)
            graph = builder.compile()
        """,
    }


def with_python(files: dict[str, str], version: str) -> dict[str, str]:
    """The agent's ``langgraph.json`` asks for Python ``version``."""
    settings = json.loads(files["langgraph.json"])
    return {**files, "langgraph.json": json.dumps({**settings, "python_version": version})}


class Imported:
    def __init__(self, repo: Path, result: ImportResult, steps: list[Step]) -> None:
        self.repo, self.result, self.steps = repo, result, steps
        self.folder = repo / PLUGINS_FOLDER / result.plugin_id


@pytest.fixture(scope="session")
def isolated(tmp_path_factory: pytest.TempPathFactory) -> Imported:
    """The LangGraph 0.2 agent imported with --approve-deps, once: its lock resolved and its
    environment built a single time for every test here. Its answer needs ``parrot-words``
    (from a folder of wheels beside the package index), which it names only when it runs: the
    first validation fails on it, and the import adds it, locks again and validates again."""
    base = tmp_path_factory.mktemp("isolated")
    repo = runtime_repo(base / "repo")
    agent = agent_repo(base / "agent", old_agent("old_lg_agent", asks="parrot-words"))
    steps: list[Step] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(
            "UV_FIND_LINKS", str(wheel(base / "wheels", "parrot-words", "parrot_words").parent)
        )
        result = import_agent(
            options(agent, "old_agent", approve_deps=True), root=repo, progress=steps.append
        )
    return Imported(repo, result, steps)


@pytest.mark.slow
def test_a_conflicting_agent_gets_an_environment_of_its_own(isolated: Imported) -> None:
    spec = load_agent_spec(isolated.folder)

    assert spec.environment.kind == "isolated"
    assert spec.environment.python == RUNNING
    assert "<0.3" in spec.environment.reason
    assert "conflicts with the runtime's langgraph>=" in spec.environment.reason
    step = next(s for s in isolated.steps if s.name == "environment")
    assert step.summary == f"isolated, because {spec.environment.reason}"
    assert isolated.result.validation.ok
    assert "LangGraph 0.2 heard" in isolated.result.validation.describe()
    assert not [name for name in isolated.result.files if "__pycache__" in name]


@pytest.mark.slow
def test_the_lock_pins_the_resolved_versions_beside_the_requirements(isolated: Imported) -> None:
    lock = (isolated.folder / REQUIREMENTS_LOCK).read_text()

    assert lock.startswith("# The versions this plugin's own environment is built from")
    assert f"uv pip compile {REQUIREMENTS_FILE} --python-version {RUNNING}" in lock
    assert pinned(lock)["langgraph"].startswith("0.2.")
    assert OLD_PIN.split(">=")[0] in (isolated.folder / REQUIREMENTS_FILE).read_text()
    assert {REQUIREMENTS_LOCK, "agent.json"} <= set(isolated.result.files)


@pytest.mark.slow
def test_the_runtime_keeps_its_own_langgraph(isolated: Imported) -> None:
    from importlib.metadata import version

    assert int(version("langgraph").split(".")[0]) >= 1


@pytest.mark.slow
def test_agent_import_validate_checks_it_in_its_own_environment(isolated: Imported) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "generator.cli", "validate", "old_agent"],
        cwd=isolated.repo,
        capture_output=True,
        text=True,
        check=False,
    )

    assert done.returncode == 0, done.stderr
    assert "validate old_agent: passed" in done.stdout
    assert "LangGraph 0.2 heard" in done.stdout
    assert ".agent-import/isolated-envs/old_agent" in done.stderr


@pytest.mark.slow
def test_a_hint_of_an_agent_with_its_own_environment_is_locked_and_installed_there(
    isolated: Imported,
) -> None:
    validated = next(s for s in isolated.steps if s.name == "validate").summary
    lock = pinned((isolated.folder / REQUIREMENTS_LOCK).read_text())

    assert "added parrot-words to requirements.txt" in validated, validated
    assert f"isolated; {REQUIREMENTS_LOCK} written again for Python {RUNNING}" in validated
    assert "--approve-deps" not in validated
    assert lock["parrot-words"] == "1.0" and lock["langgraph"].startswith("0.2.")
    assert "parrot-words" in (isolated.folder / REQUIREMENTS_FILE).read_text().splitlines()
    assert load_agent_spec(isolated.folder).environment.kind == "isolated"
    assert "LangGraph 0.2 heard" in isolated.result.validation.describe()
    assert "(42)" in isolated.result.validation.describe()


@pytest.mark.slow
def test_its_dependency_lines_show_the_locked_versions_not_the_runtimes(
    isolated: Imported,
) -> None:
    lines = summary(isolated.result).splitlines()
    listed = [line.strip() for line in lines[lines.index("dependencies:") + 1 :][:3]]
    rows = {line.split()[0]: line for line in listed}
    locked = pinned((isolated.folder / REQUIREMENTS_LOCK).read_text())

    assert rows["langgraph<0.3,>=0.2.57"].endswith(
        f": locked {locked['langgraph']} in {REQUIREMENTS_LOCK}"
    )
    assert rows["parrot-words"] == (
        "parrot-words (an ImportError's install hint; proposed from the agent's "
        "`pip install parrot-words` hint for parrot_words, in the turns check): "
        f"locked 1.0 in {REQUIREMENTS_LOCK}"
    )
    assert not [line for line in listed if "installed" in line]


@pytest.fixture
def clinging_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder of wheels beside the package index: ``clinging-lg``, which needs LangGraph 0.2."""
    folder = tmp_path / "wheels"
    wheel(folder, "clinging-lg", "clinging_lg", requires=("langgraph<0.3",))
    monkeypatch.setenv("UV_FIND_LINKS", str(folder))
    return folder


def clinging_agent(tmp_path: Path, package: str) -> Path:
    """An agent that fits LangGraph 0.2 and 1.x alike, whose answer needs ``clinging-lg``
    (``clinging_index``), which it names only when it runs."""
    files = {
        "langgraph.json": json.dumps(
            {"dependencies": ["."], "graphs": {"agent": "./graph.py:graph"}}
        ),
        "pyproject.toml": f'[project]\nname = "{package}"\nversion = "0.1.0"\n'
        'dependencies = ["langgraph>=0.2.57", "langchain-core>=0.2.43"]\n',
        f"{package}/__init__.py": "",
        f"{package}/lazy.py": LAZY,
        "graph.py": lazy_graph(package, "clinging_lg", "clinging-lg"),
    }
    return agent_repo(tmp_path / "agent", files)


@pytest.mark.slow
def test_a_hinted_requirement_that_conflicts_gets_an_environment_of_its_own(
    tmp_path: Path, clinging_index: Path
) -> None:
    """The retry decides as the first pass did: the agent shared the runtime's environment until
    its hint asked for a package the runtime's LangGraph excludes."""
    repo = runtime_repo(tmp_path / "repo")
    agent = clinging_agent(tmp_path, "clinging_lg_agent")
    steps: list[Step] = []

    result = import_agent(
        options(agent, "clinging", approve_deps=True), root=repo, progress=steps.append
    )

    folder = repo / PLUGINS_FOLDER / "clinging"
    spec = load_agent_spec(folder)
    validated = next(s for s in steps if s.name == "validate").summary
    assert next(s for s in steps if s.name == "environment").summary.startswith("shared: ")
    assert spec.environment.kind == "isolated" and "langgraph" in spec.environment.reason
    assert f"isolated, because {spec.environment.reason}" in validated, validated
    assert pinned((folder / REQUIREMENTS_LOCK).read_text())["langgraph"].startswith("0.2.")
    assert result.validation.ok, result.validation.describe()
    assert "found 42" in result.validation.describe()


@pytest.mark.slow
def test_with_shared_env_a_hinted_conflict_refuses_in_one_line(
    tmp_path: Path, clinging_index: Path
) -> None:
    repo = runtime_repo(tmp_path / "repo")
    agent = clinging_agent(tmp_path, "clinging_lg_shared")
    before = tree(repo)

    with pytest.raises(AgentImportError) as refused:
        import_agent(options(agent, "clinging", approve_deps=True, shared_env=True), root=repo)

    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith("the requirements of 'clinging' conflict"), message
    assert tree(repo) == before


@pytest.mark.slow
def test_shared_env_keeps_the_refusal_in_one_line(tmp_path: Path) -> None:
    repo = runtime_repo(tmp_path / "repo")
    agent = agent_repo(tmp_path / "agent", old_agent("old_lg_shared"))
    before = tree(repo)

    with pytest.raises(AgentImportError) as refused:
        import_agent(options(agent, "refused", approve_deps=True, shared_env=True), root=repo)

    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith("the requirements of 'refused' conflict with the runtime's")
    assert tree(repo) == before


@pytest.mark.slow
def test_an_agent_that_fits_keeps_sharing_with_no_lock(tmp_path: Path) -> None:
    repo = runtime_repo(tmp_path / "repo")
    agent = agent_repo(tmp_path / "agent", with_python(echo_agent("fits_shared"), RUNNING))
    steps: list[Step] = []

    result = import_agent(
        options(agent, "fits", approve_deps=True), root=repo, progress=steps.append
    )

    folder = repo / PLUGINS_FOLDER / "fits"
    assert result.validation.ok
    assert load_agent_spec(folder).environment.kind == "shared"
    assert "environment" not in json.loads((folder / "agent.json").read_text())
    assert not (folder / REQUIREMENTS_LOCK).exists()
    assert next(s for s in steps if s.name == "environment").summary.startswith("shared: ")


@pytest.mark.slow
def test_an_agent_asking_for_a_python_not_here_is_validated_on_this_one_with_a_warning(
    tmp_path: Path, no_other_python: None
) -> None:
    """LangGraph's server would run it on 3.99; nothing here insists: its checks pass on the
    runtime's Python, so it is imported, the asked version recorded for the reviewer."""
    repo = runtime_repo(tmp_path / "repo")
    agent = agent_repo(tmp_path / "agent", with_python(echo_agent("needs_python"), "3.99"))
    steps: list[Step] = []

    result = import_agent(
        options(agent, "future", approve_deps=True), root=repo, progress=steps.append
    )

    environment = load_agent_spec(repo / PLUGINS_FOLDER / "future").environment
    warning = result.validation.diagnosis
    assert result.validation.ok and environment.kind == "shared"
    assert environment.asked_python == "3.99"
    assert environment.reason.startswith(
        f'asked for Python 3.99 (langgraph.json "python_version": "3.99"), validated on Python '
        f"{RUNNING}: no Python 3.99 on this machine"
    )
    assert warning is not None and (warning.kind, warning.severity) == ("needs_python", "warning")
    assert warning.fix.startswith("install it with `uv python install 3.99`, then import again")
    assert "asked for Python 3.99" in next(s for s in steps if s.name == "environment").summary
    assert result.validation.describe().startswith("validate future: passed with a warning")


def test_a_python_found_where_users_keep_one_gets_an_environment_of_its_own(
    tmp_path: Path, inspect_folder: Callable[..., Inspection], monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = write_files(tmp_path / "agent", with_python(echo_agent("found_python"), "3.99"))
    versions = tmp_path / "pythons"
    python = versions / "3.99.1" / "bin" / "python3.99"
    python.parent.mkdir(parents=True)
    python.write_text("#!/bin/sh\necho 3.99\n")
    python.chmod(0o755)
    inspection = inspect_folder(agent)

    monkeypatch.setenv(PLACES_ENV, "")
    alone = decide(tmp_path, "future", [], inspection=inspection)
    monkeypatch.setenv(PLACES_ENV, str(versions))
    found = decide(tmp_path, "future", [], inspection=inspection)

    assert (alone.environment.kind, alone.environment.asked_python) == ("shared", "3.99")
    assert alone.lock is None
    assert (found.environment.kind, found.environment.python) == ("isolated", "3.99")
    assert found.environment.asked_python is None and found.lock is not None
    assert found.note == (
        'isolated, because the agent needs Python 3.99 (langgraph.json "python_version": '
        f'"3.99"); this runtime runs Python {RUNNING}'
    )


def test_a_conflict_reason_names_both_sides() -> None:
    conflict = RequirementsConflict(
        "long", owners=[("new", "langgraph<0.3"), ("the runtime", "langgraph>=1.2")]
    )
    other = RequirementsConflict("long", owners=[("new", "alpha"), ("old", "beta>=2")])

    assert (
        conflict_reason("new", conflict)
        == "langgraph<0.3 conflicts with the runtime's langgraph>=1.2"
    )
    assert conflict_reason("new", other) == "alpha conflicts with plugin old's beta>=2"
    assert conflict_reason("new", RequirementsConflict("why", owners=[])) == "why"


def test_a_plugin_with_its_own_environment_is_left_out_of_the_conflict_check(
    tmp_path: Path,
) -> None:
    """Its requirements never meet the runtime's: they cannot conflict with a new plugin's."""
    folder = tmp_path / PLUGINS_FOLDER / "old"
    write_files(
        folder, {REQUIREMENTS_FILE: "langgraph<0.3\n", REQUIREMENTS_LOCK: "langgraph==0.2.76\n"}
    )

    assert check_conflicts(tmp_path, "new", [], local_packages=[]) == "no requirements to resolve"
    note = check_conflicts(tmp_path, "new", ["langgraph>=1.0"], local_packages=[])
    assert note.startswith("resolved with the runtime's")


@pytest.mark.slow
def test_an_update_keeps_the_environment_and_locks_changed_requirements_again(
    tmp_path: Path,
) -> None:
    repo = runtime_repo(tmp_path / "repo")
    agent = agent_repo(tmp_path / "agent", old_agent("old_lg_update"))
    with contextlib.chdir(repo):  # the answers record ../agent, as a reviewer's import would
        import_agent(options(Path("..") / "agent", "old_update", approve_deps=True), root=repo)
    commit_all(repo, "import old_update")
    folder = repo / PLUGINS_FOLDER / "old_update"
    locked = pinned((folder / REQUIREMENTS_LOCK).read_text())["langgraph"]
    write_files(
        agent,
        {
            "pyproject.toml": old_agent("old_lg_update", pin="langgraph<0.2.60,>=0.2.57")[
                "pyproject.toml"
            ]
        },
    )
    commit_all(agent, "an older LangGraph")
    steps: list[Step] = []

    result = update_plugin(
        UpdateOptions(plugin_id="old_update", design_options=DesignOptions(offline=True)),
        root=repo,
        progress=steps.append,
    )

    assert result.ok, result.validation
    assert load_agent_spec(folder).environment.kind == "isolated"
    relocked = pinned((folder / REQUIREMENTS_LOCK).read_text())["langgraph"]
    assert relocked.startswith("0.2.5") and relocked != locked
    assert f"{PLUGINS_FOLDER.as_posix()}/old_update/{REQUIREMENTS_LOCK}" in result.files
    assert next(s for s in steps if s.name == "dependencies").summary.startswith(
        f"isolated; {REQUIREMENTS_LOCK} written again"
    )
