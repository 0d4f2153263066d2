"""The diagnosis of a failed validation, on real tracebacks: each case is a tiny agent of our
own that fails the way public agents do, imported for real (offline design)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from plugin_repo import agent_repo, config, git, options, pyproject, runtime_repo, write_files

from generator.dependencies.python_version import newer_python
from generator.pipeline.importer import ValidationFailed, import_agent
from generator.validate.diagnosis import Diagnosis, diagnose, left_for_review
from generator.validate.plugin import Report, validate
from generator.validate.smoke import CheckResult
from runtime.contract.layout import PLUGINS_FOLDER
from runtime.isolated.pythons import PLACES_ENV
from tests.generator.pipeline.fixture_agents import fixture_repo


def one_node_agent(package: str, body: str, *, header: str = "") -> dict[str, str]:
    """A message agent whose one node runs ``body`` (indented in ``answer``) before answering;
    ``header`` is module-level code (it runs when the agent is imported)."""
    indented = "\n".join(f"    {line}" for line in body.strip().splitlines())
    graph = (
        "import os\n"
        "import socket\n\n"
        "from langchain_core.messages import AIMessage\n"
        "from langgraph.graph import END, START, MessagesState, StateGraph\n"
        f"{header}\n\n"
        "def answer(state: MessagesState):\n"
        f"{indented}\n"
        '    return {"messages": [AIMessage(content="done")]}\n\n\n'
        "builder = StateGraph(MessagesState)\n"
        'builder.add_node("answer", answer)\n'
        'builder.add_edge(START, "answer")\n'
        'builder.add_edge("answer", END)\n'
        "graph = builder.compile()\n"
    )
    return {
        "langgraph.json": config("./graph.py:graph"),
        "pyproject.toml": pyproject(package, "langgraph>=1.0"),
        "README.md": "A small agent.\n",
        f"{package}/__init__.py": "",
        "graph.py": graph,
    }


CASES: dict[str, tuple[str, str]] = {
    # name: (node body, module-level code)
    "missing_module": ("pass", "import no_such_module_for_diagnosis"),
    "pip_hint": (
        """
try:
    import lazy_wiki_client_for_diagnosis
except ImportError as exc:
    raise ImportError(
        "Could not import lazy_wiki_client python package. "
        "Please install it with `pip install lazy-wiki-client`."
    ) from exc
