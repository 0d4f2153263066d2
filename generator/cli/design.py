"""``agent-import design``: design the A2UI screens of an agent, with Claude or offline.

SRC is a source as ``inspect`` takes it (a folder or a git URL), or the JSON an earlier
``agent-import inspect --json`` printed. ``--json`` prints the ``Design``; otherwise a summary with
the mode, the tokens and an estimated cost.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from generator.cli.options import add_design, add_source, design_options, fetch_limits
from generator.errors import AgentImportError
from generator.models import Inspection

if TYPE_CHECKING:
    from generator.design import Design


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "design",
        help="design the A2UI screens of an agent (Claude on Bedrock, or offline)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_source(parser, src_help="folder, git URL, or inspection JSON file")
    parser.add_argument("--plugin-id", required=True, metavar="ID", help="e.g. research")
    add_design(parser)
    parser.add_argument(
        "--show-prompt",
        action="store_true",
        help="print the design prompt that would be sent (heuristic field mapping) and exit",
    )
    parser.add_argument("--json", action="store_true", help="print the Design as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from generator.design import design, load_design, preview_prompt
    from generator.repository import check_plugin_id

    check_plugin_id(args.plugin_id)
    inspection = _inspection(args)
    if args.show_prompt:
        sample = design_options(args).sample_output
        prompt = preview_prompt(
            inspection, plugin_id=args.plugin_id, graph_id=args.graph, sample_output=sample
        )
        print(prompt.text, end="")
        return 0
    if args.design_file is not None:
        result = load_design(
            args.design_file, inspection, plugin_id=args.plugin_id, graph_id=args.graph
        )
    else:
        result = design(
            inspection, plugin_id=args.plugin_id, graph_id=args.graph, options=design_options(args)
        )
    print(result.model_dump_json(indent=2) if args.json else summary(result))
    return 0


def summary(result: Design) -> str:
    """A few lines a person reads: how it was made, what it cost, what it holds."""
    from generator.design.cost import estimate_usd

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


def _inspection(args: argparse.Namespace) -> Inspection:
    """An inspection JSON file as is; anything else fetched and inspected."""
    src = args.src
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
    from generator.fetch import Workspace, fetch
    from generator.inspect import inspect_source

    with Workspace() as workspace:
        source = fetch(src, workspace=workspace, ref=args.ref, limits=fetch_limits(args))
        return inspect_source(source, config=args.config, graph=args.graph)
