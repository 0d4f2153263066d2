"""LangGraph's server packages are left out of an agent's requirements, each with a note; its
client, ``langgraph-sdk``, stays."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from plugin_repo import pyproject

from generator.models import Inspection

SERVER = ("langgraph-api>=0.2,<0.3", "langgraph-cli[inmem]>=0.1", "Langgraph_Runtime_Inmem")


def test_server_packages_are_left_out_with_a_note(
    make_project: Callable[[dict[str, str]], Path],
    inspect_folder: Callable[..., Inspection],
    minimal_agent: dict[str, str],
) -> None:
    files = {**minimal_agent, "pyproject.toml": pyproject("desk", "langgraph>=1.0", *SERVER)}
    files["requirements.txt"] = "langgraph-sdk>=0.1\n"

    inspection = inspect_folder(make_project(files))

    assert [d.name for d in inspection.dependencies] == ["langgraph", "langgraph-sdk"]
    notes = [w.message for w in inspection.warnings if w.file == "pyproject.toml"]
    assert notes == [
        "left out: langgraph-api is LangGraph's server, which the runtime replaces",
        "left out: langgraph-cli is LangGraph's server command line, which the runtime replaces",
        "left out: Langgraph_Runtime_Inmem is the in-memory storage of LangGraph's server, "
        "which the runtime replaces",
    ]


def test_server_imports_and_install_hints_are_never_proposed(
    make_project: Callable[[dict[str, str]], Path],
    inspect_folder: Callable[..., Inspection],
    minimal_agent: dict[str, str],
) -> None:
    """An agent that starts LangGraph's server itself, or says to install its command line,
    proposes neither; an ordinary undeclared import beside them still is."""
    graph = minimal_agent["agent.py"]
    files = {
        **minimal_agent,
        "agent.py": (
            "import wikipedia\n"
            "from langgraph_api.server import app\n"
            "from langgraph_runtime_inmem import store\n"
            "try:\n"
            "    import langgraph_cli\n"
            "except ImportError as exc:\n"
            '    raise ImportError("run `pip install -U langgraph-cli[inmem]`") from exc\n'
            f"{graph}"
        ),
    }

    inspection = inspect_folder(make_project(files))

    proposed = {d.name: d.proposed_for for d in inspection.dependencies if d.proposed_for}
    assert proposed == {"wikipedia": "wikipedia (agent.py:1)"}
