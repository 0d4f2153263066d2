"""Limits and rollback on real graphs: a failed turn leaves the session as it was before it."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable

import pytest

from runtime.contract.policy import RunPolicy
from runtime.turns import TurnRequest
from runtime.turns.limits import TurnGuard
from runtime.turns.rollback import TurnWrites
from tests.runtime.turns.conftest import Driver

Drive = Callable[..., Driver]


@pytest.fixture(params=[False, True], ids=["worker thread", "event loop"])
def runaway(
    request: pytest.FixtureRequest, drive: Drive, monkeypatch: pytest.MonkeyPatch
) -> Driver:
    """The runaway plugin, its turns run in a worker thread or on the event loop's thread: the
    limits and the rollback hold either way (``runtime.turns.runs``)."""
    driver = drive("runaway")
    kind = type(driver.engine.plugin)
    policy = kind.run_policy.model_copy(update={"on_event_loop": request.param})
    monkeypatch.setattr(kind, "run_policy", policy)
    return driver


def said(driver_result: object) -> list[str]:
    outbox = driver_result.outbox  # type: ignore[attr-defined]
    return [e["payload"]["text"] for e in outbox if e["type"] == "server.voice.say"]


def codes(result: object) -> list[str]:
    outbox = result.outbox  # type: ignore[attr-defined]
    return [e["payload"]["code"] for e in outbox if e["type"] == "server.error"]


def test_a_runaway_loop_is_stopped_at_the_recursion_limit_and_leaves_no_trace(
    runaway: Driver,
) -> None:
    runaway.start()
    assert said(runaway.say("hello")) == ["hello after 2 steps"]
    started = time.monotonic()
    stopped = runaway.say("loop for ever")
    assert time.monotonic() - started < 5
    assert stopped.error is not None and stopped.error.code == "recursion_limit"
    assert codes(stopped) == ["recursion_limit"]
    assert stopped.state["domain"]["runaway"]["steps"] == 2  # the state before the turn
    transcript = [e["payload"]["text"] for e in stopped.outbox if e["type"] != "server.error"]
    assert transcript == ["failed at 2 steps"]  # the plugin's error screen, over that state
    assert said(runaway.say("again")) == ["again after 3 steps"]


def test_an_exception_halfway_leaves_no_trace(runaway: Driver) -> None:
    runaway.start()
    failed = runaway.say("half way")
    assert failed.error is not None and failed.error.code == "agent_error"
    assert said(runaway.say("next")) == ["next after 2 steps"]


def test_the_deadline_stops_the_turn_and_its_graph(runaway: Driver) -> None:
    runaway.start()
    started = time.monotonic()
    late = runaway.say("crawl on")
    deadline = runaway.engine.plugin.run_policy.deadline_s
    assert deadline is not None and deadline <= time.monotonic() - started < deadline + 2
    assert late.error is not None and late.error.code == "deadline_exceeded"
    steps = sys.modules[type(runaway.engine.plugin).__module__].STEPS_TAKEN
    crawled = steps.count("crawl on")
    time.sleep(0.3)  # a graph left running would take several more steps meanwhile
    assert steps.count("crawl on") <= crawled + 1
    assert said(runaway.say("after")) == ["after after 2 steps"]


def test_a_failure_screen_that_fails_leaves_the_error_alone(runaway: Driver) -> None:
    """The first turn has no state before it, which the plugin's failure screen does not expect
    (it reads its domain): the turn still fails with its own error, and the client is told."""
    first = runaway.engine.start()
    crawl = TurnRequest({**first.update, "transcript": "crawl from the start"})
    late = runaway.turn(crawl)
    assert late.error is not None and late.error.code == "deadline_exceeded"
    assert [e["type"] for e in late.outbox] == ["server.error"]


def test_too_many_tool_calls_stop_the_turn(drive: Drive) -> None:
    chatty = drive("chatty")
    chatty.start()
    looped = chatty.say("loop the tool")
    assert looped.error is not None and looped.error.code == "tool_limit"
    assert looped.state.get("messages") == []  # nothing of the turn was kept
    assert said(chatty.say("rate?")) == ["The fixed rate is 4 percent."]


def test_the_token_budget_is_per_session_and_counts_failed_turns(drive: Drive) -> None:
    chatty = drive("chatty")
    chatty.start()
    for _ in range(3):  # 2 model calls of 15 tokens each: 90 of 100
        assert chatty.say("rate?").error is None
    over = chatty.say("rate again?")
    assert over.error is not None and over.error.code == "budget_exhausted"
    refused = chatty.say("and now?")
    assert refused.error is not None and refused.error.code == "budget_exhausted"
    assert drive("chatty", session_id="other").say("rate?").error is None


def test_a_finished_turn_is_kept_when_its_commit_outlasts_the_deadline(
    runaway: Driver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run commits what it finished; a deadline passing meanwhile undoes nothing."""
    runaway.start()
    commit = TurnWrites.commit

    def slow(writes: TurnWrites) -> None:
        time.sleep(runaway.engine.plugin.run_policy.deadline_s + 0.3)
        commit(writes)

    monkeypatch.setattr(TurnWrites, "commit", slow)
    kept = runaway.say("hello")
    assert kept.error is None
    assert said(kept) == ["hello after 2 steps"]
    monkeypatch.setattr(TurnWrites, "commit", commit)
    assert said(runaway.say("next")) == ["next after 3 steps"]  # the slow turn was kept


def test_a_turn_ends_one_way_finished_or_stopped() -> None:
    finished = TurnGuard(RunPolicy(), tokens_before=0)
    assert finished.finish()
    finished.stop("deadline_exceeded", "too late")
    finished.cancel()
    assert finished.stopped is None and not finished.cancelled
    stopped = TurnGuard(RunPolicy(), tokens_before=0)
    first = stopped.stop("deadline_exceeded", "in time")
    assert not stopped.finish()
    assert stopped.stopped is first and stopped.cancelled
    abandoned = TurnGuard(RunPolicy(), tokens_before=0)
    abandoned.cancel()
    assert not abandoned.finish()


def test_a_plugin_runs_on_the_event_loop_thread_only_when_its_policy_says_so(
    runaway: Driver,
) -> None:
    """Without events to stream (a WebSocket turn), its nodes run on the loop's own thread."""
    steps = sys.modules[type(runaway.engine.plugin).__module__].STEP_THREADS
    engine = runaway.engine
    runaway.call(lambda: engine.run(engine.start()))
    on_loop = engine.plugin.run_policy.on_event_loop
    assert (steps[-1] == threading.get_ident()) is on_loop  # the driver's loop runs here
