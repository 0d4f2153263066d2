"""langgraph.json: discovery, validation, spec forms, and every way a config can be wrong."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from generator.errors import AgentImportError
from generator.inspect.config import load_config

MakeProject = Callable[[dict[str, str]], Path]
GRAPH = "graph = None\n"


def test_file_form_with_and_without_dot_slash(make_project: MakeProject) -> None:
    root = make_project(
        {
            "langgraph.json": '{"graphs": {"a": "./pkg/one.py:graph", "b b": "pkg/two.py:app"}}',
            "pkg/one.py": GRAPH,
            "pkg/two.py": GRAPH,
        }
    )
    config = load_config(root)
    assert [(g.graph_id, g.file, g.path, g.export) for g in config.graphs] == [
        ("a", "pkg/one.py", "pkg/one.py", "graph"),
        ("b b", "pkg/two.py", "pkg/two.py", "app"),
    ]
    assert config.config_file == "langgraph.json" and config.folder == ""


def test_object_form_keeps_the_description(make_project: MakeProject) -> None:
    root = make_project(
        {
            "langgraph.json": '{"graphs": {"a": {"path": "a.py:g", "description": "Says hi"}}}',
            "a.py": GRAPH,
        }
    )
    assert load_config(root).graphs[0].description == "Says hi"


@pytest.mark.parametrize(
    ("dependencies", "files", "module_file"),
    [
        (["."], {"src/agent/graph.py": GRAPH, "src/agent/__init__.py": ""}, "src/agent/graph.py"),
        (["./my_agent"], {"my_agent/agent/graph.py": GRAPH}, "my_agent/agent/graph.py"),
        (["./agent"], {"agent/graph.py": GRAPH, "agent/__init__.py": ""}, "agent/graph.py"),
        ([], {"agent/graph/__init__.py": GRAPH}, "agent/graph/__init__.py"),
    ],
    ids=["src-layout", "dependency-folder", "faux-package", "package-init"],
)
def test_module_form_resolves_through_dependencies(
    make_project: MakeProject, dependencies: list[str], files: dict[str, str], module_file: str
) -> None:
    deps = ", ".join(f'"{d}"' for d in dependencies)
    root = make_project(
        {"langgraph.json": f'{{"dependencies": [{deps}], "graphs": {{"a": "agent.graph:graph"}}}}'}
        | files
    )
    assert load_config(root).graphs[0].path == module_file


def test_module_form_not_found_names_the_folders_searched(make_project: MakeProject) -> None:
    root = make_project({"langgraph.json": '{"graphs": {"a": "agent.graph:graph"}}'})
    with pytest.raises(AgentImportError, match=r"cannot find module agent.graph \(looked in \.\)"):
        load_config(root)


def test_config_in_a_subfolder_is_found_and_paths_are_relative_to_it(
    make_project: MakeProject,
) -> None:
    root = make_project(
        {"backend/langgraph.json": '{"graphs": {"a": "./app.py:g"}}', "backend/app.py": GRAPH}
    )
    config = load_config(root)
    assert (config.config_file, config.folder) == ("backend/langgraph.json", "backend")
    assert (config.graphs[0].file, config.graphs[0].path) == ("app.py", "backend/app.py")


def test_root_config_wins_over_nested_ones(make_project: MakeProject) -> None:
    root = make_project(
        {
            "langgraph.json": '{"graphs": {"a": "./a.py:g"}}',
            "a.py": GRAPH,
            "examples/langgraph.json": '{"graphs": {"b": "./b.py:g"}}',
        }
    )
    assert load_config(root).config_file == "langgraph.json"


def test_several_nested_configs_ask_for_one(make_project: MakeProject) -> None:
    root = make_project(
        {
            "one/langgraph.json": '{"graphs": {"a": "./a.py:g"}}',
            "one/a.py": GRAPH,
            "two/langgraph.json": '{"graphs": {"b": "./b.py:g"}}',
            "two/b.py": GRAPH,
        }
    )
    with pytest.raises(AgentImportError, match=r"one/langgraph.json, two/langgraph.json.*--config"):
        load_config(root)
    assert load_config(root, config="two").graphs[0].graph_id == "b"
    assert load_config(root, config="one/langgraph.json").graphs[0].graph_id == "a"


def test_configs_in_dependency_and_hidden_folders_are_ignored(make_project: MakeProject) -> None:
    root = make_project(
        {
            "langgraph.json": '{"graphs": {"a": "./a.py:g"}}',
            "a.py": GRAPH,
            "node_modules/x/langgraph.json": "{}",
            ".venv/langgraph.json": "{}",
        }
    )
    assert load_config(root).config_file == "langgraph.json"


def test_no_config_names_langgraph_json(make_project: MakeProject) -> None:
    root = make_project({"agent.py": GRAPH})
    with pytest.raises(AgentImportError, match=r"no langgraph\.json found"):
        load_config(root)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"graphs": ', r"langgraph\.json:1: invalid JSON"),
        ("[" * 100_000, r"langgraph\.json: invalid JSON: nested too deep"),
        ("[1, 2]", "invalid langgraph.json: top level"),
        ('{"graphs": {}}', "invalid langgraph.json: graphs"),
        ('{"dependencies": ["."]}', "invalid langgraph.json: graphs: Field required"),
        ('{"graphs": {"a": 3}}', "invalid langgraph.json: graphs.a"),
        ('{"graphs": {"a": "./a.py"}}', r"'\./a\.py' is not 'path/to/file\.py:variable'"),
        ('{"graphs": {"a": "./a.py:not-a-name"}}', "is not 'path/to/file.py:variable'"),
        ('{"graphs": {"a": "agent graph:g"}}', "'agent graph' is not a module name"),
    ],
)
def test_invalid_configs(make_project: MakeProject, text: str, message: str) -> None:
    root = make_project({"langgraph.json": text, "a.py": GRAPH})
    with pytest.raises(AgentImportError, match=message):
        load_config(root)


def test_missing_graph_file(make_project: MakeProject) -> None:
    root = make_project({"langgraph.json": '{"graphs": {"a": "./agent/graph.py:graph"}}'})
    with pytest.raises(
        AgentImportError, match=r"langgraph\.json: graph 'a': \./agent/graph\.py does not exist$"
    ):
        load_config(root)


def test_a_graph_file_written_in_another_case_is_named(make_project: MakeProject) -> None:
    """Written on a case-insensitive file system (``./Agent.py`` for ``agent.py``)."""
    root = make_project(
        {"langgraph.json": '{"graphs": {"a": "./Agent.py:graph"}}', "agent.py": GRAPH}
    )
    with pytest.raises(
        AgentImportError, match=r"\./Agent\.py does not exist \(there is agent\.py: "
    ):
        load_config(root)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            r'{"graphs": {"a": "./a\u0000b.py:graph"}}',
            r"langgraph.json: graph 'a' file 'a\x00b.py' holds a NUL character",
        ),
        (
            r'{"graphs": {"a": "a.py:g"}, "dependencies": ["./lib\u0000"]}',
            r"langgraph.json: dependency 'lib\x00' holds a NUL character",
        ),
        (
            r'{"graphs": {"a": "a.py:g"}, "source": {"kind": "uv", "root": "\u0000"}}',
            r"langgraph.json: source root '\x00' holds a NUL character",
        ),
        (
            r'{"graphs": {"a": "./src/\ud800.py:graph"}}',
            r"langgraph.json: './src/\ud800.py:graph' holds a lone surrogate",
        ),
        (
            r'{"graphs": {"a": "a.py:g"}, "dependencies": ["./\udfff"]}',
            r"langgraph.json: './\udfff' holds a lone surrogate",
        ),
        (
            r'{"graphs": {"\udc00": "a.py:g"}, "env": "\ud800.env"}',
            "langgraph.json: '\\ud",  # a graph id and an env file are written out too
        ),
    ],
    ids=["graph-nul", "dependency-nul", "source-nul", "graph-surrogate", "dependency-surrogate",
         "other-surrogates"],
)  # fmt: skip
def test_a_character_no_file_name_or_text_holds_is_one_error(
    make_project: MakeProject, text: str, message: str
) -> None:
    root = make_project({"langgraph.json": text, "a.py": GRAPH})
    with pytest.raises(AgentImportError) as refused:
        load_config(root)
    assert str(refused.value).startswith(message)


def test_a_surrogate_pair_is_one_character(make_project: MakeProject) -> None:
    root = make_project(
        {"langgraph.json": r'{"graphs": {"\ud83d\ude00": "a.py:g"}}', "a.py": GRAPH}
    )
    assert load_config(root).graphs[0].graph_id == "\N{GRINNING FACE}"


@pytest.mark.parametrize("spec", ["../outside.py:graph", "./a/../../outside.py:graph"])
def test_spec_leaving_the_tree_is_refused(make_project: MakeProject, spec: str) -> None:
    root = make_project({"langgraph.json": f'{{"graphs": {{"a": "{spec}"}}}}'})
    (root.parent / "outside.py").write_text(GRAPH)
    with pytest.raises(AgentImportError, match="leaves the source tree"):
        load_config(root)


def test_dependency_leaving_the_tree_is_refused(make_project: MakeProject) -> None:
    root = make_project(
        {"langgraph.json": '{"dependencies": [".."], "graphs": {"a": "a.py:g"}}', "a.py": GRAPH}
    )
    with pytest.raises(AgentImportError, match=r"dependency \.\. leaves the source tree"):
        load_config(root)


def test_symlinked_graph_file_pointing_out_is_refused(
    make_project: MakeProject, tmp_path: Path
) -> None:
    outside = tmp_path / "secret.py"
    outside.write_text(GRAPH)
    root = make_project({"langgraph.json": '{"graphs": {"a": "./agent.py:graph"}}'})
    os.symlink(outside, root / "agent.py")
    with pytest.raises(
        AgentImportError, match=r"agent\.py is a symlink pointing out of the source"
    ):
        load_config(root)


def test_symlink_inside_the_tree_is_fine(make_project: MakeProject) -> None:
    root = make_project({"langgraph.json": '{"graphs": {"a": "./agent.py:graph"}}', "x.py": GRAPH})
    os.symlink(root / "x.py", root / "agent.py")
    assert load_config(root).graphs[0].path == "x.py"


def test_javascript_only_project_is_rejected(make_project: MakeProject) -> None:
    root = make_project(
        {
            "langgraph.json": '{"node_version": "20", "graphs": {"agent": "./src/agent.ts:graph"}}',
            "src/agent.ts": "export const graph = {};\n",
        }
    )
    with pytest.raises(
        AgentImportError,
        match=r"JavaScript/TypeScript LangGraph project .*only Python graphs can be imported",
    ):
        load_config(root)


def test_javascript_graphs_next_to_python_ones_are_skipped_with_a_warning(
    make_project: MakeProject,
) -> None:
    root = make_project(
        {
            "langgraph.json": '{"graphs": {"py": "./a.py:g", "js": "./b.js:graph"}}',
            "a.py": GRAPH,
        }
    )
    config = load_config(root)
    assert [g.graph_id for g in config.graphs] == ["py"]
    assert [w.message for w in config.warnings] == ["graph 'js' is JavaScript/TypeScript; skipped"]
    with pytest.raises(AgentImportError, match="JavaScript/TypeScript"):
        load_config(root, graph="js")


def test_graph_selection(make_project: MakeProject) -> None:
    root = make_project(
        {"langgraph.json": '{"graphs": {"a": "./a.py:g", "b": "./a.py:h"}}', "a.py": GRAPH}
    )
    assert [g.graph_id for g in load_config(root, graph="b").graphs] == ["b"]
    with pytest.raises(
        AgentImportError, match=r"no graph 'c' in langgraph\.json \(it has 'a', 'b'\)"
    ):
        load_config(root, graph="c")


def test_unknown_keys_are_kept_and_reported_known_ones_are_not(make_project: MakeProject) -> None:
    root = make_project(
        {
            "langgraph.json": """
            {"$schema": "https://langgra.ph/schema.json", "graphs": {"a": "./a.py:g"},
             "store": {}, "checkpointer": {}, "auth": {}, "http": {}, "dockerfile_lines": [],
             "python_version": "3.12", "env": {"API_KEY": "sk-secret"}, "owner": "team-a"}
            """,
            "a.py": GRAPH,
        }
    )
    config = load_config(root)
    assert config.extra_keys == ["owner"]
    assert config.warnings[0].message == "unknown key 'owner' in langgraph.json (kept, not used)"
    assert config.python_version == "3.12"
    assert config.env == {"API_KEY": "***"}  # names only: values may be secrets


def test_config_option_outside_the_tree_is_refused(make_project: MakeProject) -> None:
    root = make_project({"langgraph.json": '{"graphs": {"a": "./a.py:g"}}', "a.py": GRAPH})
    with pytest.raises(AgentImportError, match="leaves the source tree"):
        load_config(root, config="../langgraph.json")
    with pytest.raises(AgentImportError, match="no such file"):
        load_config(root, config="nested/langgraph.json")
