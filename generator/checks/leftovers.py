"""``no-merge-leftovers PATH...``: what an unfinished merge leaves behind, under plugin folders.

An update's conflicts are left in the working tree for a reviewer to resolve (see
``generator.pipeline.update``); this hook stops them from being committed: a line of Git's conflict
markers (``<<<<<<<``, ``|||||||``, ``=======`` or ``>>>>>>>`` inside a conflict) in a text file,
and the ``*.rej`` and ``*.orig`` files that ``copier update --conflict rej``, ``git apply
--reject`` or merge tools write. Each finding is one line with the file and line.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

LEFTOVER_SUFFIXES = (".rej", ".orig")
OPENING, CLOSING = "<<<<<<<", ">>>>>>>"
INSIDE = ("|||||||", "=======")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="no-merge-leftovers",
        description="Find conflict markers and *.rej / *.orig files left by a merge.",
    )
    parser.add_argument("paths", nargs="*", type=Path, metavar="PATH")
    args = parser.parse_args(argv)
    problems = [problem for path in args.paths for problem in leftovers(path)]
    for problem in problems:
        print(problem)
    return 1 if problems else 0


def leftovers(path: Path) -> Iterator[str]:
    """What ``path`` has left of a merge, one line each."""
    if path.name.endswith(LEFTOVER_SUFFIXES):
        yield f"{path}: left by a merge: apply what it holds by hand, then delete it"
        return
    try:
        lines = path.read_bytes().decode("utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return  # a folder, or not text: no markers to find
    inside = False  # "=======" is a fine line (a reST underline) outside a conflict
    for number, line in enumerate(lines, start=1):
        if _is_marker(line, OPENING):
            inside = True
        elif inside and _is_marker(line, CLOSING):
            inside = False
        elif not (inside and any(_is_marker(line, marker) for marker in INSIDE)):
            continue
        yield f"{path}:{number}: conflict marker {line[:7]!r}: resolve the conflict"


def _is_marker(line: str, marker: str) -> bool:
    return line.startswith(marker) and line[7:8] in ("", " ")


if __name__ == "__main__":
    sys.exit(main())
