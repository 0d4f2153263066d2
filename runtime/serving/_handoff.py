"""Connections handed over: ``serve --workers N`` accepts in the supervisor and gives each new
connection to the server process that holds the fewest.

A WebSocket session stays on the server process it lands on for its whole life, so how
connections are spread decides how the work is. The kernel's own ways spread them unevenly:
``SO_REUSEPORT`` hashes each connection's addresses (100 connections over two server processes
landed 43/57 in two tries of five, and the process with 57 is still busy when the other has
finished), and one socket shared by every server process goes to whichever wakes first. So the
supervisor alone listens and passes each accepted socket (``SCM_RIGHTS`` over a Unix socket pair,
one per server process: the ``Channel``) to the server process with the fewest connections,
counting those it passed that the process has not taken yet. Only the accept goes through the
supervisor; the connection's bytes go straight to the server process. A server process holding
``Settings.max_connections`` gets no more: once all do, the supervisor stops accepting, and new
connections wait in the listen backlog until some close.

A server process's side is ``HandedServer``: uvicorn serving the sockets it is handed instead of
a socket of its own, which says it is ready once the app has started, and publishes what it took
and how many connections it holds (``new_load``: shared memory the supervisor reads without
asking).
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import os
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing.sharedctypes import RawArray
from typing import Final

import uvicorn

logger = logging.getLogger(__name__)

#: What a server process writes on its channel once its app has started.
READY: Final = b"R"
#: What the supervisor writes with each socket it passes.
HANDED: Final = b"C"
#: Sockets taken from the channel at most at once.
MAX_FDS: Final = 64
#: How often a server process publishes how many connections it holds (closed ones count until
#: then).
REPORT_S: Final = 0.05
#: The supervisor's listen backlog, as uvicorn's default.
BACKLOG: Final = 2048

#: The places of a server process's published figures: the sockets it has taken from its channel,
#: and the connections it holds.
TAKEN, HOLDS = 0, 1


def new_load() -> ctypes.Array[ctypes.c_longlong]:
    """Shared memory for one server process's figures (written by the server process alone)."""
    return RawArray(ctypes.c_longlong, 2)


@dataclass
class Channel:
    """The supervisor's end of one server process's socket pair, and what it knows of that
    process."""

    sock: socket.socket
    load: ctypes.Array[ctypes.c_longlong]
    handed: int = 0
    ready: bool = False
    #: Its server process's end is closed (the server process has ended).
    ended: bool = False

    def connections(self) -> int:
        """Connections the server process holds, and those passed that it has not taken yet."""
        return self.load[HOLDS] + self.handed - self.load[TAKEN]

    def read(self) -> None:
        """Take what the server process wrote: ``READY``, or the end of its channel."""
        try:
            data = self.sock.recv(16)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if READY in data:
            self.ready = True
        if not data:
            self.ready, self.ended = False, True

    def hand(self, connection: socket.socket) -> bool:
        """Pass ``connection`` to the server process; ``False`` if it cannot take it now."""
        try:
            socket.send_fds(self.sock, [HANDED], [connection.fileno()])
        except OSError:  # its end is closed (it died) or its buffer is full (it is stuck)
            return False
        self.handed += 1
        return True


def with_room(channels: Sequence[Channel], most: int) -> list[Channel]:
    """The ready server processes of ``channels`` holding fewer than ``most`` connections, fewest
    first."""
    ready = [channel for channel in channels if channel.ready and channel.connections() < most]
    ready.sort(key=Channel.connections)
    return ready


def hand_over(listener: socket.socket, channels: Sequence[Channel], most: int) -> None:
    """Accept the connections waiting on ``listener`` while a ready server process (of ``channels``)
    holds fewer than ``most``, each handed to the one holding the fewest; the others wait in the
    backlog until connections close."""
    while ready := with_room(channels, most):
        try:
            connection, _ = listener.accept()
        except (BlockingIOError, InterruptedError):
            return
        except OSError as exc:  # out of descriptors or buffers: the rest wait in the backlog
            logger.warning("cannot accept a connection: %s", exc.strerror)
            return
        with connection:
            if not any(channel.hand(connection) for channel in ready):
                logger.warning("no server process could take a connection: it is closed")


def listener(host: str, port: int) -> socket.socket:
    """The supervisor's listening socket on ``host:port`` (``0``: a free port), non-blocking."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(BACKLOG)
    except OSError:
        sock.close()
        raise
    sock.setblocking(False)
    return sock


def channel_pair(load: ctypes.Array[ctypes.c_longlong]) -> tuple[Channel, socket.socket]:
    """A new server process's channel: the supervisor's end, and the socket the process keeps."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    ours.setblocking(False)
    return Channel(ours, load), theirs


class HandedServer(uvicorn.Server):
    """uvicorn serving the connections its supervisor hands over on ``channel``."""

    def __init__(
        self,
        config: uvicorn.Config,
        channel: socket.socket,
        load: ctypes.Array[ctypes.c_longlong],
    ) -> None:
        super().__init__(config)
        self.channel = channel
        self.load = load
        self._reporting: asyncio.Task[None] | None = None
        self._taking: set[asyncio.Task[None]] = set()  # kept: tasks need an owner

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=[])  # no socket of its own (its lifespan has started)
        if self.should_exit:  # the app failed to start: never say ready
            return
        loop = asyncio.get_running_loop()
        self.channel.setblocking(False)
        loop.add_reader(self.channel.fileno(), self._take)
        self._reporting = loop.create_task(self._report())
        self.channel.send(READY)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        asyncio.get_running_loop().remove_reader(self.channel.fileno())
        if self._reporting is not None:
            self._reporting.cancel()
        # Connections being opened join uvicorn's before it tells each to close.
        await asyncio.gather(*self._taking, return_exceptions=True)
        await super().shutdown(sockets)

    def _take(self) -> None:
        try:
            data, fds, _, _ = socket.recv_fds(self.channel, MAX_FDS, MAX_FDS)
        except BlockingIOError:
            return
        except OSError as exc:
            logger.warning("cannot take a connection from the supervisor: %s", exc.strerror)
            return
        if not data:  # the supervisor is gone: its watch stops this server process
            asyncio.get_running_loop().remove_reader(self.channel.fileno())
            return
        for fd in fds:
            os.set_inheritable(fd, False)  # as uvicorn's own accept: no child process gets it
            task = asyncio.ensure_future(self._open(socket.socket(fileno=fd)))
            self._taking.add(task)
            task.add_done_callback(self._taking.discard)
        if len(fds) < data.count(HANDED):  # dropped by the kernel (this process is out of fds)
            logger.warning("%d connections handed over were lost", data.count(HANDED) - len(fds))

    async def _open(self, connection: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        try:
            await loop.connect_accepted_socket(self._protocol, connection)
        except OSError:  # the client left while it was handed over
            connection.close()
        except BaseException:
            connection.close()
            raise
        finally:  # held before taken: the supervisor may count it twice, never not at all
            self.load[HOLDS] = len(self.server_state.connections)
            self.load[TAKEN] += 1

    def _protocol(self) -> asyncio.Protocol:
        """What uvicorn's ``startup`` makes for each connection of its own sockets."""
        protocol: asyncio.Protocol = self.config.http_protocol_class(  # type: ignore[call-arg]
            config=self.config, server_state=self.server_state, app_state=self.lifespan.state
        )
        return protocol

    async def _report(self) -> None:
        while True:
            self.load[HOLDS] = len(self.server_state.connections)
            await asyncio.sleep(REPORT_S)
