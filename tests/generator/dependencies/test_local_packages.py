"""Local packages: folders linked by path or uv workspace are followed inside the repository only,
and their names are never required from an index."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from plugin_repo import write_files

from generator.inspect.config import load_config
from generator.models import Inspection

GRAPH = """
    from langgraph.graph import START, MessagesState, StateGraph

    builder = StateGraph(MessagesState)
    builder.add_node("noop", lambda state: {})
    builder.add_edge(START, "noop")
    graph = builder.compile()
"""


def test_a_workspace_member_reached_through_a_local_path_is_an_import_root(tmp_path: Path) -> None:
    root = write_files(
        tmp_path / "repo",
        {
            "pyproject.toml": '[tool.uv.workspace]\nmembers = ["packages/*"]\n',
            "packages/core/pyproject.toml": '[project]\nname = "Core_Lib"\nversion = "1"\n',
            "packages/core/src/core_lib/__init__.py": "",
            "packages/core/src/core_lib/graph.py": GRAPH,
            "app/langgraph.json": (
                '{"dependencies": ["."], "graphs": {"g": "core_lib.graph:graph"}}'
            ),
            "app/pyproject.toml": (
                '[project]\nname = "app"\nversion = "1"\ndependencies = ["core-lib"]\n'
                "[tool.uv.sources]\ncore-lib = { workspace = true }\n"
            ),
        },
    )

    config = load_config(root)

    assert config.graphs[0].path == "packages/core/src/core_lib/graph.py"
    assert "packages/core/src" in config.import_roots
    assert config.local_packages == ["app", "core-lib"]


def test_a_path_source_leaving_the_repository_is_not_followed(tmp_path: Path) -> None:
    write_files(tmp_path / "outside", {"pyproject.toml": '[project]\nname = "secret"\n'})
    root = write_files(
        tmp_path / "repo",
        {
            "langgraph.json": '{"dependencies": ["."], "graphs": {"g": "./graph.py:graph"}}',
            "graph.py": GRAPH,
            "pyproject.toml": (
                '[project]\nname = "app"\nversion = "1"\n'
                '[tool.uv.sources]\nsecret = { path = "../outside" }\n'
            ),
        },
    )

    config = load_config(root)

    assert "secret" not in config.local_packages
    assert not any(".." in path for path in config.import_roots + config.local_dependencies)
    assert any("leaves the source tree; not followed" in w.message for w in config.warnings)


def test_a_requirement_named_like_a_local_package_is_left_out_with_a_warning(
    tmp_path: Path, inspect_folder: Callable[..., Inspection]
) -> None:
    root = write_files(
        tmp_path / "repo",
        {
            "libs/shared/pyproject.toml": '[project]\nname = "shared"\nversion = "1"\n',
            "libs/shared/shared/__init__.py": "",
            "app/langgraph.json": (
                '{"dependencies": [".", "../libs/shared", "shared"], '
                '"graphs": {"g": "./graph.py:graph"}}'
            ),
            "app/graph.py": GRAPH,
            "app/requirements.txt": "Shared>=1\nlanggraph>=1.0\n",
        },
    )

    inspection = inspect_folder(root)

    assert [d.name for d in inspection.dependencies] == ["langgraph"]
    messages = [w.message for w in inspection.warnings]
    assert "shared is a folder of this repository: used from the vendored copy, never " \
        "installed from a package index" in messages  # fmt: skip
    assert "Shared>=1 is a folder of this repository: used from the vendored copy, never " \
        "installed from a package index" in messages  # fmt: skip
