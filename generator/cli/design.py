"""``agent-import design``: design the A2UI screens of an agent, with Claude or offline.

SRC is a source as ``inspect`` takes it (a folder or a git URL), or the JSON an earlier
``agent-import inspect --json`` printed. ``--json`` prints the ``Design``; otherwise a summary with
the mode, the tokens and an estimated cost.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from pydantic import ValidationError

from generator.design import Design, DesignOptions, design, load_design
from generator.design.cost import estimate_usd
from generator.design.designer import check_plugin_id
from generator.errors import AgentImportError
from generator.fetch import Workspace, fetch
from generator.inspect import inspect_source
from generator.models import Inspection


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "design",
        help="design the A2UI screens of an agent (Claude on Bedrock, or offline)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("src", metavar="SRC", help="folder, git URL, or inspection JSON file")
    parser.add_argument("--plugin-id", required=True, metavar="ID", help="e.g. research")
    parser.add_argument("--graph", metavar="ID", help="graph id in langgraph.json, if several")
    parser.add_argument("--ref", help="git branch, tag or commit of SRC")
    parser.add_argument("--config", metavar="PATH", help="langgraph.json to use, if several")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--offline", action="store_true", help="no model: deterministic design")
    source.add_argument(
        "--design-file", type=Path, metavar="F", help="check and use this design instead"
    )
    parser.add_argument(
        "--sample-output", type=Path, metavar="F", help="an example answer, shown to the model"
    )
    parser.add_argument(
        "--model", metavar="ID", help="design model id [$AGENT_IMPORT_DESIGN_MODEL]"
    )
    parser.add_argument(
        "--mapping-model", metavar="ID", help="field-mapping model id [$AGENT_IMPORT_MAPPING_MODEL]"
    )
    parser.add_argument("--region", help="AWS region [$AWS_REGION]")
    parser.add_argument("--profile", help="AWS profile [$AWS_PROFILE]")
    parser.add_argument("--no-cache", action="store_true", help="ask the model even if cached")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--structured-output",
        dest="output_mode",
        action="store_const",
        const="structured_output",
        help="JSON-schema structured output (default)",
    )
    mode.add_argument(
        "--tool-use",
        dest="output_mode",
        action="store_const",
        const="tool_use",
        help="forced tool use, for models without structured output",
    )
    parser.add_argument("--json", action="store_true", help="print the Design as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    check_plugin_id(args.plugin_id)
    inspection = _inspection(args.src, ref=args.ref, config=args.config, graph=args.graph)
    if args.design_file is not None:
        result = load_design(
            args.design_file, inspection, plugin_id=args.plugin_id, graph_id=args.graph
        )
    else:
        options = DesignOptions.from_env(
            offline=args.offline,
            design_model=args.model,
            mapping_model=args.mapping_model,
            use_cache=not args.no_cache,
            sample_output=_read(args.sample_output) if args.sample_output else None,
            bedrock={
                "region": args.region,
                "profile": args.profile,
                "output_mode": args.output_mode,
            },
        )
        result = design(inspection, plugin_id=args.plugin_id, graph_id=args.graph, options=options)
    print(result.model_dump_json(indent=2) if args.json else summary(result))
    return 0


def summary(result: Design) -> str:
    """A few lines a person reads: how it was made, what it cost, what it holds."""
    p = result.provenance
    lines = [f"design of {result.title!r} as plugin {result.plugin_id} (graph {result.graph_id})"]
    if p.mode == "bedrock":
        lines.append(
            f"  mode:      bedrock, {p.design_model}" + (" (from cache)" if p.cached else "")
        )
    else:
        lines.append(
            f"  mode:      {p.mode}" + (f": {p.fallback_reason}" if p.fallback_reason else "")
        )
    mapping = f"{result.input_field} -> {result.output_field} ({p.mapping}"
    lines.append(f"  mapping:   {mapping}{': ' + p.mapping_reason if p.mapping_reason else ''})")
    if p.calls:
        cost = estimate_usd(p)
        lines.append(
            f"  model:     {len(p.calls)} answers, {p.attempts} for the design; "
            f"{p.input_tokens:,} tokens in, {p.output_tokens:,} out; {p.latency_ms / 1000:.1f} s; "
            + (f"about ${cost:.4f} (estimate)" if cost is not None else "cost unknown")
        )
    if p.prompt_sha256:
        lines.append(f"  prompt:    sha256 {p.prompt_sha256}")
    screens = ", ".join(f"{name} ({len(s.components)})" for name, s in result.screens().items())
    lines.append(f"  screens:   {screens} components")
    lines.append(f"  actions:   {', '.join(result.actions()) or 'none'}")
    return "\n".join(lines)


def _inspection(src: str, *, ref: str | None, config: str | None, graph: str | None) -> Inspection:
    """An inspection JSON file as is; anything else fetched and inspected."""
    path = Path(src)
    if path.suffix == ".json" and path.is_file():
        try:
            return Inspection.model_validate_json(path.read_bytes())
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(part) for part in error["loc"]) or "document"
            raise AgentImportError(
                f"not an inspection: {where}: {error['msg']}", file=src
            ) from None
    with Workspace() as workspace:
        source = fetch(src, workspace=workspace, ref=ref)
        return inspect_source(source, config=config, graph=graph)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise AgentImportError(f"cannot read: {exc}", file=str(path)) from None