""",
        "",
    ),
    "state_key": ('key = "raw" + "_logs"\nlogs = state[key]', ""),
    "env_key": ("pass", 'DATABASE_HOST = os.environ["SUPABASE_URL"]'),
    "settings_model": (
        "pass",
        "from pydantic import BaseModel\n\n\n"
        "class Settings(BaseModel):\n"
        "    search_depth: int\n\n\n"
        'settings = Settings(search_depth=os.environ.get("SEARCH_DEPTH"))',
    ),
    "network_at_import": ("pass", 'ADDRESS = socket.getaddrinfo("models.example.invalid", 443)'),
    # A search tool's wrapper checking its key in a model validator, as Tavily's does: pydantic
    # says which variable in the lines under its exception line.
    "tool_key": (
        "pass",
        "from pydantic import BaseModel, model_validator\n\n\n"
        "class SearchWrapper(BaseModel):\n"
        '    @model_validator(mode="before")\n'
        "    @classmethod\n"
        "    def find_key(cls, values):\n"
        '        if not os.environ.get("SEARCH_TOOL_API_KEY"):\n'
        "            raise ValueError(\n"
        '                "Did not find search_tool_api_key, please add an environment variable"\n'
        '                " `SEARCH_TOOL_API_KEY` which contains it."\n'
        "            )\n"
        "        return values\n\n\n"
        "search = SearchWrapper()",
    ),
    # A value of the wrong type, not one left unset: the agent's own bug, not a setting.
    "wrong_type": (
        'Reply(count="many")',
        "from pydantic import BaseModel\n\n\nclass Reply(BaseModel):\n    count: int",
    ),
    "bug": ('raise ValueError("the parser lost its place")', ""),
}

#: name: (kind, severity, check, what the fix says, location line in src/graph.py or None)
EXPECTED: dict[str, tuple[str, str, str, str, int | None]] = {
    "missing_module": ("missing_package", "failure", "import", "--approve-deps", 6),
    "pip_hint": ("missing_package", "failure", "turns", "'lazy-wiki-client'", 12),
    "state_key": ("needs_setting", "failure", "turns", '"inputs": {"raw_logs"', 10),
    "env_key": ("needs_setting", "failure", "import", "environment variable SUPABASE_URL", 6),
    "settings_model": (
        "needs_setting",
        "failure",
        "import",
        "environment variable SEARCH_DEPTH",
        13,
    ),
    "network_at_import": ("needs_network", "failure", "import", "when it runs", 6),
    "wrong_type": ("agent_bug", "failure", "turns", "fix the agent", 13),
    "tool_key": (
        "needs_setting",
        "failure",
        "import",
        "environment variable SEARCH_TOOL_API_KEY",
        21,
    ),
    "bug": ("agent_bug", "failure", "turns", "fix the agent", 9),
}


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Report]:
    """Each case imported once: the report of its failed validation."""
    tmp = tmp_path_factory.mktemp("diagnosis")
    repo = runtime_repo(tmp / "repo")
    found: dict[str, Report] = {}
    for name, (body, header) in CASES.items():
        agent = agent_repo(tmp / name, one_node_agent(f"diag_{name}", body, header=header))
        with pytest.raises(ValidationFailed) as failed:
            import_agent(options(agent, f"diag_{name}"), root=repo)
        found[name] = failed.value.report
    return found


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_failed_validation_is_classified_with_its_fix(
    reports: dict[str, Report], name: str
) -> None:
    kind, severity, check, fix, line = EXPECTED[name]
    diagnosis = reports[name].diagnosis

    assert diagnosis is not None, reports[name].describe()
    assert (diagnosis.kind, diagnosis.severity, diagnosis.check) == (kind, severity, check)
    assert fix in diagnosis.fix
    assert diagnosis.location == (f"src/graph.py:{line}" if line else None)
    assert diagnosis.explained_by == "rules" and diagnosis.explanation
    # The report says it first: one line naming the kind, then why and the fix.
    first, why, how = reports[name].describe().splitlines()[:3]
    assert first.startswith(f"validate diag_{name}: FAILED: {diagnosis.headline()}")
    assert why.strip() == diagnosis.explanation and how.strip() == f"fix: {diagnosis.fix}"


@pytest.mark.parametrize(
    ("call", "error"),
    [
        ('socket.getaddrinfo("tokenizers.example.invalid", 443)', "gaierror"),
        # A connection the offline smoke test refuses (a documentation address, never reached).
        ('socket.create_connection(("192.0.2.7", 443), timeout=5)', "NetworkDisabled"),
    ],
)
def test_the_network_after_the_import_check_is_a_warning_and_the_import_succeeds(
    tmp_path: Path, call: str, error: str
) -> None:
    repo = runtime_repo(tmp_path / "repo")
    agent = agent_repo(tmp_path / "net", one_node_agent(f"diag_net_{error.lower()}", call))

    result = import_agent(options(agent, "net_turn"), root=repo)

    report = result.validation
    diagnosis = report.diagnosis
    assert report.ok and (repo / PLUGINS_FOLDER / "net_turn").is_dir()
    assert diagnosis is not None and (diagnosis.kind, diagnosis.severity) == (
        "needs_network",
        "warning",
    )
    assert diagnosis.check == "turns" and diagnosis.location == "src/graph.py:9"
    assert error in diagnosis.summary
    assert report.describe().startswith("validate net_turn: passed with a warning: needs the ")


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="the syntax is valid from Python 3.12")
def test_an_agent_for_a_newer_python_that_does_not_parse_here_says_how_to_get_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The asked Python stops nothing by itself; the code that does not parse here does, named
    with the one command that installs that Python. Nothing is written."""
    monkeypatch.setenv(PLACES_ENV, "")
    repo = runtime_repo(tmp_path / "repo")
    files = one_node_agent("diag_py", "pass", header="type Logs = list[str]")
    files["langgraph.json"] = json.dumps(
        {"dependencies": ["."], "graphs": {"agent": "./graph.py:graph"}, "python_version": "3.99"}
    )
    agent = agent_repo(tmp_path / "py", files)

    with pytest.raises(ValidationFailed) as stopped:
        import_agent(options(agent, "py"), root=repo)

    diagnosis = stopped.value.report.diagnosis
    assert diagnosis is not None and diagnosis.kind == "needs_python"
    assert diagnosis.summary.startswith(
        'the agent needs Python 3.99 (langgraph.json "python_version": "3.99"); this runtime '
        "runs Python 3."
    )
    assert diagnosis.fix.startswith("install it with `uv python install 3.99`, then import again")
    assert not (repo / PLUGINS_FOLDER / "py").exists()


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="the syntax is valid from Python 3.12")
def test_a_syntax_error_of_a_newer_python_in_a_plugin_names_both_versions(tmp_path: Path) -> None:
    repo = runtime_repo(tmp_path / "repo")
    agent = agent_repo(tmp_path / "later", one_node_agent("diag_later", "pass"))
    import_agent(options(agent, "later"), root=repo)
    plugin = repo / PLUGINS_FOLDER / "later"
    (plugin / "src" / "pyproject.toml").write_text(
        '[project]\nname = "later"\nversion = "1"\nrequires-python = ">=3.12"\n'
    )
    graph = plugin / "src" / "graph.py"
    graph.write_text(graph.read_text() + "\ntype Logs = list[str]\n")  # Python 3.12 syntax

    report = validate(plugin)

    diagnosis = report.diagnosis
    assert diagnosis is not None and diagnosis.kind == "needs_python", report.describe()
    assert 'needs Python 3.12 (pyproject.toml requires-python = ">=3.12")' in diagnosis.summary
    assert "this runtime runs Python 3." in diagnosis.summary


