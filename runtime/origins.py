"""Which web pages may use the runtime: the ``Origin`` rule of ``/ws``, ``/agui`` and imports.

A browser sends the user's cookies (and so a gateway's login) with every request to the runtime,
whichever page makes it, and two kinds of request are never held back by CORS: a WebSocket
handshake (cross-site WebSocket hijacking) and a "simple" POST such as one of ``text/plain``
(no preflight: CORS only hides the answer from the page, after the turn has run). Both carry the
``Origin`` of the page that made them, so the runtime decides on it before anything happens:

* no ``Origin``: not a page's request (native clients, curl, servers): allowed;
* the runtime's own origin: the scheme, host and port the request was addressed to (its ``Host``
  header; its scheme as uvicorn sees it, ``X-Forwarded-Proto`` from a trusted proxy included),
  a WebSocket's ``ws``/``wss`` being its page's ``http``/``https``: allowed;
* an origin of ``Settings.cors_origins``: allowed;
* anything else, ``null`` (sandboxed frames, ``file://`` pages) included: refused.

The scheme is compared too: an ``http`` page is not the ``https`` site it shares a name with.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, NamedTuple
from urllib.parse import urlsplit

from starlette.requests import HTTPConnection

DEFAULT_PORTS: Final = {"http": 80, "https": 443}
#: A request's scheme -> the scheme of the page that made it.
PAGE_SCHEMES: Final = {"http": "http", "https": "https", "ws": "http", "wss": "https"}


class Origin(NamedTuple):
    """An origin as browsers compare them: scheme, host (lower case), port (default filled in)."""

    scheme: str
    host: str
    port: int


def parse(value: str) -> Origin | None:
    """The origin ``value`` serializes (``scheme://host[:port]``), or None if it is not one."""
    try:
        parts = urlsplit(value)
        port = parts.port
    except ValueError:  # a port that is not a number, a bad IPv6 address
        return None
    if (
        parts.scheme not in DEFAULT_PORTS
        or not parts.hostname
        or parts.username is not None
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
    ):
        return None
    return Origin(parts.scheme, parts.hostname, port or DEFAULT_PORTS[parts.scheme])


def is_own(connection: HTTPConnection, origin: str) -> bool:
    """Whether ``origin`` is the one this request was addressed to (its scheme and ``Host``)."""
    page_scheme = PAGE_SCHEMES.get(connection.url.scheme)
    own = parse(f"{page_scheme}://{connection.headers.get('host', '')}")
    return own is not None and parse(origin) == own


def allows(connection: HTTPConnection, trusted: Iterable[str]) -> bool:
    """Whether this request may start a turn: no ``Origin``, its own, or a ``trusted`` one."""
    origin = connection.headers.get("origin")
    if origin is None:
        return True
    parsed = parse(origin)
    return parsed is not None and (is_own(connection, origin) or parsed in map(parse, trusted))
