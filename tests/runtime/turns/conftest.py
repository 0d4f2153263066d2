"""Engines over the fixture plugins, with an in-memory checkpointer, driven without a transport."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from runtime.discovery import discover
from runtime.settings import Settings
from runtime.turns import EngineEvent, TurnEngine, TurnFinished, TurnRequest, TurnResult
from runtime.turns.audit import AuditLog
from runtime.turns.context import RuntimeContext

FIXTURES = Path(__file__).parent.parent / "plugin_fixtures"
T = TypeVar("T")


class Driver:
    """One session of one fixture plugin, turn by turn, on a private event loop."""

    def __init__(self, engine: TurnEngine) -> None:
        self.engine = engine
        self.loop = asyncio.new_event_loop()

    def call(self, make: Callable[[], Awaitable[T]]) -> T:
        async def locked() -> T:
            async with self.engine.lock:
                return await make()

        return self.loop.run_until_complete(locked())

    def events(self, request: TurnRequest) -> list[EngineEvent]:
        async def collect() -> list[EngineEvent]:
            return [item async for item in self.engine.stream(request, events=True)]

        return self.call(collect)

    def turn(self, request: TurnRequest) -> TurnResult:
        last = self.events(request)[-1]
        assert isinstance(last, TurnFinished)
        return last.result

    def start(self) -> TurnResult:
        return self.turn(self.engine.start())

    def say(self, text: str, **options: Any) -> TurnResult:
        return self.turn(TurnRequest.say(text, **options))


@pytest.fixture
def context(tmp_path: Path) -> RuntimeContext:
    folder = tmp_path / "plugins"
    for plugin in ("echo", "boom", "chatty", "asker", "runaway", "payee", "gated"):
        shutil.copytree(FIXTURES / plugin, folder / plugin)
    registry = discover(folder)
    return RuntimeContext(Settings(plugins_dir=folder), registry, AuditLog(), [])


@pytest.fixture
def drive(context: RuntimeContext) -> Callable[..., Driver]:
    """``drive(plugin_id, session_id="s1")``: a ``Driver`` over a new engine."""
    drivers: list[Driver] = []

    def make(plugin_id: str, session_id: str = "s1") -> Driver:
        plugin = context.registry.plugins[plugin_id]
        engine = TurnEngine(context, plugin, session_id, context.registry.graph(plugin_id))
        drivers.append(Driver(engine))
        return drivers[-1]

    yield make  # type: ignore[misc]
    for driver in drivers:
        driver.loop.close()
