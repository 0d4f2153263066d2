"""``agent-import demo``: import an example agent offline into a scratch clone and talk to it.

The repository is cloned into a temporary folder (your tree is untouched), ``examples/EXAMPLE``
is imported there with the offline designer, the runtime starts on 127.0.0.1 over the clone's
plugins, and a scripted conversation is printed the way a client receives it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="import an example agent offline into a scratch clone and hold a conversation",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "example",
        nargs="?",
        default="savings_helper",
        metavar="EXAMPLE",
        help="folder under examples/ (default: %(default)s)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from generator.pipeline.demo import run_import_demo
    from generator.repository import find_root

    return run_import_demo(find_root(Path.cwd()), example=args.example, out=sys.stdout)
