"""``agent-import validate``: check an imported plugin offline, as ``import`` does before writing.

The plugin folder runtime/plugins/ID/ is imported in a fresh process (its graph built, which
imports the agent), then its first turn and one message run with every chat model replaced by a
scripted reply and dummy provider keys. The plugin's isolated environment is used when it exists
(see --approve-deps); the runtime's own environment is never modified. When the agent names a
requirement only when it runs (`pip install X` in an ImportError), --approve-deps adds it to the
plugin's requirements.txt (and requirements.lock, for a plugin with an environment of its own),
installs it and validates once more, as `agent-import import` does.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from generator.cli.options import add_sandbox
from generator.errors import AgentImportError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "validate",
        help="import check and offline smoke test of an imported plugin",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("plugin_id", metavar="ID", help="the plugin's id (its folder name)")
    parser.add_argument(
        "--approve-deps",
        action="store_true",
        help="install its requirements.txt into its isolated validation environment first, "
        "and add a requirement the agent asks for when it runs (then validate once more)",
    )
    add_sandbox(parser)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from generator.dependencies.environment import approved_env_python, install_approved
    from generator.dependencies.isolation import build_env, is_isolated, validate_isolated
    from generator.pipeline.hinted import retry_in_place
    from generator.repository import check_plugin_id, find_root
    from generator.validate.plugin import validate
    from runtime.contract.layout import PLUGINS_FOLDER, REQUIREMENTS_FILE

    check_plugin_id(args.plugin_id)
    root = find_root(Path.cwd())
    folder = root / PLUGINS_FOLDER / args.plugin_id
    if not folder.is_dir():
        raise AgentImportError(f"no plugin {args.plugin_id!r} in {root / PLUGINS_FOLDER}")
    if is_isolated(folder):  # its environment of its own, built from its lock where checks see it
        print(build_env(root, folder, args.plugin_id), file=sys.stderr)
        report = validate_isolated(root, folder)
    else:
        python = approved_env_python(root, args.plugin_id)
        if args.approve_deps:
            python = install_approved(root, args.plugin_id, folder / REQUIREMENTS_FILE)
        report = validate(folder, python=python)
    report, notes = retry_in_place(root, folder, report, approved=args.approve_deps)
    for line in notes:
        print(line, file=sys.stderr)
    print(report.model_dump_json(indent=2) if args.json else report.describe())
    return 0 if report.ok else 1
