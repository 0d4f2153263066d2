"""Inspection time per graph over the fixture corpus (clone excluded; goal: under 100 ms).

Every round inspects from scratch (files read and parsed again), as one ``agent-import inspect``
run does. Prints each fixture's median time per graph, then the mean and p95 over all graphs,
and two synthetic projects (many modules and nodes) to show how time grows with size. Then the
share of the corpus's graphs read completely: the export resolved, the state known, every node
known (from the code or a library's documented shape).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from generator.inspect import inspect_source
from generator.models import Graph, Source

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "agents"
ROUNDS = 20
GOAL_MS = 100.0


def per_graph_ms(folder: Path, rounds: int = ROUNDS) -> list[float]:
    """One sample per round: the inspection's time divided by its number of graphs."""
    source = Source(url=str(folder), path=str(folder.resolve()))
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        inspection = inspect_source(source)
        elapsed = (time.perf_counter() - started) * 1000
        samples.append(elapsed / len(inspection.graphs))
    return samples


def read_completely(graph: Graph) -> bool:
    resolved = graph.export_kind != "unresolvable"
    return resolved and graph.state is not None and graph.nodes is not None and graph.nodes_complete


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def large_project(root: Path, modules: int = 40, nodes_per_module: int = 10) -> Path:
    """A graph whose state and ``modules * nodes_per_module`` nodes live in separate modules."""
    (root / "big").mkdir()
    (root / "big" / "__init__.py").write_text("")
    (root / "big" / "state.py").write_text(
        "import operator\nfrom typing import Annotated, TypedDict\n\n\nclass S(TypedDict):\n"
        + "".join(f"    k{i}: Annotated[list, operator.add]\n" for i in range(modules))
    )
    imports, adds = [], []
    for m in range(modules):
        body = "".join(
            f"def n{m}_{i}(state: S):\n    return {{'k{m}': [{i}]}}\n\n\n"
            for i in range(nodes_per_module)
        )
        (root / "big" / f"nodes{m}.py").write_text(f"from big.state import S\n\n\n{body}")
        imports.append(f"from big import nodes{m}")
        adds += [f"builder.add_node(nodes{m}.n{m}_{i})" for i in range(nodes_per_module)]
    (root / "big" / "graph.py").write_text(
        "\n".join(
            [
                "from langgraph.graph import StateGraph",
                "from big.state import S",
                *imports,
                "builder = StateGraph(S)",
                *adds,
                "graph = builder.compile()",
            ]
        )
    )
    (root / "langgraph.json").write_text(
        '{"dependencies": ["."], "graphs": {"big": "./big/graph.py:graph"}}'
    )
    return root


def main(argv: list[str]) -> None:
    shapes = sorted(p for p in FIXTURES.iterdir() if p.is_dir())
    every: list[float] = []
    print(f"inspection time per graph, median of {ROUNDS} fresh runs (ms):")
    for folder in shapes:
        samples = per_graph_ms(folder)
        every += samples
        print(f"  {folder.name:<20} {statistics.median(samples):7.2f}")
    graphs = [
        graph
        for folder in shapes
        for graph in inspect_source(Source(url=str(folder), path=str(folder.resolve()))).graphs
    ]
    complete = [f"{g.graph_id}" for g in graphs if read_completely(g)]
    share = 100 * len(complete) / len(graphs)
    print(f"read completely: {len(complete)} of {len(graphs)} graphs ({share:.0f}%)")
    print("  not: " + ", ".join(g.graph_id for g in graphs if not read_completely(g)))
    mean, tail = statistics.mean(every), p95(every)
    verdict = "under" if tail < GOAL_MS else "OVER"
    print(f"all graphs: mean {mean:.2f} ms, p95 {tail:.2f} ms ({verdict} the {GOAL_MS:g} ms goal)")
    for modules, nodes in ((10, 5), (40, 10)):
        with tempfile.TemporaryDirectory() as scratch:
            samples = per_graph_ms(large_project(Path(scratch), modules, nodes), rounds=5)
        print(
            f"synthetic: 1 graph, {modules + 2} modules, {modules * nodes} nodes: "
            f"median {statistics.median(samples):.1f} ms"
        )


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
