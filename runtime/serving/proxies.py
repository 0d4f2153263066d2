"""Forwarding headers count only from the reverse proxies the runtime is told to trust.

A proxy in front of the runtime says whom it forwards for and how it was reached
(``X-Forwarded-For``, ``X-Forwarded-Proto``, ``Forwarded``...), and chooses the ``Host``. Any
client can send the same headers, a page's own ``fetch`` included (a page whose name was rebound
to 127.0.0.1 is same-origin, so no preflight asks first). So they count only on connections from
``Settings.trusted_proxies`` (``--trusted-proxy``; none by default): ``TrustedProxies`` takes the
client's address and scheme from them there (uvicorn's ``ProxyHeadersMiddleware``) and marks the
request as forwarded, and leaves every other request as if it carried none. uvicorn's own
handling, which trusts 127.0.0.1 (``FORWARDED_ALLOW_IPS``), is off.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from typing import Final

from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

#: Headers a reverse proxy adds.
PROXY_HEADERS: Final = frozenset(
    {
        b"forwarded",
        b"x-forwarded-for",
        b"x-forwarded-host",
        b"x-forwarded-proto",
        b"x-real-ip",
        b"via",
    }
)
#: The scope key ``TrustedProxies`` sets on a request a trusted proxy forwarded.
FORWARDED: Final = "a2ui.forwarded"


class TrustedProxies:
    """ASGI middleware: a request carrying forwarding headers from one of ``trusted`` (addresses
    or networks) gets its client and scheme from them and is marked ``FORWARDED``; others pass
    untouched."""

    def __init__(self, app: ASGIApp, trusted: Sequence[str]) -> None:
        self.app = app
        self.networks = [ipaddress.ip_network(proxy) for proxy in trusted]
        # uvicorn's middleware speaks uvicorn's ASGI types, Starlette's app its own: the same
        self.forwarding = ProxyHeadersMiddleware(app, list(trusted))  # type: ignore[arg-type]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and self._from_proxy(scope):
            scope[FORWARDED] = True
            await self.forwarding(scope, receive, send)  # type: ignore[arg-type]
        else:
            await self.app(scope, receive, send)

    def _from_proxy(self, scope: Scope) -> bool:
        client = scope.get("client")
        if client is None or not carries_forwarding(scope["headers"]):
            return False
        try:
            address = ipaddress.ip_address(client[0])
        except ValueError:  # a Unix socket's peer
            return False
        return any(address in network for network in self.networks)


def carries_forwarding(headers: Sequence[tuple[bytes, bytes]]) -> bool:
    """Whether raw ASGI ``headers`` hold any of ``PROXY_HEADERS``, whoever sent them."""
    return any(name in PROXY_HEADERS for name, _ in headers)


def forwarded(connection: HTTPConnection) -> bool:
    """Whether a trusted proxy forwarded this request (it then chose the ``Host`` and scheme)."""
    return bool(connection.scope.get(FORWARDED, False))
