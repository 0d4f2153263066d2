"""``agent-import inspect`` through the command line: output on success, and for every bad
input one clear line on stderr, exit status 1, nothing on stdout.

The cases run the command line's ``main`` in this process (each new interpreter would cost a
second); the JSON output and a usage error also run as the real command, in its own process.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from generator.cli import main
from generator.models import Inspection

MakeProject = Callable[[dict[str, str]], Path]
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "agents"


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``agent-import inspect ARGS`` through ``main``: its exit status, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["inspect", *args])
        except SystemExit as exc:  # argparse's usage errors
            code = int(exc.code or 0)
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


def command(*args: str) -> subprocess.CompletedProcess[str]:
    """The real ``agent-import inspect ARGS`` in a new interpreter."""
    return subprocess.run(
        [sys.executable, "-m", "generator.cli", "inspect", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def assert_one_error(done: subprocess.CompletedProcess[str], message: str) -> None:
    assert done.returncode == 1
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("agent-import: error: ")
    assert message in lines[0], lines[0]


def test_json_output_is_one_inspection(tmp_path: Path) -> None:
    done = command(str(FIXTURES / "factories"), "--json", "--graph", "async runtime")
    assert done.returncode == 0, done.stderr
    inspection = Inspection.model_validate_json(done.stdout)
    assert [g.graph_id for g in inspection.graphs] == ["async runtime"]
    graph = json.loads(done.stdout)["graphs"][0]
    stable = {"graph_id", "file", "export", "export_kind", "state", "input_schema", "nodes"}
    stable |= {"output_schema", "context_schema", "edges", "input_is_messages", "strategy"}
    assert stable <= set(graph)
    assert set(graph["state"]) >= {"name", "style", "fields"}
    assert set(graph["state"]["fields"][0]) >= {
        "name",
        "type",
        "reducer",
        "default",
        "inherited_from",
    }
    assert set(graph["nodes"][0]) >= {"name", "target", "returns"}


def test_summary_shows_graphs_state_nodes_dependencies_and_warnings() -> None:
    done = cli(str(FIXTURES / "inheritance"))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "graph 'research': research/graph.py:graph [compiled_graph]" in out
    assert "messages: Messages  [reducer add_messages; from BaseState]" in out
    assert "search: function search -> queries, sources" in out
    done = cli(str(FIXTURES / "relative_up"))
    assert "langgraph>=0.4,<0.5  [pyproject.toml]" in done.stdout
    done = cli(str(FIXTURES / "dynamic_nodes"))
    assert "review.py:49: node added inside a loop" in done.stdout


def test_summary_shows_shapes_proposals_local_packages_and_variables() -> None:
    out = cli(str(FIXTURES / "swarm")).stdout
    assert "  shape: the documented shape of langgraph_swarm.create_swarm" in out
    assert "orders_desk -[destinations]-> returns_desk" in out
    out = cli(str(FIXTURES / "undeclared_imports")).stdout
    assert (
        "  langchain-openai>=0.2  [requirements.txt; proposed for the undeclared import "
        "langchain_openai (agent/graph.py:9)]"
    ) in out
    out = cli(str(FIXTURES / "uv_workspace")).stdout
    assert "local packages (vendored, never fetched): helpdesk, shared, support-core" in out
    out = cli(str(FIXTURES / "create_agent_prebuilt")).stdout
    assert "  SEARCH_API_KEY  [langgraph.json]" in out
    assert "  SEARCH_URL (optional)  [src/helper/tools.py:7]" in out


def test_remote_source_with_ref(
    tmp_path: Path, minimal_agent: dict[str, str], git_repo: Any
) -> None:
    repo = git_repo("agent")
    sha = repo.commit(minimal_agent)
    repo.git("tag", "v1")
    done = cli(repo.url, "--ref", "v1", "--json")
    assert done.returncode == 0, done.stderr
    source = Inspection.model_validate_json(done.stdout).source
    assert (source.commit, source.ref, source.is_remote) == (sha, "v1", True)


def test_several_configs_are_chosen_with_config(
    make_project: MakeProject, minimal_agent: dict[str, str]
) -> None:
    root = make_project(
        {f"a/{k}": v for k, v in minimal_agent.items()}
        | {f"b/{k}": v for k, v in minimal_agent.items()}
    )
    assert_one_error(
        cli(str(root)), "a/langgraph.json, b/langgraph.json); choose one with --config PATH"
    )
    done = cli(str(root), "--config", "b/langgraph.json", "--json")
    assert Inspection.model_validate_json(done.stdout).config_file == "b/langgraph.json"


# --- bad inputs ------------------------------------------------------------------------------


def test_syntax_error_in_the_graph_file(
    make_project: MakeProject, minimal_agent: dict[str, str]
) -> None:
    root = make_project(minimal_agent | {"agent.py": "from x import y\n\ndef broken(:\n    pass\n"})
    assert_one_error(cli(str(root)), "agent.py:3: syntax error")


def test_missing_graph_file(make_project: MakeProject) -> None:
    root = make_project({"langgraph.json": '{"graphs": {"agent": "./src/agent.py:graph"}}'})
    assert_one_error(cli(str(root)), "langgraph.json: graph 'agent': ./src/agent.py does not exist")


def test_spec_escaping_the_tree(make_project: MakeProject) -> None:
    root = make_project({"langgraph.json": '{"graphs": {"agent": "../../etc/agent.py:graph"}}'})
    assert_one_error(cli(str(root)), "graph 'agent' file ../../etc/agent.py leaves the source tree")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (r"./a\u0000b.py:graph", r"langgraph.json: graph 'agent' file 'a\x00b.py' holds a NUL"),
        (r"./\ud800.py:graph", r"langgraph.json: './\ud800.py:graph' holds a lone surrogate"),
    ],
    ids=["nul", "lone-surrogate"],
)
def test_a_spec_that_is_no_file_name(make_project: MakeProject, spec: str, message: str) -> None:
    root = make_project({"langgraph.json": f'{{"graphs": {{"agent": "{spec}"}}}}'})
    assert_one_error(cli(str(root)), message)


def test_symlink_pointing_out(
    make_project: MakeProject, minimal_agent: dict[str, str], tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.py"
    outside.write_text(minimal_agent["agent.py"])
    root = make_project({"langgraph.json": minimal_agent["langgraph.json"]})
    os.symlink(outside, root / "agent.py")
    assert_one_error(cli(str(root)), "agent.py is a symlink pointing out of the source tree")


def test_javascript_only(make_project: MakeProject) -> None:
    root = make_project(
        {
            "langgraph.json": '{"node_version": "20", "graphs": {"agent": "./src/graph.ts:graph"}}',
            "package.json": '{"name": "agent"}',
            "src/graph.ts": "export const graph = 1;\n",
        }
    )
    assert_one_error(
        cli(str(root)),
        "this is a JavaScript/TypeScript LangGraph project (./src/graph.ts:graph); "
        "only Python graphs can be imported",
    )


def test_no_langgraph_json(make_project: MakeProject) -> None:
    root = make_project({"agent.py": "graph = None\n"})
    assert_one_error(cli(str(root)), "no langgraph.json found")


def test_repository_over_the_size_limit(git_repo: Any, minimal_agent: dict[str, str]) -> None:
    repo = git_repo("big")
    repo.commit(minimal_agent | {"weights.bin": os.urandom(200_000).hex()})
    assert_one_error(
        cli(repo.url, "--max-size", "0.1"), "is bigger than the clone size limit of 0.1 MB"
    )


def test_unreachable_url(tmp_path: Path) -> None:
    url = (tmp_path / "no-such-repo").as_uri()
    assert_one_error(cli(url), f"cannot fetch {url}: ")


def test_unknown_ref(git_repo: Any, minimal_agent: dict[str, str]) -> None:
    repo = git_repo("agent")
    repo.commit(minimal_agent)
    assert_one_error(
        cli(repo.url, "--ref", "release-9"), "has no branch, tag or commit 'release-9'"
    )


def test_missing_folder(tmp_path: Path) -> None:
    assert_one_error(cli(str(tmp_path / "nope")), "no such folder")


def test_bad_limits_are_usage_errors(tmp_path: Path) -> None:
    """The exit status of the real command; each bad value is in ``test_options.py``."""
    for run in (cli, command):
        done = run(str(tmp_path), "--max-size", "0")
        assert done.returncode == 2 and done.stdout == ""
        assert "--max-size" in done.stderr
