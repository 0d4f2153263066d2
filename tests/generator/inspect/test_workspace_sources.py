"""uv workspaces as LangGraph reads them: ``langgraph.json``'s ``source`` form names a member of
a workspace root, and the root's ``[tool.uv.sources]`` apply to every member."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from plugin_repo import write_files

from generator.errors import AgentImportError
from generator.inspect.config import load_config

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "agents" / "uv_source_workspace"


def test_the_source_form_names_the_member_and_root_sources_link_its_dependencies() -> None:
    config = load_config(FIXTURE)

    assert config.config_file == "apps/agent/langgraph.json"
    assert config.graphs[0].path == "apps/agent/src/agent/graph.py"
    assert config.local_dependencies == ["apps/agent", "packages/shared"]
    assert config.import_roots[:4] == [
        "apps/agent/src",
        "apps/agent",
        "packages/shared/src",
        "packages/shared",
    ]
    # the member, the package it links, and the workspace root's own project
    assert config.local_packages == ["agent", "ops-workspace", "shared"]


def workspace(tmp_path: Path, source: dict[str, str], **extra: str) -> Path:
    return write_files(
        tmp_path / "repo",
        {
            "pyproject.toml": (
                '[tool.uv.workspace]\nmembers = ["apps/*", "packages/*"]\n'
                '[tool.uv.sources]\nshared = { workspace = true }\nunused = { path = "unused" }\n'
            ),
            "unused/pyproject.toml": '[project]\nname = "unused"\n',
            "apps/agent/pyproject.toml": (
                '[project]\nname = "agent"\ndependencies = ["shared>=0.1"]\n'
            ),
            "apps/agent/graph.py": "graph = None\n",
            "apps/agent/langgraph.json": json.dumps(
                {"source": source, "graphs": {"g": "./graph.py:graph"}}
            ),
            "packages/shared/pyproject.toml": '[project]\nname = "shared"\n',
            **extra,
        },
    )


def test_root_sources_follow_only_what_the_member_depends_on(tmp_path: Path) -> None:
    root = workspace(tmp_path, {"kind": "uv", "root": "../..", "package": "agent"})

    config = load_config(root)

    assert config.local_dependencies == ["apps/agent", "packages/shared"]  # not "unused"


def test_a_member_source_wins_over_the_root_one(tmp_path: Path) -> None:
    root = workspace(
        tmp_path,
        {"kind": "uv", "root": "../..", "package": "agent"},
        **{
            "apps/agent/pyproject.toml": (
                '[project]\nname = "agent"\ndependencies = ["shared"]\n'
                '[tool.uv.sources]\nshared = { path = "../../libs/shared" }\n'
            ),
            "libs/shared/pyproject.toml": '[project]\nname = "shared"\n',
        },
    )

    assert load_config(root).local_dependencies == ["apps/agent", "libs/shared"]


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (
            {"kind": "uv", "root": "../..", "package": "nobody"},
            "source package 'nobody' is not a member of the uv workspace at '../..'",
        ),
        ({"kind": "uv", "root": "../../unused/none"}, "source root '../../unused/none' has no "),
        ({"kind": "uv", "root": "../../.."}, "source root"),
        ({"kind": "pip", "root": "."}, r"invalid langgraph\.json: source\.kind"),
    ],
)
def test_a_source_that_names_nothing_is_one_clear_line(
    tmp_path: Path, source: dict[str, str], message: str
) -> None:
    root = workspace(tmp_path, source)

    with pytest.raises(AgentImportError, match=message):
        load_config(root)


def test_a_source_root_without_package_reads_like_dependencies_dot(tmp_path: Path) -> None:
    def project(name: str, config: dict[str, object]) -> Path:
        return write_files(
            tmp_path / name,
            {
                "pyproject.toml": '[project]\nname = "solo-agent"\ndependencies = ["langgraph"]\n',
                "graph.py": "graph = None\n",
                "langgraph.json": json.dumps({**config, "graphs": {"g": "./graph.py:graph"}}),
            },
        )

    source = load_config(project("source", {"source": {"kind": "uv", "root": "."}}))
    dependencies = load_config(project("dependencies", {"dependencies": ["."]}))

    assert source.local_packages == dependencies.local_packages == ["solo-agent"]
    assert source.local_dependencies == dependencies.local_dependencies == ["."]
    assert source.import_roots == dependencies.import_roots
