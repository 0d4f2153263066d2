"""``agent-import import``: turn a LangGraph agent into a plugin of the runtime, offline or not.

SRC is a local folder or a git URL. The agent is inspected statically, its screens designed
(Claude on Bedrock, the deterministic designer with --offline, or --design-file), the plugin
rendered through the Copier template into runtime/plugins/ID/ with the agent vendored in src/,
and validated offline before anything is written. Progress goes to stderr, one line per step.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from generator.cli.options import (
    add_design,
    add_sandbox,
    add_source,
    branch_name,
    design_options,
    fetch_limits,
)

if TYPE_CHECKING:
    from generator.pipeline.importer import ImportResult


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "import",
        help="import a LangGraph agent as a runtime plugin (render, vendor, validate)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_source(parser, src_help="local folder or git URL")
    parser.add_argument("--plugin-id", required=True, metavar="ID", help="e.g. savings_helper")
    parser.add_argument(
        "--strategy",
        choices=["wrapper", "subgraph", "port"],
        help="how the plugin runs the agent (default: the inspector's choice)",
    )
    parser.add_argument("--dry-run", action="store_true", help="write nothing; list the files")
    parser.add_argument("--force", action="store_true", help="replace an existing plugin folder")
    parser.add_argument(
        "--branch",
        type=branch_name,
        metavar="NAME",
        help="commit the plugin on this new branch, ready for a PR",
    )
    add_design(parser)
    parser.add_argument(
        "--approve-deps",
        action="store_true",
        help="install the agent's missing requirements into an isolated validation environment; "
        "an agent whose requirements or Python cannot share the runtime's environment gets one "
        "of its own (recorded in agent.json, locked in requirements.lock)",
    )
    parser.add_argument(
        "--shared-env",
        action="store_true",
        help="never give the agent an environment of its own: refuse requirements that conflict "
        "with the runtime's or another plugin's",
    )
    add_sandbox(parser)
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from generator.pipeline.importer import ImportOptions, ValidationFailed, import_agent
    from generator.pipeline.steps import to_stderr
    from generator.repository import find_root

    options = ImportOptions.from_asked(
        args, design_options=design_options(args), limits=fetch_limits(args)
    )
    print(f"agent-import: importing {args.src} as {args.plugin_id}", file=sys.stderr)
    try:
        result = import_agent(options, root=find_root(Path.cwd()), progress=to_stderr)
    except ValidationFailed as exc:
        print(exc.report.describe(), file=sys.stderr)
        raise
    print(result.model_dump_json(indent=2) if args.json else summary(result))
    return 0


def summary(result: ImportResult) -> str:
    """What a person reads after an import: where, which files, dependencies, validation."""
    total = sum(step.seconds for step in result.steps)
    verb = "would write" if result.dry_run else "wrote"
    lines = [
        f"{verb} {len(result.files)} files to {result.folder} ({result.strategy}, {total:.1f} s)"
    ]
    lines += [f"  {name}" for name in result.files]
    lines += ["dependencies:", *(f"  {r}" for r in result.dependencies.describe().splitlines())]
    lines.append(result.validation.describe(tracebacks=False))
    if result.dry_run:
        lines.append("dry run: nothing was written")
    elif result.commit:
        lines.append(f"committed {result.commit[:12]} on branch {result.branch}")
    else:
        lines.append(
            f"next: review with `git status`, then restart the runtime and connect to "
            f"/ws?agent={result.plugin_id}"
        )
    return "\n".join(lines)
