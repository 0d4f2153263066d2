"""``serve --workers N``: N server processes on one port, sharing the session database.

One process runs one event loop on one core. To use the others, the process ``serve`` started
becomes a supervisor: it starts N server processes, each a fresh interpreter (``spawn``) serving
the app of ``create_app(settings)`` under uvicorn. The supervisor alone listens on the port: it
accepts each new connection and hands it to the server process holding the fewest
(``runtime.serving._handoff``), once every server process has started and while one holds fewer
than ``max_connections``; the kernel's own ways of spreading connections over processes leave one
process with far more sessions than another. A connection stays on its server process until it
closes: a WebSocket's frames, a device tool's answer among them, reach the process that asked.

What one process guaranteed still holds across them: sessions live in a database every server
process opens (``sqlite:PATH`` in WAL mode, or PostgreSQL; ``memory`` is refused), and two
connections to one session take turns through a lock the server processes share
(``runtime.storage.locks``).

Stopping: Ctrl-C (the whole process group) or SIGTERM to the supervisor stops every server
process gracefully and waits for them; then the port is free. A server process that dies is
logged and replaced. One that fails to start (PostgreSQL gone, an audit file that cannot be
opened) would fail again: the supervisor stops them all and ``serve`` exits 3, as one process
does. A server process whose supervisor is killed outright stops too, rather than serve
unsupervised.

(Not to be confused with an isolated plugin's worker, ``runtime.isolated``: see docs/glossary.md.)
"""

from __future__ import annotations

import argparse
import ctypes
import logging
import multiprocessing
import os
import signal
import socket
import sys
import threading
import time
from dataclasses import dataclass
from multiprocessing.connection import wait
from multiprocessing.process import BaseProcess
from types import FrameType
from typing import Any, Final

from fastapi import FastAPI
from uvicorn.config import STARTUP_FAILURE

from runtime.extensions import IMPORT_API
from runtime.serving._handoff import (
    Channel,
    HandedServer,
    channel_pair,
    hand_over,
    listener,
    new_load,
    with_room,
)
from runtime.serving.app import create_app
from runtime.serving.launch import freeze_after_startup, uvicorn_config
from runtime.serving.logging import configure_logging
from runtime.settings import Settings
from runtime.testing.offline_models import use_offline_models

logger = logging.getLogger(__name__)

#: ``--workers auto``: one server process per core this process may use.
AUTO: Final = "auto"
#: How often a server process checks that its supervisor is still there.
SUPERVISOR_CHECK_S: Final = 1.0
#: How often the supervisor looks at its server processes when none has ended.
WATCH_S: Final = 0.5


def available_cores() -> int:
    """The cores this process may run on (Python 3.13 counts its CPU affinity, older ones all)."""
    count: int | None = getattr(os, "process_cpu_count", os.cpu_count)()
    return count or 1


def process_count(text: str) -> int:
    """``--workers``: a count of server processes, at least 1, or ``auto``."""
    if text == AUTO:
        return available_cores()
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(
            f"expected a number of server processes or {AUTO!r}, not {text!r}"
        )
    return int(text)


def check_processes(processes: int, settings: Settings) -> None:
    """``ValueError`` when ``processes`` server processes could not serve as one with
    ``settings``."""
    if processes == 1:
        return
    if not settings.backend.shared:
        raise ValueError(
            f"--workers {processes} needs sessions every server process sees: --storage "
            f"sqlite:PATH or a PostgreSQL URL, not {settings.storage!r} (each server process "
            "would keep its own)"
        )
    if IMPORT_API in settings.extensions:
        raise ValueError(
            f"--import-api needs one server process, not {processes}: an import job lives in "
            "the process that started it, and a plugin it writes is served there alone until a "
            "restart"
        )


def process_app(settings: Settings, supervisor: int | None = None) -> FastAPI:
    """One server process's app, set up as ``serve`` sets up its process; with the
    ``supervisor``'s pid, the server process stops when that process is gone."""
    if settings.offline_models:
        use_offline_models()
    if supervisor is not None:
        watch = threading.Thread(target=_stop_without, args=(supervisor,), daemon=True)
        watch.start()
    app = create_app(settings)
    freeze_after_startup(app)
    return app


def _stop_without(supervisor: int) -> None:
    """Stop this server process (gracefully, as SIGTERM does) once ``supervisor`` is not its
    parent."""
    while os.getppid() == supervisor:
        time.sleep(SUPERVISOR_CHECK_S)
    os.kill(os.getpid(), signal.SIGTERM)


