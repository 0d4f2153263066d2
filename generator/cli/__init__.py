"""``agent-import``: the command line of the generator.

Each subcommand lives in its own module here with ``register(subparsers)``; the module sets
``func`` on its parser, which takes the parsed arguments and returns the exit code.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from generator import __version__
from generator.errors import AgentImportError
from generator.validate import confinement, warm

#: Subcommand modules, in the order ``--help`` lists them.
COMMANDS: list[str] = ["inspect", "design", "import_", "update", "validate", "template", "demo"]
#: Subcommands that validate a plugin: they start the warm check interpreter before anything else,
#: so its imports (LangGraph's, two seconds) overlap the command's own and the steps before.
VALIDATING = {"import", "update", "validate"}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agent-import",
        description=(
            "Import a LangGraph agent (a git URL or a local folder) as a plugin of the A2UI "
            "runtime: fetch, inspect statically, design A2UI screens, render through Copier, "
            "validate. Nothing from the agent is imported or executed while inspecting."
        ),
    )
    parser.add_argument("--version", action="version", version=f"agent-import {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"generator.cli.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    if arguments[:1] and arguments[0] in VALIDATING:
        warm.start()
    parser = build_parser()
    args = parser.parse_args(arguments)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    if getattr(args, "no_sandbox", False):
        confinement.disable()
    try:
        code: int = args.func(args)
    except AgentImportError as exc:
        print(f"agent-import: error: {exc}", file=sys.stderr)
        return 1
    except RuntimeError as exc:
        # The runtime's environment builds and uv lookup (no uv): imported here, not at start-up.
        from runtime.isolated.envs import EnvBuildError

        if not isinstance(exc, EnvBuildError):
            raise
        print(f"agent-import: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("agent-import: interrupted", file=sys.stderr)
        return 130
    return code
