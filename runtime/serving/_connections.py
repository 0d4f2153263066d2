"""Connections a server process drops: silent or half-sent ones, and those beyond its cap
(slowloris).

uvicorn closes a connection left idle after a response (``timeout_keep_alive``:
``Settings.idle_timeout_s``) but waits for ever for a request's line and headers, so a client that
opens sockets and sends nothing, or a byte now and then, keeps them all until the process runs out
of descriptors and every new client is refused. ``HTTPProtocol`` is uvicorn's h11 protocol that

* closes a connection that has not sent a whole request line and headers within
  ``header_timeout_s`` of its opening, or of the first byte of a later request. Once they are in,
  no timer runs: a streaming response, or a WebSocket (another protocol after the upgrade), stays
  open however long it is silent;
* closes at once a connection beyond its server process's ``max_connections``. The supervisor of
  ``serve --workers N`` hands none beyond it: they wait in the listen backlog
  (``runtime.serving._handoff``).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, cast

import uvicorn
from starlette.types import ASGIApp
from uvicorn.protocols.http.h11_impl import H11Protocol, RequestResponseCycle
from uvicorn.server import ServerState

logger = logging.getLogger(__name__)


class ServingConfig(uvicorn.Config):
    """uvicorn's options and the runtime's connection limits, which ``HTTPProtocol`` reads."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        header_timeout_s: float,
        max_connections: int,
        **options: Any,
    ) -> None:
        super().__init__(app, **options)
        self.header_timeout_s = header_timeout_s
        self.max_connections = max_connections


class HTTPProtocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for request headers and a cap on connections."""

    def __init__(
        self,
        config: uvicorn.Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.limits = cast(ServingConfig, config)
        self.header_timer: asyncio.TimerHandle | None = None
        #: The request being served when the timer started: another one means headers came in.
        self.awaited: RequestResponseCycle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.limits.max_connections:
            logger.warning(
                "connection refused: this server process holds its most, %d (max_connections)",
                self.limits.max_connections,
            )
            transport.close()
            return
        self._await_headers()

    def data_received(self, data: bytes) -> None:
        if self.header_timer is None and (self.cycle is None or self.cycle.response_complete):
            self._await_headers()  # the first bytes of a new request
        super().data_received(data)
        upgraded = self.transport.get_protocol() is not self
        if self.header_timer is not None and (self.cycle is not self.awaited or upgraded):
            self._stop_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_timer()
        super().connection_lost(exc)

    def _await_headers(self) -> None:
        self.awaited = self.cycle
        self.header_timer = self.loop.call_later(self.limits.header_timeout_s, self._headers_late)

    def _stop_timer(self) -> None:
        if self.header_timer is not None:
            self.header_timer.cancel()
            self.header_timer = None

    def _headers_late(self) -> None:
        self.header_timer = None
        if not self.transport.is_closing():
            logger.debug(
                "closed a connection that sent no whole request in time (header_timeout_s)"
            )
            self.transport.close()
