"""``python -m runtime.a2ui.check SCREEN.json...``: validate screen files, one line per issue.

The plugin id (for the action-namespace rule) comes from the ``<plugin_id>/screens/<name>.json``
layout, or from ``--plugin-id``. Exits 1 if any file has an issue, so it fits a pre-commit hook.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from runtime.a2ui.screens import InvalidScreenError, load_screen


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="a2ui-check", description="Validate A2UI v0.9 screen files against our catalog."
    )
    parser.add_argument("paths", nargs="+", type=Path, metavar="SCREEN.json")
    parser.add_argument(
        "--plugin-id", help="the plugin whose actions the screens use (default: from the path)"
    )
    args = parser.parse_args(argv)
    failed = False
    for path in args.paths:
        try:
            load_screen(path, plugin_id=args.plugin_id)
        except InvalidScreenError as exc:
            failed = True
            for issue in exc.issues:
                print(issue)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
