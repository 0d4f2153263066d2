"""Child processes that may run long (installs, resolutions): bounded, visible, stoppable.

The child starts in its own process group, so on a time limit or Ctrl-C the whole tree it
spawned (uv's builders, git, compilers) is ended with it, not only the direct child. While it
runs, a progress line says what is happening and for how long.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any, TextIO

from generator.errors import AgentImportError

#: Seconds between progress lines while a child runs.
PROGRESS_EVERY_S = 10.0
#: Seconds a terminated process group gets before it is killed.
_GRACE_S = 5.0


@dataclass(frozen=True)
class Finished:
    returncode: int
    stdout: str
    stderr: str
    seconds: float


def run_tree(
    command: list[str],
    *,
    what: str,
    timeout: float,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
    progress: TextIO | None = None,
) -> Finished:
    """Run ``command`` to completion within ``timeout`` seconds, or end its whole tree.

    ``what`` names the work in the progress lines and in the time-limit error.
    """
    out = progress if progress is not None else sys.stderr
    started = time.monotonic()
    print(f"{what}...", file=out, flush=True)
    child = subprocess.Popen(
        command,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,  # its own process group: killpg reaches every descendant
    )
    pending = stdin
    try:
        while True:
            elapsed = time.monotonic() - started
            if elapsed >= timeout:
                end_tree(child)
                raise AgentImportError(f"{what} took over {timeout:g} s and was stopped")
            try:
                stdout, stderr = child.communicate(
                    pending, timeout=min(PROGRESS_EVERY_S, timeout - elapsed)
                )
                break
            except subprocess.TimeoutExpired:
                pending = None  # already written
                print(f"{what}: {time.monotonic() - started:.0f} s", file=out, flush=True)
    except BaseException:  # Ctrl-C or the time limit: nothing may keep running
        end_tree(child)
        raise
    seconds = time.monotonic() - started
    print(f"{what}: done in {seconds:.1f} s", file=out, flush=True)
    return Finished(child.returncode, stdout, stderr, seconds)


def end_tree(child: subprocess.Popen[Any]) -> None:
    """SIGTERM the child's process group, then SIGKILL whatever of the group is still there."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(child.pid, sig)
        except ProcessLookupError:
            break
        if sig == signal.SIGTERM:
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.wait(timeout=_GRACE_S)
    child.wait()
