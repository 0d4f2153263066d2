"""``serve --workers N``: N server processes on one port, sharing the session database.

One process runs one event loop on one core. To use the others, the process ``serve`` started
becomes a supervisor: it starts N workers, each a fresh interpreter (``spawn``) serving the app of
``create_app(settings)`` under uvicorn. The supervisor alone listens on the port: it accepts each
new connection and hands it to the worker holding the fewest (``runtime.serving._handoff``), once
every
worker has started and while one holds fewer than ``max_connections``; the kernel's own ways of
spreading connections over processes leave one worker with far more sessions than another. A
connection stays on its worker until it closes: a WebSocket's frames, a device tool's answer
among them, reach the worker that asked.

What one process guaranteed still holds across them: sessions live in a database every worker
opens (``sqlite:PATH`` in WAL mode, or PostgreSQL; ``memory`` is refused), and two connections to
one session take turns through a lock the workers share (``runtime.storage.locks``).

Stopping: Ctrl-C (the whole process group) or SIGTERM to the supervisor stops every worker
gracefully and waits for them; then the port is free. A worker that dies is logged and replaced. A
worker that fails to start (PostgreSQL gone, an audit file that cannot be opened) would fail again:
the supervisor stops them all and ``serve`` exits 3, as one worker does. A worker whose supervisor
is killed outright stops too, rather than serve unsupervised.
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

#: ``--workers auto``: one worker per core this process may use.
AUTO: Final = "auto"
#: How often a worker checks that its supervisor is still there.
SUPERVISOR_CHECK_S: Final = 1.0
#: How often the supervisor looks at its workers when none has ended.
WATCH_S: Final = 0.5


def available_cores() -> int:
    """The cores this process may run on (Python 3.13 counts its CPU affinity, older ones all)."""
    count: int | None = getattr(os, "process_cpu_count", os.cpu_count)()
    return count or 1


def worker_count(text: str) -> int:
    """``--workers``: a count of at least 1, or ``auto``."""
    if text == AUTO:
        return available_cores()
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a number of workers or {AUTO!r}, not {text!r}")
    return int(text)


def check_workers(workers: int, settings: Settings) -> None:
    """``ValueError`` when ``workers`` processes could not serve as one with ``settings``."""
    if workers == 1:
        return
    if not settings.backend.shared:
        raise ValueError(
            f"--workers {workers} needs sessions every worker sees: --storage sqlite:PATH "
            f"or a PostgreSQL URL, not {settings.storage!r} (each worker would keep its own)"
        )
    if IMPORT_API in settings.extensions:
        raise ValueError(
            f"--import-api needs one worker, not {workers}: an import job lives in the worker "
            "that started it, and a plugin it writes is served there alone until a restart"
        )


def worker_app(settings: Settings, supervisor: int | None = None) -> FastAPI:
    """One worker's app, set up as ``serve`` sets up its process; with the ``supervisor``'s pid,
    the worker stops when that process is gone."""
    if settings.offline_models:
        use_offline_models()
    if supervisor is not None:
        watch = threading.Thread(target=_stop_without, args=(supervisor,), daemon=True)
        watch.start()
    app = create_app(settings)
    freeze_after_startup(app)
    return app


def _stop_without(supervisor: int) -> None:
    """Stop this worker (gracefully, as SIGTERM does) once ``supervisor`` is not its parent."""
    while os.getppid() == supervisor:
        time.sleep(SUPERVISOR_CHECK_S)
    os.kill(os.getpid(), signal.SIGTERM)


def serve_workers(settings: Settings, workers: int) -> int:
    """Serve on ``workers`` processes until Ctrl-C or SIGTERM; the exit code."""
    try:
        listening = listener(settings.host, settings.port)
    except OSError as exc:  # the port is taken, or the host is not this machine's
        logger.error("cannot listen on %s:%d: %s", settings.host, settings.port, exc.strerror)
        return STARTUP_FAILURE
    with listening:
        port = listening.getsockname()[1]
        supervisor = _Supervisor(settings.model_copy(update={"port": port}), workers, listening)
        return supervisor.run()


def _work(
    settings: Settings,
    supervisor: int,
    channel: socket.socket,
    load: ctypes.Array[ctypes.c_longlong],
) -> None:
    """A worker's life (in its own process): serve what the supervisor hands over until told to
    stop."""
    configure_logging(settings.log_level)  # a spawned process starts without the CLI's setup
    try:
        app = worker_app(settings, supervisor)
    except Exception:
        logger.exception("worker %d could not start", os.getpid())
        sys.exit(STARTUP_FAILURE)
    HandedServer(uvicorn_config(app, settings), channel, load).run()


@dataclass
class _Worker:
    """A worker process and the supervisor's end of its channel."""

    process: BaseProcess
    channel: Channel


