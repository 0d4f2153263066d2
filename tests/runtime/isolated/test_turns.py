"""An isolated plugin's turns through the turn engine (no transport): its model's tokens stream
as they come, the tool-call limit and the token budget hold, and its store is the plugin's."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler

from runtime.discovery import discover
from runtime.isolated.envs import ENVS_DIR_ENV
from runtime.isolated.process import WORKERS
from runtime.settings import Settings
from runtime.turns import TextDelta, TurnEngine, TurnRequest, TurnResult
from runtime.turns.audit import AuditLog
from runtime.turns.context import RuntimeContext
from tests.runtime.conftest import FIXTURE_PLUGINS
from tests.runtime.isolated.conftest import CACHE
from tests.runtime.turns.conftest import Driver

Drive = Callable[..., Driver]


class Recorder(BaseCallbackHandler):
    """The tool runs the runtime's callbacks (tracers) saw: (event, tool or output)."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    def on_tool_start(self, serialized: dict[str, Any], input_str: str, **kwargs: Any) -> None:
        self.seen.append(("start", serialized["name"]))

    def on_tool_end(self, output: Any, **kwargs: Any) -> None:
        self.seen.append(("end", str(output)))


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def drive(
    envs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, recorder: Recorder
) -> Iterator[Drive]:
    """``drive(session_id, user_id=None)``: a session of ``legacy`` (token budget 1000, 3 tool
    calls a turn)."""
    monkeypatch.setenv(ENVS_DIR_ENV, str(CACHE))
    monkeypatch.setenv("LEGACY_TOKEN_BUDGET", "1000")
    folder = tmp_path / "plugins"
    shutil.copytree(FIXTURE_PLUGINS / "legacy", folder / "legacy")
    registry = discover(folder)
    context = RuntimeContext(Settings(plugins_dir=folder), registry, AuditLog(), [recorder])
    drivers: list[Driver] = []

    def make(session_id: str, user_id: str | None = None) -> Driver:
        plugin, graph = registry.plugins["legacy"], registry.graph("legacy")
        drivers.append(Driver(TurnEngine(context, plugin, session_id, graph, user_id=user_id)))
        drivers[-1].start()
        return drivers[-1]

    yield make
    WORKERS.close()
    for driver in drivers:
        driver.loop.close()


def answer(result: TurnResult) -> str:
    return str(result.state["domain"]["legacy"]["answer"])


def test_the_agents_model_streams_token_by_token(drive: Drive) -> None:
    events = drive("s1").events(TurnRequest.say("stream"))
    deltas = [e.delta for e in events if isinstance(e, TextDelta)]
    assert "".join(deltas).startswith("I can help with payments.")
    assert deltas[:3] == ["I", " ", "c"]  # one event per chunk the model yielded


def test_the_tool_call_limit_stops_a_turn_and_leaves_no_trace(
    drive: Drive, recorder: Recorder
) -> None:
    session = drive("s1")
    assert answer(session.say("tools 2")) == "p0 is known. p1 is known. [langgraph 0.2.76]"
    assert recorder.seen == [
        ("start", "lookup"), ("end", "p0 is known."), ("start", "lookup"), ("end", "p1 is known.")
    ]  # fmt: skip
    stopped = session.say("tools 5")
    assert stopped.error is not None and stopped.error.code == "tool_limit"
    assert answer(stopped) == answer(session.say("tools 2"))  # as before the failed turn


def test_the_token_budget_counts_what_the_agents_model_reports(drive: Drive) -> None:
    result = drive("s1").say("spend")
    assert result.error is not None and result.error.code == "budget_exhausted"


def test_the_store_is_the_plugins_across_its_sessions(drive: Drive) -> None:
    assert answer(drive("s1").say("remember the blue door")).startswith("Noted.")
    assert answer(drive("s2").say("recall")).startswith("the blue door")


def test_the_run_gets_the_sessions_user_and_the_plugins_settings(drive: Drive) -> None:
    assert answer(drive("s1", user_id="ada").say("whoami")).startswith("user ada, tone formal")


def test_a_card_number_the_agent_wrote_is_masked_in_its_own_checkpoint(drive: Drive) -> None:
    session = drive("s1")
    assert "****1111" in answer(session.say("card"))
    assert answer(session.say("leaked?")).startswith("masked")


def test_the_recursion_limit_holds_in_the_agents_own_langgraph(drive: Drive) -> None:
    session = drive("s1")
    stopped = session.say("loop")
    assert stopped.error is not None and stopped.error.code == "recursion_limit"
    assert "[langgraph 0.2." in answer(session.say("hello"))


def test_the_worker_gets_the_variables_agent_json_names_and_no_others(
    drive: Drive, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LEGACY_GREETING", "hello")
    monkeypatch.setenv("RUNTIME_SECRET", "s3cret")
    session = drive("s1")
    assert answer(session.say("env LEGACY_GREETING")).startswith("LEGACY_GREETING=hello")
    assert answer(session.say("env RUNTIME_SECRET")).startswith("RUNTIME_SECRET=None")