@pytest.mark.parametrize(
    ("python_version", "requires", "running", "required"),
    [
        ("3.12", None, (3, 11), "3.12"),
        ("3.11", None, (3, 12), None),  # older: LangGraph's server runs it too
        (None, ">=3.12", (3, 11), "3.12"),
        (None, ">=3.10,<4", (3, 11), None),
        (None, "<3.11", (3, 12), None),  # asks for an older one: not this check's business
        ("3.x", "not a specifier", (3, 11), None),
    ],
)
def test_newer_python_is_needed_only_when_asked_for_a_newer_one(
    python_version: str | None,
    requires: str | None,
    running: tuple[int, int],
    required: str | None,
) -> None:
    need = newer_python(python_version, requires, running=running)
    assert (need.required if need else None) == required
    if need is not None:
        assert f"Python {required}" in need.describe()
        assert f"Python {running[0]}.{running[1]}" in need.describe()


def isolated_plugin(folder: Path, *, python: str, asks: str) -> Path:
    """A plugin with an environment of its own of Python ``python`` whose agent's
    ``langgraph.json`` asks for Python ``asks``."""
    agent = {
        "graph_id": "agent",
        "graph_spec": "./graph.py:graph",
        "config_file": "langgraph.json",
        "input_field": "messages",
        "output_field": "messages",
        "environment": {"kind": "isolated", "python": python, "reason": "it asks for it"},
    }
    settings = {"graphs": {"agent": "./graph.py:graph"}, "python_version": asks}
    write_files(
        folder,
        {"agent.json": json.dumps(agent), "src/langgraph.json": json.dumps(settings)},
    )
    return folder


#: A check that failed on a SyntaxError in the agent's code.
SYNTAX_ERROR = CheckResult(
    name="import",
    ok=False,
    summary="SyntaxError: invalid syntax",
    traceback='  File "src/graph.py", line 3\n    type Logs = list[str]\nSyntaxError: bad',
)


