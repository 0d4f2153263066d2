"""Connections a server process drops (``runtime.serving._connections``) over a real uvicorn on
127.0.0.1: silent, half-sent and idle ones after their (short, here) timeouts, those beyond
``max_connections`` at once; never a WebSocket or a streaming response, however long they are
silent."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import AsyncIterator
from contextlib import AbstractContextManager, ExitStack
from typing import Any

from fastapi import FastAPI, WebSocket
from fastapi.responses import StreamingResponse
from websockets.sync.client import connect

from runtime.serving.launch import serve_in_thread
from runtime.settings import Settings

#: The timeouts of these tests' servers: short, so the tests wait little.
TIMEOUT_S = 0.5
#: Longer than any timeout of these servers.
SILENCE_S = 4 * TIMEOUT_S
#: How long a test waits for what should happen (a bound, not a measure).
PATIENCE_S = 30.0
HEALTH = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


def small_app() -> FastAPI:
    """``/health``, ``/slow`` streaming two chunks ``SILENCE_S`` apart, and ``/ws`` echoing."""
    app = FastAPI()

    @app.get("/health")
    async def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/slow")
    async def slow() -> StreamingResponse:
        async def chunks() -> AsyncIterator[bytes]:
            yield b"first "
            await asyncio.sleep(SILENCE_S)
            yield b"second"

        return StreamingResponse(chunks())

    @app.websocket("/ws")
    async def echo(websocket: WebSocket) -> None:
        await websocket.accept()
        while True:
            await websocket.send_text(await websocket.receive_text())

    return app


def serve(**settings: Any) -> AbstractContextManager[str]:
    """``small_app`` served on a free port with ``settings``, short timeouts by default."""
    defaults = {"port": 0, "header_timeout_s": TIMEOUT_S, "idle_timeout_s": 1}
    return serve_in_thread(small_app(), Settings(**{**defaults, **settings}))


def opened(address: str) -> socket.socket:
    name, _, port = address.rpartition(":")
    sock = socket.create_connection((name, int(port)))
    sock.settimeout(PATIENCE_S)
    return sock


def closed_by_server(sock: socket.socket) -> bool:
    """Whether the server closes ``sock`` within ``PATIENCE_S`` (what it answered before is read
    and dropped)."""
    try:
        while sock.recv(4096):
            pass
    except TimeoutError:
        return False
    except ConnectionResetError:
        pass
    return True


def answer(sock: socket.socket) -> bytes:
    """The response to the ``HEALTH`` request sent on ``sock`` (its headers and short body)."""
    received = b""
    while b'"ok"}' not in received:
        data = sock.recv(4096)
        if not data:
            break
        received += data
    return received


def test_a_silent_connection_and_a_half_sent_request_are_closed() -> None:
    with serve() as address, ExitStack() as stack:
        silent = stack.enter_context(opened(address))
        half_sent = stack.enter_context(opened(address))
        half_sent.sendall(b"GET /health HTTP/1.1\r\nHo")
        dribbling = stack.enter_context(opened(address))
        dribbling.sendall(b"GET /hea")
        time.sleep(TIMEOUT_S / 2)
        dribbling.sendall(b"lth HTTP/1.1\r\n")  # each byte in time, never the whole request

        assert closed_by_server(silent)
        assert closed_by_server(half_sent)
        assert closed_by_server(dribbling)


def test_an_idle_keep_alive_connection_and_a_half_sent_next_request_are_closed() -> None:
    with serve() as address, ExitStack() as stack:
        idle, half_next = (stack.enter_context(opened(address)) for _ in range(2))
        for sock in (idle, half_next):
            sock.sendall(HEALTH)
            assert answer(sock).startswith(b"HTTP/1.1 200 OK")
        half_next.sendall(b"GET /hea")

        assert closed_by_server(idle)
        assert closed_by_server(half_next)


def test_an_open_websocket_and_a_streaming_response_outlive_the_timeouts() -> None:
    with serve() as address:
        with connect(f"ws://{address}/ws") as websocket:
            websocket.send("hello")
            first = websocket.recv(timeout=PATIENCE_S)
            time.sleep(SILENCE_S)
            websocket.send("still there")
            second = websocket.recv(timeout=PATIENCE_S)
        with opened(address) as sock:
            sock.sendall(b"GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            streamed = b"".join(iter(lambda: sock.recv(4096), b""))

    assert (first, second) == ("hello", "still there")
    assert streamed.startswith(b"HTTP/1.1 200 OK")
    assert b"first " in streamed
    assert streamed.endswith(b"second\r\n0\r\n\r\n")


def test_connections_beyond_the_cap_are_refused_until_one_closes() -> None:
    with serve(max_connections=2, idle_timeout_s=60) as address, ExitStack() as stack:
        held = [stack.enter_context(opened(address)) for _ in range(2)]
        for sock in held:
            sock.sendall(HEALTH)
            assert answer(sock).startswith(b"HTTP/1.1 200 OK")
        with opened(address) as beyond:
            refused = closed_by_server(beyond)
        held[0].close()

        assert refused
        assert health_after_retries(address).startswith(b"HTTP/1.1 200 OK")


def health_after_retries(address: str) -> bytes:
    """The first answer to ``HEALTH`` on a new connection (the server notices a closed one
    soon, not at once)."""
    deadline = time.monotonic() + PATIENCE_S
    while time.monotonic() < deadline:
        with opened(address) as sock:
            try:
                sock.sendall(HEALTH)
                if received := answer(sock):
                    return received
            except ConnectionError:
                pass
        time.sleep(0.1)
    return b""
