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

A page whose DNS name its owner rebound to 127.0.0.1 is its own origin, so the ``Origin`` rule
alone lets it talk to a runtime on this machine (DNS rebinding). So a runtime bound to a loopback
address also checks the ``Host`` of a request that did not come through a reverse proxy: a
loopback name or one of ``Settings.allowed_hosts`` (``--allowed-host``), as the import API does.
Behind a trusted proxy (``runtime.serving.proxies``: only from ``--trusted-proxy`` addresses do
forwarding
headers count), and bound to other interfaces, the runtime serves whatever names its gateway gives
it.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from typing import Final, NamedTuple
from urllib.parse import urlsplit

from starlette.requests import HTTPConnection

from runtime.serving import proxies
from runtime.serving.quotes import excerpt
from runtime.settings import Settings

DEFAULT_PORTS: Final = {"http": 80, "https": 443}
#: A request's scheme -> the scheme of the page that made it.
PAGE_SCHEMES: Final = {"http": "http", "https": "https", "ws": "http", "wss": "https"}
LOOPBACK_NAMES: Final = frozenset({"localhost", "127.0.0.1", "::1"})
#: What ``Settings.host`` may be without naming a host a client could use.
ANY_INTERFACE: Final = frozenset({"0.0.0.0", "::", ""})
#: A ``Host`` header as RFC 9110 has it, and nothing more: a name (letters, digits, ``-``, ``_``,
#: ``.``; an IPv4 address is one) or an IPv6 address in brackets, then an optional port of digits.
#: Userinfo (``evil.example@localhost``), a path, spaces, a second host or an empty value do not
#: match, where a URL parser would quietly drop or mend them.
HOST_HEADER: Final = re.compile(
    r"(?:(?P<name>[A-Za-z0-9_.-]+)|\[(?P<ipv6>[0-9A-Fa-f:.]+)\])(?::[0-9]{1,5})?"
)


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
    """Whether this request's ``Origin`` may start a turn: none, its own, or a ``trusted`` one."""
    origin = connection.headers.get("origin")
    if origin is None:
        return True
    parsed = parse(origin)
    return parsed is not None and (is_own(connection, origin) or parsed in map(parse, trusted))


def refusal(connection: HTTPConnection, settings: Settings) -> str | None:
    """Why ``/ws`` or ``/agui`` refuses this request (one line), or None: a rebound ``Host`` of a
    loopback-bound runtime, then an ``Origin`` it does not allow."""
    rebindable = is_loopback(settings.host) and not proxies.forwarded(connection)
    if rebindable and not addressed_here(connection, settings):
        shown = excerpt(", ".join(connection.headers.getlist("host")))
        return f"Host {shown} is not this runtime's (serve with --allowed-host NAME if it is)"
    if not allows(connection, settings.cors_origins):
        return f"cross-origin request from {excerpt(connection.headers['origin'])} refused"
    return None


def came_through_proxy(connection: HTTPConnection) -> bool:
    """Whether this request carries a proxy's headers, trusted or not: its address may then be a
    proxy's, never a loopback client's."""
    return proxies.carries_forwarding(connection.scope["headers"])


def addressed_here(connection: HTTPConnection, settings: Settings) -> bool:
    """Whether the request's one ``Host`` names this machine: a loopback name, the host the
    runtime is bound to, or one of ``allowed_hosts``."""
    hosts = connection.headers.getlist("host")
    name = host_name(hosts[0]) if len(hosts) == 1 else None
    return name is not None and name in own_hosts(settings)


def own_hosts(settings: Settings) -> set[str]:
    """The names a request to this runtime may be addressed to: loopback names, the host it is
    bound to (unless that is every interface) and ``allowed_hosts``."""
    bound = set() if settings.host in ANY_INTERFACE else {settings.host}
    return {*LOOPBACK_NAMES, *bound, *settings.allowed_hosts}


def host_name(header: str) -> str | None:
    """The host a ``Host`` header names (lower case; an IPv6 address without its brackets), or
    None unless the header is exactly ``host[:port]`` (``HOST_HEADER``)."""
    match = HOST_HEADER.fullmatch(header)
    if match is None:
        return None
    if match["name"] is not None:
        return match["name"].lower()
    try:
        return ipaddress.IPv6Address(match["ipv6"]).compressed
    except ValueError:
        return None


def is_loopback(host: str | None) -> bool:
    """Whether ``host`` (an address or ``localhost``) is this machine's loopback."""
    if host is None:
        return False
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"