def test_a_syntax_error_in_an_environment_of_its_own_is_compared_with_its_python(
    tmp_path: Path,
) -> None:
    """Its agent runs on the Python agent.json records, not the runtime's: an agent that asks
    for that Python has a bug of its own, one that asks for a newer one names its environment."""
    own = isolated_plugin(tmp_path / "own", python="3.30", asks="3.30")
    older = isolated_plugin(tmp_path / "older", python="3.29", asks="3.30")

    fits = diagnose([SYNTAX_ERROR], own, python=sys.executable)
    needs = diagnose([SYNTAX_ERROR], older, python=sys.executable)

    assert fits is not None and fits.kind == "agent_bug", fits
    assert needs is not None and needs.kind == "needs_python", needs
    assert needs.summary.endswith("; its environment of its own runs Python 3.29")
    assert "--approve-deps --force" in needs.fix and "Python 3.30" in needs.fix


#: A state whose dict field has no default: as a TypedDict (the turn fails on the key) and as a
#: dataclass (the runtime names the field before the turn runs).
REVIEW_STATES = {
    "typeddict": "from typing import Any, TypedDict\n\n"
    "from langgraph.graph import END, START, StateGraph\n\n\n"
    "class State(TypedDict):\n"
    "    topic: str\n"
    "    extraction_schema: dict[str, Any]\n"
    "    info: str\n\n\n",
    "dataclass": "from dataclasses import dataclass\n"
    "from typing import Any\n\n"
    "from langgraph.graph import END, START, StateGraph\n\n\n"
    "@dataclass\n"
    "class State:\n"
    "    topic: str\n"
    "    extraction_schema: dict[str, Any]\n"
    '    info: str = ""\n\n\n',
}

READS = {"typeddict": 'state["extraction_schema"]', "dataclass": "state.extraction_schema"}


@pytest.mark.parametrize("shape", sorted(REVIEW_STATES))
def test_a_value_only_the_reviewer_can_give_is_a_warning_and_the_plugin_is_written(
    tmp_path: Path, shape: str
) -> None:
    """A structured agent reads a dict input with no default (nothing to propose): the import
    writes the plugin and says, as a warning, which value to set before it answers."""
    graph = (
        REVIEW_STATES[shape]
        + "def research(state: State):\n"
        + f'    fields = ", ".join({READS[shape]})\n'
        + '    return {"info": "found " + fields}\n\n\n'
        "builder = StateGraph(State)\n"
        'builder.add_node("research", research)\n'
        'builder.add_edge(START, "research")\n'
        'builder.add_edge("research", END)\n'
        "graph = builder.compile()\n"
    )
    files = {
        "langgraph.json": config("./graph.py:graph"),
        "pyproject.toml": pyproject("diag_review", "langgraph>=1.0"),
        "README.md": "Finds facts about a topic.\n",
        "diag_review/__init__.py": "",
        "graph.py": graph,
    }
    repo = runtime_repo(tmp_path / "repo")
    result = import_agent(options(agent_repo(tmp_path / "agent", files), "review"), root=repo)
    diagnosis = result.validation.diagnosis

    assert result.validation.ok and (repo / PLUGINS_FOLDER / "review").is_dir()
    assert diagnosis is not None, result.validation.describe()
    assert (diagnosis.kind, diagnosis.severity, diagnosis.check) == (
        "needs_setting",
        "warning",
        "turns",
    )
    assert "'extraction_schema'" in diagnosis.summary
    assert '"inputs"' in diagnosis.fix and diagnosis.fix.count("agent-import validate review") == 1
    assert "passed with a warning" in result.validation.describe()


def test_a_worker_reported_key_error_on_a_value_left_for_review_is_that_warning() -> None:
    """An agent in a worker of its own reports only ``KeyError: 'email'`` (no frame to read):
    when the import left ``email`` for review, it is the same warning as in process."""
    reported = Diagnosis(
        kind="agent_bug",
        check="turns",
        summary="AgentFailed: KeyError: 'email'",
        explanation="The agent raised an error.",
        fix="fix the agent",
    )
    reviewed = left_for_review(reported, ["email"], "assistant")
    other = left_for_review(reported, ["subject"], "assistant")

    assert reviewed is not None
    assert (reviewed.kind, reviewed.severity) == ("needs_setting", "warning")
    assert reviewed.summary == "not tried: the agent needs a value for 'email'"
    assert "agent-import validate assistant" in reviewed.fix
    assert other == reported


