"""Three shapes the inspector once missed, read exactly (the corpus and the ground-truth test
check their graphs field by field): nodes added by name from another module's table, a
``create_agent`` whose state fields come from its middleware, and a graph factory in a uv
workspace member whose state class another member defines."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from generator.models import Inspection

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "agents"


def test_nodes_added_by_name_from_another_module_leave_nothing_unknown(
    inspect_folder: Callable[..., Inspection],
) -> None:
    inspection = inspect_folder(FIXTURES / "node_table")

    assert inspection.warnings == []
    for graph in inspection.graphs:
        assert graph.nodes is not None
        assert [(n.name, n.returns) for n in graph.nodes] == [
            ("clean", ["text"]),
            ("summarise", ["summary"]),
            ("tag", ["tags"]),
        ]


def test_middleware_state_fields_join_the_agents_state_in_langchains_order(
    inspect_folder: Callable[..., Inspection],
) -> None:
    graphs = {g.graph_id: g for g in inspect_folder(FIXTURES / "agent_middleware").graphs}

    fields = {gid: [f.name for f in g.state.fields] for gid, g in graphs.items() if g.state}
    base = ["messages", "jump_to", "structured_response"]
    assert fields == {"notes": [*base, "notes"], "custom": [*base, "notes", "audited", "customer"]}


def test_a_factory_in_a_workspace_member_reads_the_state_of_another_member(
    inspect_folder: Callable[..., Inspection],
) -> None:
    inspection = inspect_folder(FIXTURES / "workspace_factory")

    graph = inspection.graphs[0]
    assert graph.export_kind == "factory" and graph.state is not None
    assert graph.state.file == "packages/common/src/research_common/state.py"
    assert [(f.name, f.reducer) for f in graph.state.fields] == [
        ("messages", "add_messages"),
        ("topic", None),
        ("notes", "operator.add"),
    ]
    assert not [
        w for w in inspection.warnings if "statically" in w.message or "library" in w.message
    ]
