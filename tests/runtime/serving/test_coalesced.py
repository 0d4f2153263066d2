"""``runtime.serving._coalesced``: the frames of one pass of the event loop leave in one write, on
a real socket pair (the real transport's ``write`` is counted)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Awaitable, Callable

from uvicorn.server import ServerState

from runtime.serving._coalesced import OneWritePerPass, WebSocketProtocol
from runtime.serving.launch import uvicorn_config
from runtime.settings import Settings

Scenario = Callable[[OneWritePerPass, list[bytes]], Awaitable[None]]


def run(scenario: Scenario) -> bytes:
    """``scenario`` on a transport over one end of a socket pair; what the other end received
    (until it closed)."""
    ours, theirs = socket.socketpair()

    async def main() -> None:
        loop = asyncio.get_running_loop()
        transport, _ = await loop.connect_accepted_socket(asyncio.Protocol, ours)
        writes: list[bytes] = []
        write = transport.write

        def counted(data: bytes | bytearray | memoryview) -> None:
            writes.append(bytes(data))
            write(data)

        transport.write = counted  # type: ignore[method-assign]
        await scenario(OneWritePerPass(transport, loop), writes)
        transport.close()
        await asyncio.sleep(0)

    asyncio.run(main())
    received = b""
    with theirs:
        while chunk := theirs.recv(4096):
            received += chunk
    return received


def test_the_writes_of_one_pass_leave_as_one() -> None:
    async def scenario(held: OneWritePerPass, writes: list[bytes]) -> None:
        for frame in (b"thinking", b"screen", b"voice"):
            held.write(frame)
        assert writes == []  # held until the end of this pass
        await asyncio.sleep(0)
        assert writes == [b"thinkingscreenvoice"]
        held.write(b"next turn")
        await asyncio.sleep(0)
        assert writes == [b"thinkingscreenvoice", b"next turn"]

    assert run(scenario) == b"thinkingscreenvoicenext turn"


def test_closing_writes_what_is_held_first() -> None:
    async def scenario(held: OneWritePerPass, writes: list[bytes]) -> None:
        held.write(b"close frame")
        held.close()
        assert writes == [b"close frame"]

    assert run(scenario) == b"close frame"


def test_aborting_drops_what_is_held() -> None:
    async def scenario(held: OneWritePerPass, writes: list[bytes]) -> None:
        held.write(b"never sent")
        held.abort()
        await asyncio.sleep(0)
        assert writes == []

    assert run(scenario) == b""


def test_the_servers_websockets_write_through_it() -> None:
    """The protocol ``uvicorn_config`` names wraps the transport of every connection."""
    config = uvicorn_config(object(), Settings())  # type: ignore[arg-type]
    config.load()
    assert config.ws_protocol_class is WebSocketProtocol

    async def main() -> object:
        loop = asyncio.get_running_loop()
        ours, theirs = socket.socketpair()
        with theirs:
            transport, protocol = await loop.connect_accepted_socket(
                lambda: WebSocketProtocol(config=config, server_state=ServerState(), app_state={}),
                ours,
            )
            transport.close()
            return protocol.transport

    assert isinstance(asyncio.run(main()), OneWritePerPass)