def test_a_sibling_file_imported_as_a_top_level_module_is_named_as_the_agents_own(
    tmp_path: Path,
) -> None:
    """``from prompts import ...`` beside the graph: no package provides it and LangGraph's server
    would not find it either, so the fix is the import, never ``--approve-deps``."""
    graph = (
        "from langchain_core.messages import AIMessage\n"
        "from langgraph.graph import END, START, MessagesState, StateGraph\n\n"
        "from prompts import GREETING\n\n\n"
        "def answer(state: MessagesState):\n"
        "    return {'messages': [AIMessage(content=GREETING)]}\n\n\n"
        "builder = StateGraph(MessagesState)\n"
        "builder.add_node('answer', answer)\n"
        "builder.add_edge(START, 'answer')\n"
        "builder.add_edge('answer', END)\n"
        "graph = builder.compile()\n"
    )
    files = {
        "langgraph.json": config("./research/agent.py:graph"),
        "pyproject.toml": pyproject("diag_sibling", "langgraph>=1.0"),
        "README.md": "A small agent.\n",
        "research/agent.py": graph,
        "research/prompts.py": 'GREETING = "Hello."\n',
    }
    repo = runtime_repo(tmp_path / "repo")
    with pytest.raises(ValidationFailed) as failed:
        import_agent(options(agent_repo(tmp_path / "agent", files), "sibling"), root=repo)
    report = failed.value.report
    diagnosis = report.diagnosis

    assert "the agent's own file src/research/prompts.py" in str(failed.value)
    assert "--approve-deps" not in str(failed.value)
    assert diagnosis is not None
    assert (diagnosis.kind, diagnosis.check) == ("agent_bug", "import")
    assert "from .prompts import" in diagnosis.fix


def test_pins_that_cannot_load_together_are_named_not_called_a_bug(tmp_path: Path) -> None:
    """What an isolated worker says when its environment's packages do not fit together."""
    crashed = CheckResult(
        name="import",
        ok=False,
        summary=(
            "the clash worker exited (code 1): its requirements do not work together: langgraph "
            "needs langchain-core<0.4, and 0.1.52 is installed (ImportError: cannot import name "
            "'X' from 'langchain_core.y')"
        ),
    )

    plugin = isolated_plugin(tmp_path / "p", python="3.11", asks="3.11")
    found = diagnose([crashed], plugin, python=sys.executable)

    assert found is not None and found.kind == "requirements_clash"
    assert found.summary == "langgraph needs langchain-core<0.4, and 0.1.52 is installed"
    assert found.headline().startswith("its requirements do not work together: langgraph needs")


def test_an_mcp_server_the_sandbox_lacks_is_a_tool_server_it_needs_not_a_bug(
    tmp_path: Path,
) -> None:
    """The agent starts its MCP server over stdio when it runs: offline, in the sandbox, the
    command is not there. The import check passed, so the plugin is written with the server
    named in agent.json and the commit message, and a warning says what to provide."""
    repo = runtime_repo(tmp_path / "repo")
    agent = fixture_repo("mcp_stdio", tmp_path / "mcp")

    result = import_agent(options(agent, "weather", branch="weather"), root=repo)

    warning = result.validation.diagnosis
    server = "weather: weather-mcp-server --stdio (stdio)"
    assert result.validation.ok and warning is not None
    assert (warning.kind, warning.severity, warning.summary) == (
        "needs_tool_server",
        "warning",
        server,
    )
    assert warning.fix == f"make the tool server available where the plugin runs: {server}"
    agent_json = json.loads((repo / PLUGINS_FOLDER / "weather" / "agent.json").read_text())
    assert agent_json["tool_servers"] == [server]
    message = git(repo, "log", "-1", "--format=%B", "weather")
    assert f"Tool servers: {server}" in message


def test_a_tool_server_that_fails_while_the_agent_loads_is_a_failure_naming_it(
    tmp_path: Path,
) -> None:
    crashed = CheckResult(
        name="import",
        ok=False,
        summary="ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)",
        traceback=(
            '  File "/site-packages/mcp/client/stdio/__init__.py", line 108, in stdio_client\n'
            "FileNotFoundError: [Errno 2] No such file or directory: 'npx'"
        ),
    )

    found = diagnose([crashed], tmp_path, python=sys.executable)

    assert found is not None and (found.kind, found.severity) == ("needs_tool_server", "failure")
    assert found.fix.endswith("npx (npx comes with Node.js)")


