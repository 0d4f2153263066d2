"""``serve --workers N``: N server processes on one port, sharing the session database.

One process runs one event loop on one core. To use the others, the process ``serve`` started
becomes a supervisor: it starts N workers, each a fresh interpreter (``spawn``) serving the app of
``create_app(settings)`` under uvicorn on a socket of its own bound to the same port with
``SO_REUSEPORT``. The kernel spreads new connections over the workers by a hash of each
connection's addresses, evenly however they arrive. (One socket shared by all would not: the
worker that wakes first accepts every connection waiting, so a burst, such as every client
reconnecting after a restart, lands on one worker, and WebSockets stay where they land.) A
connection stays on its worker until it closes: a WebSocket's frames, a device tool's answer
among them, reach the worker that asked.

What one process guaranteed still holds across them: sessions live in a database every worker
opens (``sqlite:PATH`` in WAL mode, or PostgreSQL; ``memory`` is refused), and two connections to
one session take turns through a lock the workers share (``runtime.locks``).

Stopping: Ctrl-C (the whole process group) or SIGTERM to the supervisor stops every worker
gracefully and waits for them; then the port is free. A worker that dies is logged and replaced. A
worker that fails to start (PostgreSQL gone, an audit file that cannot be opened) would fail again:
the supervisor stops them all and ``serve`` exits 3, as one worker does. A worker whose supervisor
is killed outright stops too, rather than serve unsupervised.
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.connection import wait
from multiprocessing.process import BaseProcess
from types import FrameType
from typing import Final

import uvicorn
from fastapi import FastAPI
from uvicorn.config import STARTUP_FAILURE

from runtime.extensions import IMPORT_API
from runtime.logging import configure_logging
from runtime.offline_models import use_offline_models
from runtime.persistence import is_shared
from runtime.server import create_app
from runtime.serving import freeze_after_startup, uvicorn_config
from runtime.settings import Settings

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
    if not is_shared(settings.checkpointer):
        raise ValueError(
            f"--workers {workers} needs sessions every worker sees: --checkpointer sqlite:PATH "
            f"or a PostgreSQL URL, not {settings.checkpointer!r} (each worker would keep its own)"
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
        with _port_of(settings) as port:
            supervisor = _Supervisor(settings.model_copy(update={"port": port}), workers)
            return supervisor.run()
    except OSError as exc:  # the port is taken, or the host is not this machine's
        logger.error("cannot listen on %s:%d: %s", settings.host, settings.port, exc.strerror)
        return STARTUP_FAILURE


@contextmanager
def _port_of(settings: Settings) -> Iterator[int]:
    """The port the workers share (``0``: a free one), held by the supervisor until they stop.

    It must be free: bound first alone (without ``SO_REUSEPORT``, which would let this runtime
    share a port another one serves). Then held, bound but never listening, so the supervisor
    takes no connections."""
    with _socket(settings.host, settings.port, shared=False) as alone:
        port: int = alone.getsockname()[1]
    with _socket(settings.host, port, shared=True):
        yield port


def _socket(host: str, port: int, *, shared: bool) -> socket.socket:
    """A TCP socket bound to ``host:port``; ``shared``: other workers' sockets may bind it too."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if shared:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def _work(settings: Settings, supervisor: int) -> None:
    """A worker's life (in its own process): serve until told to stop."""
    configure_logging(settings.log_level)  # a spawned process starts without the CLI's setup
    try:
        app = worker_app(settings, supervisor)
        listener = _socket(settings.host, settings.port, shared=True)
    except Exception:
        logger.exception("worker %d could not start", os.getpid())
        sys.exit(STARTUP_FAILURE)
    uvicorn.Server(uvicorn_config(app, settings)).run(sockets=[listener])


class _Supervisor:
    """Starts the workers, replaces those that die, stops them all on Ctrl-C or SIGTERM."""

    def __init__(self, settings: Settings, count: int) -> None:
        self.settings = settings
        self.count = count
        self.stopping = False
        self.workers: list[BaseProcess] = []

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
        code = self._watch()
        for worker in self.workers:
            if worker.is_alive():
                worker.terminate()  # SIGTERM: a graceful stop (Ctrl-C has sent SIGINT already)
        for worker in self.workers:
            worker.join()
        logger.info("all %d workers stopped", self.count)
        return code

    def _start(self) -> BaseProcess:
        worker = multiprocessing.get_context("spawn").Process(
            target=_work, args=(self.settings, os.getpid()), name="a2ui-runtime worker"
        )
        worker.start()
        return worker

    def _watch(self) -> int:
        """Replace workers that die until asked to stop; the exit code."""
        while not self.stopping:
            ended = wait([worker.sentinel for worker in self.workers], timeout=WATCH_S)
            for index, worker in enumerate(self.workers):
                if worker.sentinel not in ended or self.stopping:
                    continue
                worker.join()
                if worker.exitcode == STARTUP_FAILURE:
                    logger.error("worker %d failed to start: stopping the others", worker.pid)
                    return STARTUP_FAILURE
                self.workers[index] = self._start()
                logger.warning(
                    "worker %d died (exit code %s); worker %d replaces it",
                    worker.pid,
                    worker.exitcode,
                    self.workers[index].pid,
                )
        return 0

    def _stop(self, signum: int, frame: FrameType | None) -> None:
        logger.info("%s: stopping the workers", signal.Signals(signum).name)
        self.stopping = True
