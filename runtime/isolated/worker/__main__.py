"""``python -m worker AGENT_FILE SOURCE_FOLDER REDACTION_FILE [OFFLINE_MODELS_FILE]``: serve.

Requests from the runtime each run in a thread of their own (one per session's turn), so one
worker serves every session of its plugin; stdout carries the protocol only (what the agent
prints goes to stderr, which the runtime logs). The worker ends when its stdin closes: it never
outlives the runtime.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import importlib.util
import itertools
import os
import platform
import sys
import threading
import traceback
from pathlib import Path
from typing import Any

from . import protocol, saver
from .agent import load_export
from .runs import Cancelled, run


class Channel:
    """The pipe to the runtime: writes under one lock, and requests the worker makes itself."""

    def __init__(self, out: Any) -> None:
        self.out = out
        self.lock = threading.Lock()
        self.ids = itertools.count(1)
        self.waiting: dict[str, list[Any]] = {}

    def send(self, data: bytes) -> None:
        with self.lock:
            self.out.write(data)
            self.out.flush()

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self.send(protocol.notification(method, params))

    def call(self, method: str, params: dict[str, Any]) -> Any:
        id_ = f"w{next(self.ids)}"
        slot: list[Any] = [threading.Event(), None]
        self.waiting[id_] = slot
        self.send(protocol.request(id_, method, params))
        slot[0].wait()
        reply = self.waiting.pop(id_)[1]
        if "error" in reply:
            raise RuntimeError(reply["error"].get("message", "the runtime refused"))
        return reply.get("result")

    def answered(self, message: dict[str, Any]) -> None:
        slot = self.waiting.get(str(message.get("id")))
        if slot is not None:
            slot[1] = message
            slot[0].set()


def versions() -> dict[str, str]:
    found = {"python": platform.python_version()}
    for name in ("langgraph", "langchain-core"):
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = "none"
    return found


def load_file(name: str, path: str) -> Any:
    """A module of the runtime that needs only what this environment has, loaded by path."""
    spec = importlib.util.spec_from_file_location(f"a2ui_runtime_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def main(argv: list[str]) -> int:
    channel = Channel(sys.stdout.buffer)
    sys.stdout = sys.stderr  # the agent's prints must not corrupt the protocol
    agent_file, source = Path(argv[0]), Path(argv[1])
    # The runtime's card-number masking (the standard library only: models are duck-typed).
    saver.mask = load_file("redaction", argv[2]).redact_values
    if len(argv) > 3:  # --offline-models: the runtime's own scripted models (langchain-core)
        load_file("offline_models", argv[3]).use_offline_models()
    loaded: dict[str, Any] = {}
    runs: dict[str, threading.Event] = {}

    def serve_run(id_: Any, params: dict[str, Any]) -> None:
        cancelled = runs[str(id_)]
        try:
            value = asyncio.run(
                run(loaded["export"], params, id_, channel.call, channel.notify, cancelled)
            )
        except Cancelled:
            channel.send(protocol.error(id_, protocol.CANCELLED, "cancelled"))
        except BaseException as exc:  # the agent's failure, reported to the runtime
            traceback.print_exc()
            if cancelled.is_set():
                channel.send(protocol.error(id_, protocol.CANCELLED, "cancelled"))
            else:
                data = {"type": type(exc).__name__}
                channel.send(
                    protocol.error(id_, protocol.AGENT_ERROR, f"{type(exc).__name__}: {exc}", data)
                )
        else:
            channel.send(protocol.result(id_, value))
        finally:
            runs.pop(str(id_), None)

    for line in sys.stdin.buffer:
        message = protocol.parse(line)
        method = message.get("method")
        id_: Any = message.get("id")
        if method is None:
            channel.answered(message)
        elif method == protocol.INFO:
            try:
                loaded["export"] = load_export(agent_file, source)[0]
            except BaseException as exc:
                traceback.print_exc()
                channel.send(
                    protocol.error(id_, protocol.AGENT_ERROR, f"{type(exc).__name__}: {exc}")
                )
            else:
                channel.send(protocol.result(id_, versions()))
        elif method == protocol.RUN:
            runs[str(id_)] = threading.Event()
            threading.Thread(target=serve_run, args=(id_, message["params"]), daemon=True).start()
        elif method == protocol.CANCEL:
            event = runs.get(str(message["params"].get("requestId")))
            if event is not None:
                event.set()
    os._exit(0)  # stdin closed: the runtime is gone, and so are the runs it waited for


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
