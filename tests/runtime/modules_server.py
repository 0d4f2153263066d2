"""``MODULES_FILE=PATH python -m tests.runtime.modules_server serve ARGS``: ``a2ui-runtime serve``
that writes, as it exits, the name of every module it imported to PATH, one a line.

Read from the server process itself after its start-up, the requests a test sent and its
shutdown: everything serving made it import, whichever module imported it and however late.
uvicorn raises the SIGTERM it stopped on again once it has shut down; here that signal exits
through ``SystemExit``, so the ``atexit`` hook runs.
"""

from __future__ import annotations

import atexit
import os
import signal
import sys
from pathlib import Path
from types import FrameType

from runtime import cli


def write_modules(path: Path) -> None:
    path.write_text("\n".join(sorted(sys.modules)) + "\n", encoding="utf-8")


def exit_on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(0)


if __name__ == "__main__":
    atexit.register(write_modules, Path(os.environ["MODULES_FILE"]))
    signal.signal(signal.SIGTERM, exit_on_sigterm)
    sys.exit(cli.main(sys.argv[1:]))
