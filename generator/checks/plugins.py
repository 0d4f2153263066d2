"""``python -m generator.checks.plugins``: every plugin of the repository, checked as CI does.

Run from the repository by the ``plugins`` nox session, in three passes, each reporting every
plugin before the next starts:

1. **contract**: the static plugin contract of each folder (``generator.checks.contract``);
2. **discovery**: the whole plugins folder loaded in one process as the runtime loads it at
   start-up: no folder may end up broken (this also catches two plugins that clash);
3. **smoke**: ``generator.validate.plugin`` of each plugin, hand-written or imported: an import
   check and the first turn and one message offline, in a fresh process (the plugin's isolated
   environment if ``--approve-deps`` made one).

Exits 1 if any plugin failed any pass.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from generator.checks.contract import check
from generator.dependencies.environment import approved_env_python
from generator.repository import find_root
from generator.validate.plugin import validate
from runtime.contract.ids import is_plugin_folder
from runtime.contract.layout import PLUGINS_FOLDER
from runtime.discovery import discover


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m generator.checks.plugins",
        description="Contract, discovery and offline smoke test of every plugin.",
    )
    parser.parse_args(argv)
    root = find_root(Path.cwd())
    plugins = root / PLUGINS_FOLDER
    folders = [p for p in sorted(plugins.iterdir()) if is_plugin_folder(p)]
    failed: set[str] = set()

    print(f"contract ({len(folders)} plugins)")
    for folder in folders:
        problems = check(folder)
        print(f"  {folder.name}: {'ok' if not problems else 'FAILED'}")
        print("".join(f"    {problem}\n" for problem in problems), end="")
        failed.update([folder.name] if problems else [])

    print("discovery")
    registry = discover(plugins)
    for name in sorted({*registry.plugins, *registry.broken}):
        reason = registry.broken.get(name)
        print(f"  {name}: {'ok' if reason is None else 'BROKEN: ' + reason}")
        failed.update([name] if reason else [])

    print("smoke")
    for folder in folders:
        report = validate(folder, python=approved_env_python(root, folder.name))
        print(
            "\n".join(
                f"  {line}" for line in report.describe(tracebacks=not report.ok).splitlines()
            )
        )
        failed.update([] if report.ok else [folder.name])

    summary = f"{len(folders) - len(failed)} of {len(folders)} plugins passed"
    print(summary + (f"; failed: {', '.join(sorted(failed))}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
