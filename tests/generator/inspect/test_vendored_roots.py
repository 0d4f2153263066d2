"""A requirement the repository provides is left out and imported from the vendored copy, so the
folder providing it is on the agent's import path (an example in a subfolder of a library)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from generator.models import Inspection

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "agents" / "root_library_example"
EXAMPLE_CONFIG = '{"dependencies": ["."], "graphs": {"g": "./desk.py:graph"}}'


def test_the_root_library_an_example_requires_is_on_its_import_path(
    inspect_folder: Callable[..., Inspection],
) -> None:
    inspection = inspect_folder(FIXTURE)

    assert inspection.import_roots == ["examples/front_desk", "examples", "."]
    assert [d.name for d in inspection.dependencies] == ["langchain-core"]
    assert "relay-desk" in inspection.local_packages


def test_a_src_layout_root_puts_its_src_folder_on_the_path(
    make_project: Callable[[dict[str, str]], Path], inspect_folder: Callable[..., Inspection]
) -> None:
    root = make_project(
        {
            "pyproject.toml": '[project]\nname = "Relay_Desk"\nversion = "1"\n',
            "src/relay_desk/__init__.py": "",
            "examples/a/langgraph.json": EXAMPLE_CONFIG,
            "examples/a/desk.py": "from relay_desk import build\ngraph = build()\n",
            "examples/a/pyproject.toml": (
                '[project]\nname = "desk-example"\nversion = "1"\n'
                'dependencies = ["relay-desk>=0.0.7"]\n'
            ),
        }
    )

    assert inspect_folder(root).import_roots == ["examples/a", "examples", "src"]


def test_a_root_project_nobody_requires_stays_off_the_path(
    make_project: Callable[[dict[str, str]], Path], inspect_folder: Callable[..., Inspection]
) -> None:
    root = make_project(
        {
            "pyproject.toml": '[project]\nname = "relay-desk"\nversion = "1"\n',
            "relay_desk/__init__.py": "",
            "examples/a/langgraph.json": EXAMPLE_CONFIG,
            "examples/a/desk.py": "graph = None\n",
            "examples/a/requirements.txt": "langchain-core>=0.3\n",
        }
    )

    assert inspect_folder(root).import_roots == ["examples/a", "examples"]


def test_a_known_library_read_from_its_own_repository_keeps_its_documented_shape(
    make_project: Callable[[dict[str, str]], Path], inspect_folder: Callable[..., Inspection]
) -> None:
    swarm = """
        from langgraph.prebuilt import create_react_agent
        from langgraph_swarm import create_handoff_tool, create_swarm

        desk = create_react_agent("m", [create_handoff_tool(agent_name="desk")], name="desk")
        app = create_swarm([desk], default_active_agent="desk").compile()
    """
    root = make_project(
        {
            "pyproject.toml": '[project]\nname = "langgraph-swarm"\nversion = "1"\n',
            "langgraph_swarm/__init__.py": "from langgraph_swarm.swarm import create_swarm\n",
            "langgraph_swarm/swarm.py": "def create_swarm(agents, **kw):\n    return build()\n",
            "examples/desk/langgraph.json": EXAMPLE_CONFIG.replace("desk.py:graph", "swarm.py:app"),
            "examples/desk/swarm.py": swarm,
            "examples/desk/requirements.txt": "langgraph-swarm>=0.0.7\n",
        }
    )

    inspection = inspect_folder(root)

    assert inspection.import_roots[-1] == "."
    assert inspection.graphs[0].documented_shape == "langgraph_swarm.create_swarm"
