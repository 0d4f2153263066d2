"""Configuration files a project ships only as an example, proposed when the agent reads them."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

from generator.models import Inspection

GRAPH = """
    import json
    from pathlib import Path

    from langgraph.graph import END, START, MessagesState, StateGraph

    SETTINGS = json.loads(Path("settings.json").read_text())
    MODELS = Path("conf/models.yaml")
    PRESENT = Path("present.toml")

    builder = StateGraph(MessagesState)
    builder.add_node("answer", lambda state: state)
    builder.add_edge(START, "answer")
    builder.add_edge("answer", END)
    graph = builder.compile()
"""


def test_an_example_is_proposed_only_for_a_missing_file_the_agent_names(
    tmp_path: Path, inspect_folder: Callable[..., Inspection]
) -> None:
    files = {
        "langgraph.json": '{"graphs": {"agent": "./graph.py:graph"}}',
        "graph.py": textwrap.dedent(GRAPH),
        "settings.example.json": "{}",
        "conf/models.yaml.sample": "model: x\n",
        "present.example.toml": "",
        "present.toml": "",  # made already: nothing to propose
        "unused.example.yaml": "",  # the agent never names unused.yaml
        ".env.example": "OPENAI_API_KEY=\n",  # variables, never a file to make
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)

    proposed = [(p.path, p.example) for p in inspect_folder(tmp_path).proposed_files]

    assert proposed == [
        ("settings.json", "settings.example.json"),
        ("conf/models.yaml", "conf/models.yaml.sample"),
    ]