def serve_processes(settings: Settings, processes: int) -> int:
    """Serve on ``processes`` server processes until Ctrl-C or SIGTERM; the exit code."""
    try:
        listening = listener(settings.host, settings.port)
    except OSError as exc:  # the port is taken, or the host is not this machine's
        logger.error("cannot listen on %s:%d: %s", settings.host, settings.port, exc.strerror)
        return STARTUP_FAILURE
    with listening:
        port = listening.getsockname()[1]
        supervisor = _Supervisor(settings.model_copy(update={"port": port}), processes, listening)
        return supervisor.run()


def _serve_process(
    settings: Settings,
    supervisor: int,
    channel: socket.socket,
    load: ctypes.Array[ctypes.c_longlong],
) -> None:
    """A server process's life: serve what the supervisor hands over until told to stop."""
    configure_logging(settings.log_level)  # a spawned process starts without the CLI's setup
    try:
        app = process_app(settings, supervisor)
    except Exception:
        logger.exception("server process %d could not start", os.getpid())
        sys.exit(STARTUP_FAILURE)
    HandedServer(uvicorn_config(app, settings), channel, load).run()


@dataclass
class _ServerProcess:
    """A server process and the supervisor's end of its channel."""

    process: BaseProcess
    channel: Channel


class _Supervisor:
    """Starts the server processes, replaces those that die, stops them all on Ctrl-C or
    SIGTERM."""

    def __init__(self, settings: Settings, count: int, listening: socket.socket) -> None:
        self.settings = settings
        self.count = count
        self.stopping = False
        self.processes: list[_ServerProcess] = []
        self.listening = listening
        #: Set once every server process first started: connections wait in the backlog until
        #: then, so the first ones do not all go to the first process up.
        self.accepting = False

    def run(self) -> int:
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, self._stop)
        logger.info(
            "serving on http://%s:%d with %d server processes (supervisor %d; Ctrl-C to stop)",
            self.settings.host,
            self.settings.port,
            self.count,
            os.getpid(),
        )
        self.processes = [self._start() for _ in range(self.count)]
        try:
            code = self._watch()
        finally:
            self.listening.close()
            self._stop_all()
        logger.info("all %d server processes stopped", self.count)
        return code

    def _stop_all(self) -> None:
        for served in self.processes:
            if served.process.is_alive():
                # SIGTERM: a graceful stop (Ctrl-C has sent SIGINT already)
                served.process.terminate()
        for served in self.processes:
            served.process.join()

    def _start(self) -> _ServerProcess:
        load = new_load()
        channel, theirs = channel_pair(load)
        with theirs:  # the server process gets a copy
            process = multiprocessing.get_context("spawn").Process(
                target=_serve_process,
                args=(self.settings, os.getpid(), theirs, load),
                name="a2ui-runtime server process",
            )
            try:
                process.start()
            except BaseException:
                channel.sock.close()
                raise
        return _ServerProcess(process, channel)

    def _watch(self) -> int:
        """Hand connections over and replace server processes that die until asked to stop; the
        exit code."""
        while not self.stopping:
            channels = [served.channel for served in self.processes]
            waiting: list[Any] = [served.process.sentinel for served in self.processes]
            waiting += [channel.sock for channel in channels if not channel.ended]
            if self.accepting and with_room(channels, self.settings.max_connections):
                waiting.append(self.listening)
            ready = wait(waiting, timeout=WATCH_S)
            for channel in channels:
                if channel.sock in ready:
                    channel.read()
            if not self.accepting and all(channel.ready for channel in channels):
                self.accepting = True
                logger.info("all %d server processes have started", self.count)
            if self.listening in ready:
                hand_over(self.listening, channels, self.settings.max_connections)
            for index, served in enumerate(self.processes):
                ended = served.process
                if ended.sentinel not in ready or self.stopping:
                    continue
                ended.join()
                if ended.exitcode == STARTUP_FAILURE:
                    logger.error(
                        "server process %d failed to start: stopping the others", ended.pid
                    )
                    return STARTUP_FAILURE
                served.channel.sock.close()
                self.processes[index] = self._start()
                logger.warning(
                    "server process %d died (exit code %s); server process %d replaces it",
                    ended.pid,
                    ended.exitcode,
                    self.processes[index].process.pid,
                )
        return 0

    def _stop(self, signum: int, frame: FrameType | None) -> None:
        logger.info("%s: stopping the server processes", signal.Signals(signum).name)
        self.stopping = True
