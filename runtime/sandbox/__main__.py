"""``python -I -m runtime.sandbox SPEC -- PROGRAM [ARGS]``: run a program in a sandbox.

For fresh interpreters (an isolated plugin's worker, a validation environment's checks): the
helper makes the sandbox that ``SPEC`` (JSON, ``Spec.to_json``) describes and executes the program
in it with the helper's own environment, or exits ``SETUP_FAILED`` with one line on stderr.
``--probe`` makes an empty sandbox and leaves it: whether one can be made here at all.
"""

from __future__ import annotations

import os
import sys

from runtime.sandbox import SETUP_FAILED, SandboxError, Spec, enter


def main(argv: list[str]) -> int:
    if argv == ["--probe"]:
        spec, program = Spec(), None
    elif len(argv) >= 3 and argv[1] == "--":
        spec, program = Spec.from_json(argv[0]), argv[2:]
    else:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        enter(spec)
    except SandboxError as exc:
        print(f"sandbox: {exc}", file=sys.stderr, flush=True)
        return SETUP_FAILED
    if program is None:
        os._exit(0)
    try:
        os.execvp(program[0], program)
    except OSError as exc:
        print(f"sandbox: cannot start {program[0]}: {exc.strerror}", file=sys.stderr, flush=True)
    os._exit(127)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
