"""``agent-import update``: bring imported plugins up to date, as a diff to review.

The agent is fetched again from the source recorded in the plugin's .copier-answers.yml (at
--ref, else the recorded ref: the branch it was imported from) and inspected again; its screens
are designed again only if its state fields or nodes changed. ``copier update`` re-renders the
plugin with the current template and keeps hand edits; screens are merged by component id; src/
is replaced. All of it is staged in a worktree of the repository and validated offline there;
only an update that passed is written into the plugin's folder, left as a diff in the working
tree, or committed on a new branch with --branch (one commit per plugin, the message summarising
the change). A failed check writes nothing.

--template-only re-renders with the current template and leaves the agent as it is. --all
updates every imported plugin, one at a time. A conflict is reported file by file, left marked
in the working tree, and nothing is committed; the exit code is then 1.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from generator.cli.options import (
    add_design,
    add_fetch_limits,
    add_sandbox,
    branch_name,
    design_options,
    fetch_limits,
    ref_name,
)

if TYPE_CHECKING:
    from generator.pipeline.update import UpdateResult


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "update",
        help="update imported plugins from their agent and the template, keeping hand edits",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("plugin_id", nargs="?", metavar="ID", help="the plugin to update")
    which.add_argument("--all", action="store_true", help="every imported plugin, one at a time")
    parser.add_argument(
        "--ref", type=ref_name, help="git branch, tag or commit of the agent (default: recorded)"
    )
    parser.add_argument(
        "--template-only",
        action="store_true",
        help="re-render with the current template; do not fetch the agent again",
    )
    parser.add_argument(
        "--branch",
        type=branch_name,
        metavar="NAME",
        help="commit the update on this new branch, ready for a PR",
    )
    add_design(parser)
    parser.add_argument(
        "--approve-deps",
        action="store_true",
        help="install the plugin's requirements (a new one upstream added included) into its "
        "isolated validation environment, and add a requirement the agent asks for when it runs "
        "(then validate once more), as import does",
    )
    add_fetch_limits(parser)
    add_sandbox(parser)
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from generator.errors import AgentImportError
    from generator.pipeline.steps import to_stderr
    from generator.pipeline.update import UpdateOptions, update_plugin
    from generator.repository import find_root, imported_plugins

    if args.ref and (args.all or args.template_only):
        raise AgentImportError(
            "--ref picks the agent's version of one plugin: not with --all or --template-only"
        )
    root = find_root(Path.cwd())
    plugin_ids = imported_plugins(root) if args.all else [args.plugin_id]
    if not plugin_ids:
        print("agent-import: no imported plugins to update", file=sys.stderr)
        return 0
    results: list[UpdateResult] = []
    failed = 0
    for plugin_id in plugin_ids:
        options = UpdateOptions(
            plugin_id=plugin_id,
            ref=args.ref,
            template_only=args.template_only,
            branch=args.branch,
            approve_deps=args.approve_deps,
            design_file=args.design_file,
            design_options=design_options(args),
            limits=fetch_limits(args),
        )
        print(f"agent-import: updating {plugin_id}", file=sys.stderr)
        try:
            result = update_plugin(options, root=root, progress=to_stderr)
        except AgentImportError as exc:
            if not args.all:
                raise
            print(f"agent-import: error: {plugin_id}: {exc}", file=sys.stderr)
            failed += 1
            continue
        results.append(result)
        if not args.json:
            print(report(result))
    if args.json:
        print("[" + ",\n".join(r.model_dump_json(indent=2) for r in results) + "]")
    return 1 if failed or not all(result.ok for result in results) else 0


def report(result: UpdateResult) -> str:
    """What a person reads after updating one plugin."""
    if result.status == "up_to_date":
        return result.message.rstrip()
    lines = [result.message.rstrip(), "", f"files changed ({len(result.files)}):"]
    lines += [f"  {name}" for name in result.files]
    if result.status == "conflicts":
        lines.append(
            f"{len(result.conflicts)} conflicts, marked in the files: resolve them, `git add` "
            "the files, and commit (nothing was committed):"
        )
        lines += [f"  {conflict}" for conflict in result.conflicts]
    elif result.conflicts:
        lines.append("the merged screens are not valid (nothing was committed):")
        lines += [f"  {issue}" for issue in result.conflicts]
    if result.validation is not None:
        lines.append(result.validation.describe(tracebacks=not result.validation.ok))
    if result.commit:
        lines.append(f"committed {result.commit[:12]} on branch {result.branch}")
    elif result.ok:
        lines.append(f"next: review with `git diff -- {result.folder}`, then commit")
    return "\n".join(lines)