class _Supervisor:
    """Starts the workers, replaces those that die, stops them all on Ctrl-C or SIGTERM."""

    def __init__(self, settings: Settings, count: int, listening: socket.socket) -> None:
        self.settings = settings
        self.count = count
        self.stopping = False
        self.workers: list[_Worker] = []
        self.listening = listening
        #: Set once every worker first started: connections wait in the backlog until then, so
        #: the first ones do not all go to the first worker up.
        self.accepting = False

    def run(self) -> int:
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, self._stop)
        logger.info(
            "serving on http://%s:%d with %d workers (supervisor %d; Ctrl-C to stop)",
            self.settings.host,
            self.settings.port,
            self.count,
            os.getpid(),
        )
        self.workers = [self._start() for _ in range(self.count)]
        try:
            code = self._watch()
        finally:
            self.listening.close()
            self._stop_all()
        logger.info("all %d workers stopped", self.count)
        return code

    def _stop_all(self) -> None:
        for worker in self.workers:
            if worker.process.is_alive():
                # SIGTERM: a graceful stop (Ctrl-C has sent SIGINT already)
                worker.process.terminate()
        for worker in self.workers:
            worker.process.join()

    def _start(self) -> _Worker:
        load = new_load()
        channel, theirs = channel_pair(load)
        with theirs:  # the worker gets a copy
            process = multiprocessing.get_context("spawn").Process(
                target=_work,
                args=(self.settings, os.getpid(), theirs, load),
                name="a2ui-runtime worker",
            )
            try:
                process.start()
            except BaseException:
                channel.sock.close()
                raise
        return _Worker(process, channel)

    def _watch(self) -> int:
        """Hand connections over and replace workers that die until asked to stop; the exit
        code."""
        while not self.stopping:
            channels = [worker.channel for worker in self.workers]
            waiting: list[Any] = [worker.process.sentinel for worker in self.workers]
            waiting += [channel.sock for channel in channels if not channel.ended]
            if self.accepting and with_room(channels, self.settings.max_connections):
                waiting.append(self.listening)
            ready = wait(waiting, timeout=WATCH_S)
            for channel in channels:
                if channel.sock in ready:
                    channel.read()
            if not self.accepting and all(channel.ready for channel in channels):
                self.accepting = True
                logger.info("all %d workers have started", self.count)
            if self.listening in ready:
                hand_over(self.listening, channels, self.settings.max_connections)
            for index, worker in enumerate(self.workers):
                ended = worker.process
                if ended.sentinel not in ready or self.stopping:
                    continue
                ended.join()
                if ended.exitcode == STARTUP_FAILURE:
                    logger.error("worker %d failed to start: stopping the others", ended.pid)
                    return STARTUP_FAILURE
                worker.channel.sock.close()
                self.workers[index] = self._start()
                logger.warning(
                    "worker %d died (exit code %s); worker %d replaces it",
                    ended.pid,
                    ended.exitcode,
                    self.workers[index].process.pid,
                )
        return 0

    def _stop(self, signum: int, frame: FrameType | None) -> None:
        logger.info("%s: stopping the workers", signal.Signals(signum).name)
        self.stopping = True
