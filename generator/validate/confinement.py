"""Whether the checks run an agent's code in the sandbox: yes, unless this process was started
with ``--no-sandbox`` (the command line's flag, or the import API's server option).

A choice of the process, made once at its start: never a field of a request, never read from
the repository or from recorded answers, so an ``update`` is sandboxed unless it is asked anew.
"""

from __future__ import annotations

_unconfined = False


def disable() -> None:
    """Run this process's checks without the sandbox (``--no-sandbox``)."""
    global _unconfined
    _unconfined = True


def enabled() -> bool:
    return not _unconfined
