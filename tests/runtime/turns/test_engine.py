"""The turn engine on real LangGraph graphs: events as they happen, interrupts, extras."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from runtime.turns import (
    NodeFinished,
    RunExtras,
    TextDelta,
    ToolCallArgs,
    ToolCallEnded,
    ToolCallResult,
    ToolCallStarted,
    TurnFinished,
    TurnRequest,
    UnknownInterrupt,
)
from tests.runtime.turns.conftest import Driver

Drive = Callable[..., Driver]


def said(outbox: list[dict[str, object]] | list[object]) -> list[str]:
    return [e["payload"]["text"] for e in outbox if e["type"] == "server.voice.say"]  # type: ignore[index]


def test_a_turn_reports_tokens_and_tool_calls_as_they_happen(drive: Drive) -> None:
    chatty = drive("chatty")
    chatty.start()
    events = chatty.events(TurnRequest.say("what is the fixed rate?"))
    calls = [e for e in events if not isinstance(e, (NodeFinished, TextDelta, TurnFinished))]
    assert calls == [
        ToolCallStarted("call-1", "lookup_rate", calls[0].message_id),  # type: ignore[union-attr]
        ToolCallArgs("call-1", '{"product": '),
        ToolCallArgs("call-1", '"fixed"}'),
        ToolCallEnded("call-1"),
        ToolCallResult("call-1", '{"product": "fixed", "rate": 4}', calls[4].message_id),  # type: ignore[union-attr]
    ]
    text = "".join(e.delta for e in events if isinstance(e, TextDelta))
    assert text.startswith("The fixed rate is 4 percent.")
    nodes = [e.node for e in events if isinstance(e, NodeFinished)]
    assert nodes == ["listen", "model", "tools", "model", "answer"]
    # the answer's first token comes before the model node has finished
    first_token = next(i for i, e in enumerate(events) if isinstance(e, TextDelta))
    assert first_token < [i for i, e in enumerate(events) if isinstance(e, NodeFinished)][3]
    result = events[-1].result  # type: ignore[union-attr]
    assert said(result.outbox) == ["The fixed rate is 4 percent."]


def test_without_events_a_turn_reports_only_its_result(drive: Drive) -> None:
    chatty = drive("chatty")
    chatty.start()

    async def collect() -> list[object]:
        return [e async for e in chatty.engine.stream(TurnRequest.say("rate?"))]

    (only,) = chatty.call(collect)
    assert isinstance(only, TurnFinished)
    assert only.result.error is None


def test_extras_reach_the_nodes(drive: Drive) -> None:
    chatty = drive("chatty")
    chatty.start()
    result = chatty.say("rate?", extras=RunExtras(user_id="user-7"))
    assert [
        e["payload"]["text"] for e in result.outbox if e["type"] == "server.transcript.final"
    ] == ["user-7"]


def test_an_interrupt_ends_the_turn_and_is_resumed_by_id(drive: Drive) -> None:
    asker = drive("asker")
    asker.start()
    asked = asker.say("payee")
    assert asked.error is None
    (waiting,) = asked.interrupts
    assert waiting.value["question"] == "Add Alex Smith as a payee?"
    assert asker.call(asker.engine.pending) == asked.interrupts
    done = asker.turn(TurnRequest.answer({waiting.id: True}))
    assert done.interrupts == ()
    assert done.state["answers"] == [["payee", True]]
    assert said(done.outbox) == ["Payees: Alex Smith."]


def test_two_interrupts_are_answered_one_by_one(drive: Drive) -> None:
    asker = drive("asker")
    asker.start()
    both = asker.say("both").interrupts
    assert {i.value["question"] for i in both} == {
        "Add Alex Smith as a payee?",
        "Raise the daily limit?",
    }
    limit = next(i for i in both if "limit" in i.value["question"])
    first = asker.turn(TurnRequest.answer({limit.id: "To 500"}))
    assert first.state["answers"] == [["limit", "To 500"]]
    assert [i.value["question"] for i in first.interrupts] == ["Add Alex Smith as a payee?"]
    second = asker.turn(TurnRequest.answer({first.interrupts[0].id: False}))
    assert second.interrupts == ()
    assert sorted(map(tuple, second.state["answers"])) == [("limit", "To 500"), ("payee", False)]
    assert said(second.outbox) == ["Payees: none."]


@pytest.mark.parametrize("resume", [{"not-an-id": True}, {}])
def test_a_wrong_interrupt_id_is_refused_and_nothing_is_applied(
    drive: Drive, resume: dict[str, object]
) -> None:
    asker = drive("asker")
    asker.start()
    (waiting,) = asker.say("payee").interrupts
    with pytest.raises(UnknownInterrupt, match="is not waiting on interrupt"):
        asker.turn(TurnRequest.answer(resume))
    assert asker.call(asker.engine.pending) == (waiting,)
    assert asker.turn(TurnRequest.answer({waiting.id: True})).state["answers"] == [["payee", True]]


def test_a_turn_without_the_lock_is_refused(drive: Drive) -> None:
    echo = drive("echo")

    async def unlocked() -> None:
        async for _ in echo.engine.stream(TurnRequest.say("hi")):
            pass

    with pytest.raises(RuntimeError, match="hold the engine's lock"):
        echo.loop.run_until_complete(unlocked())


def test_a_breakpoint_waits_for_approval_and_a_refusal_drops_the_step(drive: Drive) -> None:
    gated = drive("gated")
    gated.start()
    asked = gated.say("pay the rent")
    assert said(asked.outbox) == [
        "Payment ready.",
        "Shall I go ahead and send payment? Say yes or no.",
    ]
    (waiting,) = asked.interrupts
    assert waiting.id.startswith("breakpoint:")
    assert gated.call(gated.engine.pending) == asked.interrupts
    sent = gated.turn(TurnRequest.answer({waiting.id: True}))
    assert said(sent.outbox) == ["Payments sent: 1."]
    assert sent.interrupts == ()
    (again,) = gated.say("pay again").interrupts
    refused = gated.turn(TurnRequest.answer({again.id: False}))
    assert refused.interrupts == () and said(refused.outbox) == []
    assert refused.state["domain"]["gated"]["sent"] == 1
    with pytest.raises(UnknownInterrupt):
        gated.turn(TurnRequest.answer({again.id: True}))


def test_a_finished_turn_is_in_the_database_before_the_transport_hears_of_it(
    drive: Drive,
) -> None:
    """Commit before telling: when ``TurnFinished`` reaches a transport, the runtime's own
    checkpointer (not the turn's held writes) already holds the turn."""
    driver = drive("echo")
    driver.start()
    engine = driver.engine
    seen: list[object] = []

    async def until_finished() -> None:
        async for item in engine.stream(TurnRequest.say("hello")):
            if isinstance(item, TurnFinished):
                stored = engine.context.registry.checkpointer.get_tuple(engine.config)
                assert stored is not None
                seen.append(stored.checkpoint["channel_values"]["domain"]["echo"]["heard"])

    driver.call(until_finished)
    assert seen == [["welcome", "hello"]]


def test_a_turn_whose_transport_stops_at_its_result_is_kept(drive: Drive) -> None:
    """A client that left while its result was being delivered (the transport closes the stream
    on ``TurnFinished``) sees the turn on reconnect: it is never rolled back."""
    driver = drive("echo")
    driver.start()

    async def stop_at_result() -> None:
        stream = driver.engine.stream(TurnRequest.say("kept"))
        async for item in stream:
            if isinstance(item, TurnFinished):
                break
        await stream.aclose()

    driver.call(stop_at_result)
    opening = driver.call(driver.engine.open)
    assert opening.state["domain"]["echo"]["heard"] == ["welcome", "kept"]