def test_a_number_read_from_an_unset_variable_is_a_setting_not_a_bug(tmp_path: Path) -> None:
    """``int(os.getenv("port"))`` at import, as an agent that connects to its database does."""
    (tmp_path / ".copier-answers.yml").write_text("optional_env: [host, port, dbname]\n")
    crashed = CheckResult(
        name="turns",
        ok=False,
        summary="the agent raised WorkerCrashed: the db worker: ValueError: invalid literal "
        "for int() with base 10: 'None'",
    )

    found = diagnose([crashed], tmp_path, python=sys.executable)

    assert found is not None and found.kind == "needs_setting"
    assert found.fix.startswith(
        "set the environment variables the agent reads where it runs (host, port, dbname)"
    )


def test_a_name_a_newer_release_removed_is_a_version_to_pin_not_a_bug(tmp_path: Path) -> None:
    crashed = CheckResult(
        name="import",
        ok=False,
        summary="ImportError: cannot import name 'Qdrant' from 'langchain_community.vectorstores' "
        "(/envs/x/lib/python3.13/site-packages/langchain_community/vectorstores/__init__.py)",
    )
    own = CheckResult(
        name="import",
        ok=False,
        summary="ImportError: cannot import name 'router_prompt' from 'src.agent.prompts' "
        "(/plugin/src/src/agent/prompts.py)",
    )

    found = diagnose([crashed], tmp_path, python=sys.executable)
    bug = diagnose([own], tmp_path, python=sys.executable)

    assert found is not None and found.kind == "requirements_clash"
    assert found.summary == (
        "the installed langchain_community has no 'Qdrant' (imported from "
        "langchain_community.vectorstores)"
    )
    assert bug is not None and bug.kind == "agent_bug"  # the agent's own file: its bug


def test_a_value_missing_from_the_agents_own_config_file_is_a_setting_in_it(
    tmp_path: Path,
) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "config.yaml").write_text("models: []\n")
    crashed = CheckResult(
        name="turns",
        ok=False,
        summary="the agent raised AgentFailed",
        traceback="ValueError: No chat models are configured. Please configure at least one "
        "model in config.yaml.",
    )

    found = diagnose([crashed], tmp_path, python=sys.executable)

    assert found is not None and found.kind == "needs_setting"
    assert found.summary.startswith("the agent needs a value in src/config.yaml: No chat models")
    assert found.fix.startswith("fill in src/config.yaml")


def test_a_turn_stopped_while_waiting_on_a_tool_server_names_it(tmp_path: Path) -> None:
    (tmp_path / "agent.json").write_text(
        json.dumps(
            {
                "graph_id": "g",
                "graph_spec": "./g.py:graph",
                "config_file": "langgraph.json",
                "input_field": "messages",
                "output_field": "messages",
                "tool_servers": ["browser: npx @playwright/mcp@latest (stdio)"],
            }
        )
    )
    stopped = CheckResult(
        name="turns",
        ok=False,
        summary="message 'Hello!': deadline_exceeded: the agent took too long on that",
    )

    found = diagnose([stopped], tmp_path, python=sys.executable)

    assert found is not None and (found.kind, found.severity) == ("needs_tool_server", "warning")
    assert found.summary == "browser: npx @playwright/mcp@latest (stdio)"


def test_a_configuration_field_nothing_gave_is_a_setting(tmp_path: Path) -> None:
    crashed = CheckResult(
        name="turns",
        ok=False,
        summary="the agent raised TypeError",
        traceback=(
            '  File "src/memory.py", line 20, in from_runnable_config\n'
            "    return cls(**values)\n"
            "TypeError: Configuration.__init__() missing 1 required keyword-only argument: "
            "'store_name'"
        ),
    )

    found = diagnose([crashed], tmp_path, python=sys.executable)

    assert found is not None and found.kind == "needs_setting"
    assert found.summary == "the agent needs a value for 'store_name'"
    assert 'agent.json "context": {"store_name": ...}' in found.fix
