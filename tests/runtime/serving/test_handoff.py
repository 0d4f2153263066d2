"""The supervisor's side of ``serve --workers N`` (``runtime.serving._handoff``) on real sockets:
which server process each accepted connection goes to. Whole servers are in
``test_server_processes.py``."""

from __future__ import annotations

import os
import select
import socket
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass

import pytest

from runtime.serving._handoff import (
    HOLDS,
    TAKEN,
    Channel,
    channel_pair,
    hand_over,
    listener,
    new_load,
)

#: The connections a server process holds at most, in these tests.
MOST = 10


@dataclass(frozen=True)
class Served:
    """The supervisor's listener and channels."""

    listener: socket.socket
    channels: list[Channel]


@contextmanager
def dispatcher(processes: int) -> Iterator[tuple[Served, list[socket.socket]]]:
    """A listener on a free port with ``processes`` started server processes, and their ends."""
    with ExitStack() as stack:
        listening = stack.enter_context(listener("127.0.0.1", 0))
        pairs = [channel_pair(new_load()) for _ in range(processes)]
        for channel, theirs in pairs:
            channel.ready = True
            stack.enter_context(channel.sock)
            stack.enter_context(theirs)
        yield Served(listening, [c for c, _ in pairs]), [theirs for _, theirs in pairs]


def connect(served: Served, count: int = 1) -> list[socket.socket]:
    """``count`` clients, one after another, each accepted and handed over."""
    clients = []
    for _ in range(count):
        clients.append(socket.create_connection(served.listener.getsockname()))
        select.select([served.listener], [], [], 5)
        hand_over(served.listener, served.channels, MOST)
    return clients


def taken(theirs: socket.socket) -> int:
    """How many sockets wait on a server process's end (closed: the test owns no socket it
    takes)."""
    theirs.setblocking(False)
    count = 0
    while True:
        try:
            _, fds, _, _ = socket.recv_fds(theirs, 64, 64)
        except BlockingIOError:
            return count
        for fd in fds:
            os.close(fd)
        count += len(fds)


def test_connections_go_to_the_server_process_holding_the_fewest() -> None:
    with dispatcher(3) as (served, theirs):
        first, second, third = served.channels
        first.load[HOLDS], second.load[HOLDS], third.load[HOLDS] = 4, 1, 2
        clients = connect(served, 4)
        assert [taken(end) for end in theirs] == [0, 3, 1]  # 1, 2, 2+1, then the third's turn
        for client in clients:
            client.close()


def test_handed_but_not_yet_taken_counts() -> None:
    with dispatcher(2) as (served, theirs):
        busy, idle = served.channels
        idle.load[HOLDS] = 1
        busy.load[HOLDS], busy.load[TAKEN] = 0, 0
        busy.handed = 2  # two on their way, not taken yet
        clients = connect(served)
        assert [taken(end) for end in theirs] == [0, 1]
        assert Channel.connections(busy) == 2
        for client in clients:
            client.close()


def test_a_server_process_that_cannot_take_it_is_passed_over() -> None:
    with dispatcher(2) as (served, theirs):
        theirs[0].close()  # the first server process has died
        clients = connect(served)
        assert taken(theirs[1]) == 1
        for client in clients:
            client.close()


def test_a_server_process_not_started_gets_nothing_and_a_closed_channel_is_seen() -> None:
    with dispatcher(1) as (served, theirs):
        (channel,) = served.channels
        channel.ready = False
        clients = connect(served)
        assert waiting(served)  # left in the backlog, not accepted
        theirs[0].close()
        channel.read()
        assert channel.ended and not channel.ready
        clients[0].close()


def test_a_connection_no_server_process_can_take_is_closed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with dispatcher(1) as (served, theirs):
        theirs[0].close()  # the only server process has died, its channel not read yet
        clients = connect(served)
        assert "no server process could take a connection" in caplog.text
        assert clients[0].recv(1) == b""  # closed, not left waiting
        clients[0].close()


def test_server_processes_holding_their_most_get_none_until_connections_close() -> None:
    with dispatcher(2) as (served, theirs):
        first, second = served.channels
        first.load[HOLDS], second.load[HOLDS] = MOST, MOST
        clients = connect(served, 2)
        assert [taken(end) for end in theirs] == [0, 0]
        assert waiting(served)
        second.load[HOLDS] = MOST - 1  # one of its connections closed
        hand_over(served.listener, served.channels, MOST)
        assert [taken(end) for end in theirs] == [0, 1]  # then it holds its most again
        assert waiting(served)
        for client in clients:
            client.close()


def waiting(served: Served) -> bool:
    """Whether a connection waits on the listener, not accepted."""
    readable, _, _ = select.select([served.listener], [], [], 0)
    return bool(readable)
