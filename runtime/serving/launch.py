"""Running the app under uvicorn: from the CLI, or in a background thread (demo, tests)."""

from __future__ import annotations

import gc
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

import uvicorn
from fastapi import FastAPI

from runtime.serving._coalesced import WebSocketProtocol
from runtime.serving._connections import HTTPProtocol, ServingConfig
from runtime.serving.proxies import TrustedProxies
from runtime.settings import Settings

STARTUP_TIMEOUT_S = 30.0
#: Allocations between two collections of the youngest objects (Python's default: 700). A turn
#: allocates thousands, nearly all freed by reference counting: at 700, 100 sessions x 5 mortgage
#: turns ran about 190 young collections (and 17 of the middle generation), at this 11 and none.
YOUNG_COLLECTION_AFTER = 7000


def uvicorn_config(app: FastAPI, settings: Settings) -> ServingConfig:
    """uvicorn options shared by every way of serving the app.

    ``log_config=None`` keeps uvicorn's loggers on the single handler of ``configure_logging``;
    WebSocket frames sent together go out in one write (``runtime.serving._coalesced``).
    The frame limit sits above ``max_message_bytes`` so a moderately oversized message gets a
    ``server.error`` (and the session goes on) while a huge one is cut off by the transport.
    Forwarding headers count from ``trusted_proxies`` only (``runtime.serving.proxies``, instead of
    uvicorn's own trust in 127.0.0.1); silent, half-sent and surplus connections are closed
    (``runtime.serving._connections``).
    """
    return ServingConfig(
        TrustedProxies(app, settings.trusted_proxies),
        header_timeout_s=settings.header_timeout_s,
        max_connections=settings.max_connections,
        host=settings.host,
        port=settings.port,
        log_config=None,
        log_level=settings.log_level.lower(),
        proxy_headers=False,
        timeout_keep_alive=settings.idle_timeout_s,
        http=HTTPProtocol,
        ws_max_size=max(4 * settings.max_message_bytes, 1024 * 1024),
        ws=WebSocketProtocol,
    )


def freeze_after_startup(app: FastAPI) -> None:
    """Once ``app`` has started, what it loaded (modules, schemas, plugins) is collected once and
    then kept out of the cyclic garbage collector (``gc.freeze``): it lives as long as the
    process, yet every full collection walked all of it again, a pause of about 0.1 s that each
    turn in flight waited for (100 sessions x 5 mortgage turns: two such pauses, 0.35 ms of CPU
    a turn). Young objects are collected less often (``YOUNG_COLLECTION_AFTER``). For the
    serving processes only: a test building apps would keep its garbage."""
    startup = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with startup(app):  # the runtime's lifespan keeps no state in the ASGI scope
            gc.collect()
            gc.freeze()
            gc.set_threshold(YOUNG_COLLECTION_AFTER, *gc.get_threshold()[1:])
            yield

    app.router.lifespan_context = lifespan


def free_port() -> int:
    """A port of 127.0.0.1 free now, for a server started in another process."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def serve_in_thread(app: FastAPI, settings: Settings) -> Iterator[str]:
    """Serve ``app`` in a daemon thread; yield ``host:port`` once it accepts connections."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((settings.host, settings.port))
    host, port = sock.getsockname()[:2]
    server = uvicorn.Server(uvicorn_config(app, settings))
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="uvicorn", daemon=True
    )
    thread.start()
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            sock.close()
            raise RuntimeError("the runtime server failed to start (see the log above)")
        time.sleep(0.01)
    try:
        yield f"{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=STARTUP_TIMEOUT_S)
        sock.close()
