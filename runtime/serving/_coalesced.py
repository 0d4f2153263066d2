"""WebSocket frames sent in one pass of the event loop go out in one write.

A turn sends its frames one ASGI message at a time (``thinking``, the screens, the voice text,
``thinking`` false), and uvicorn writes each to the socket at once: one ``send`` each, one TCP
segment each, and the client woken for each. ``WebSocketProtocol`` is uvicorn's WebSocket
protocol on a transport that holds the writes of one pass of the loop and writes them together
at its end (``call_soon``): the frames stay what they were, in their order, and leave before the
loop waits again, so no frame is held back for later. 100 sessions x 5 mortgage turns over two
server processes: 0.1 ms less of the client's CPU a turn and about a tenth more turns a second
(``python3 dev.py bench -- throughput``).
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol


class OneWritePerPass:
    """``transport`` whose writes wait for the end of the event loop's pass, then go as one.
    Closing writes what is held first; aborting drops it, as the transport drops its buffer."""

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._held: list[bytes] = []

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not self._held:
            self._loop.call_soon(self._flush)
        self._held.append(bytes(data))

    def writelines(self, lines: Any) -> None:
        for data in lines:
            self.write(data)

    def get_write_buffer_size(self) -> int:
        return self._transport.get_write_buffer_size() + sum(len(data) for data in self._held)

    def close(self) -> None:
        self._flush()
        self._transport.close()

    def abort(self) -> None:
        self._held.clear()
        self._transport.abort()

    def _flush(self) -> None:
        held, self._held = self._held, []
        if held and not self._transport.is_closing():
            self._transport.write(b"".join(held))

    def __getattr__(self, name: str) -> Any:  # the rest is the transport's own
        return getattr(self._transport, name)


class WebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol (``websockets-sansio``) writing through ``OneWritePerPass``."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        held = OneWritePerPass(cast(asyncio.Transport, transport), asyncio.get_running_loop())
        super().connection_made(cast(asyncio.Transport, held))
