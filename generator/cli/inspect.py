"""``agent-import inspect``: fetch a LangGraph project and read it statically.

SRC is a local folder or a git URL (https, ssh, file). Nothing from the project is imported or
executed. ``--json`` prints one ``Inspection`` object (the contract the design step reads);
otherwise a summary: graphs, state fields with reducers, nodes, dependencies, warnings.
"""

from __future__ import annotations

import argparse

from generator.cli.options import add_source, fetch_limits
from generator.fetch import Workspace, fetch
from generator.inspect import inspect_source
from generator.models import Graph, Inspection, StateSchema


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "inspect",
        help="read a LangGraph project statically (graphs, state, nodes, dependencies)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_source(parser, src_help="local folder or git URL")
    parser.add_argument("--json", action="store_true", help="print the Inspection as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    with Workspace() as workspace:
        source = fetch(args.src, workspace=workspace, ref=args.ref, limits=fetch_limits(args))
        inspection = inspect_source(source, config=args.config, graph=args.graph)
    print(inspection.model_dump_json(indent=2) if args.json else summary(inspection))
    return 0


def summary(inspection: Inspection) -> str:
    """What a person reads: one block per graph, then dependencies and warnings."""
    source = inspection.source
    pinned = f" @ {source.commit[:12]}" if source.commit else ""
    lines = [f"source: {source.url}{pinned}{' (uncommitted changes)' if source.dirty else ''}"]
    lines.append(f"config: {inspection.config_file}")
    if inspection.config_extra_keys:
        lines.append(f"  unknown keys: {', '.join(inspection.config_extra_keys)}")
    for graph in inspection.graphs:
        lines += ["", *_graph(graph)]
    if inspection.dependencies:
        lines += ["", "dependencies (not installed):"]
        lines += [
            f"  {dep.spec}  [{dep.origin}"
            + (
                f"; proposed for the undeclared import {dep.proposed_for}]"
                if dep.proposed_for
                else "]"
            )
            for dep in inspection.dependencies
        ]
    if inspection.local_packages:
        lines += [
            "",
            f"local packages (vendored, never fetched): {', '.join(inspection.local_packages)}",
        ]
    if inspection.environment:
        lines += ["", "environment variables (names only):"]
        lines += [
            f"  {var.name}{'' if var.required else ' (optional)'}  [{var.origin}]"
            for var in inspection.environment
        ]
    if inspection.warnings:
        lines += ["", f"warnings ({len(inspection.warnings)}):"]
        for w in inspection.warnings:
            where = f"{w.file}:{w.line}" if w.line else w.file
            lines.append(f"  {where}: {w.message}")
    return "\n".join(lines)


def _graph(graph: Graph) -> list[str]:
    kind: str = graph.export_kind
    if graph.factory:
        params = ", ".join(graph.factory.params)
        kind += f" {'async ' if graph.factory.is_async else ''}{graph.export}({params})"
    if graph.prebuilt:
        kind += f" {graph.prebuilt}"
    if graph.compile_name:
        kind += f", name {graph.compile_name!r}"
    lines = [f"graph {graph.graph_id!r}: {graph.file}:{graph.export} [{kind}]"]
    if graph.export_reason:
        lines.append(f"  unresolvable: {graph.export_reason}")
    lines.append(f"  strategy: {graph.strategy} ({graph.strategy_reason})")
    if graph.documented_shape:
        lines.append(f"  shape: the documented shape of {graph.documented_shape}")
    lines += _schema("state", graph.state, fields=True)
    for role, schema in (
        ("input", graph.input_schema),
        ("output", graph.output_schema),
        ("context", graph.context_schema),
    ):
        lines += _schema(role, schema, fields=False)
    for schema in graph.structured_output:
        lines += _schema("structured output", schema, fields=False)
    if graph.nodes is not None:
        more = "" if graph.nodes_complete else " (incomplete: see warnings)"
        lines.append(f"  nodes{more}:")
        for node in graph.nodes:
            returns = ", ".join(node.returns) if node.returns is not None else "?"
            if node.returns is not None and not node.returns_complete:
                returns += ", ?"
            lines.append(f"    {node.name}: {node.target} {node.target_name} -> {returns}")
    if graph.edges:
        lines.append("  edges:")
        for edge in graph.edges:
            arrow = f"-[{edge.condition}]->" if edge.conditional else "->"
            lines.append(f"    {edge.source} {arrow} {edge.target}")
    return lines


def _schema(role: str, schema: StateSchema | None, *, fields: bool) -> list[str]:
    if schema is None:
        return [f"  {role}: unknown"] if fields else []
    where = f", {schema.file}" if schema.file else ""
    lines = [f"  {role}: {schema.name} ({schema.style}{where})"]
    for field in schema.fields if fields else []:
        extra = [f"reducer {field.reducer}"] if field.reducer else []
        extra += [f"default {field.default}"] if field.default else []
        extra += [f"from {field.inherited_from}"] if field.inherited_from else []
        lines.append(
            f"    {field.name}: {field.type}" + (f"  [{'; '.join(extra)}]" if extra else "")
        )
    return lines
