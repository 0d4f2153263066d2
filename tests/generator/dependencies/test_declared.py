"""The requirements an agent declares are the ones LangGraph's server would install: those of
the folders ``langgraph.json`` lists, never a file beside it that it does not list."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from generator.models import Inspection

GRAPH = """from langgraph.graph import END, START, MessagesState, StateGraph
builder = StateGraph(MessagesState)
builder.add_node("answer", lambda state: state)
builder.add_edge(START, "answer")
builder.add_edge("answer", END)
graph = builder.compile()
"""


def project(root: Path, dependencies: list[str]) -> Path:
    config = {"dependencies": dependencies, "graphs": {"g": "./agents/graph.py:graph"}}
    files = {
        "langgraph.json": json.dumps(config),
        "requirements.txt": "pywin32==309\n",  # a Windows `pip freeze` at the root
        "agents/graph.py": GRAPH,
        "agents/requirements.txt": "httpx>=0.27\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_only_the_listed_folders_requirements_are_declared(
    tmp_path: Path, inspect_folder: Callable[..., Inspection]
) -> None:
    listed = inspect_folder(project(tmp_path / "listed", ["./agents"]))
    root = inspect_folder(project(tmp_path / "root", ["."]))
    none = inspect_folder(project(tmp_path / "none", []))

    assert [d.spec for d in listed.dependencies] == ["httpx>=0.27"]
    assert [d.spec for d in root.dependencies] == ["pywin32==309"]
    assert [d.spec for d in none.dependencies] == ["pywin32==309"]  # nothing listed: beside it
