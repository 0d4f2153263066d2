"""How an error message quotes what a client sent: bounded, one line, never a control character.

Apart from the WebSocket frames (``wire.py``) so that what only reports errors (the generator's
git checks and ``agent.json`` reader among them) quotes the same way without importing the
contracts, and LangGraph with them.
"""

from __future__ import annotations

from pydantic import ValidationError

#: How much of a client's text an error message quotes (see ``excerpt``).
EXCERPT_CHARS = 40


def describe(exc: ValidationError, limit: int = 3) -> str:
    """Pydantic errors as ``field: problem; ...`` (the first few).

    A key the client made up (an extra field, a dict's key) shows as it is when short and
    printable, else as an ``excerpt``.
    """
    parts = [
        f"{'.'.join(map(_field, err['loc'])) or '(root)'}: {err['msg']}"
        for err in exc.errors()[:limit]
    ]
    return "; ".join(parts)


def excerpt(text: str) -> str:
    """``text`` as a one-line error quotes what a client sent: ``repr``-escaped (no newline or
    control character gets through), its first ``EXCERPT_CHARS`` characters, "…" if cut."""
    return repr(text[:EXCERPT_CHARS]) + ("…" if len(text) > EXCERPT_CHARS else "")


def _field(part: int | str) -> str:
    if isinstance(part, int) or (part.isprintable() and len(part) <= EXCERPT_CHARS):
        return str(part)
    return excerpt(part)
