"""``POST /agui/{plugin_id}`` driven by the official client (``@ag-ui/client`` HttpAgent) over a
real uvicorn on 127.0.0.1. The harness fails on any client warning, rejection or unfinished
stream, so every run here is one the official client accepts as it is."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from runtime.a2ui import CATALOG_ID
from runtime.a2ui.validate import validate_components
from runtime.plugins.mortgage.dialogue import STARTING_AGAIN
from runtime.serving.app import create_app
from runtime.serving.launch import serve_in_thread
from runtime.settings import Settings
from tests.runtime.serving.agui.official_client import AguiClient
from tests.runtime.serving.agui.wire import post_run

GET_LOCATION = {
    "name": "get_location",
    "description": "Where the device is, in WGS84 degrees.",
    "parameters": {"type": "object", "properties": {}},
    "result": {"lat": 53.4084, "lon": -2.9916},  # Liverpool: the Manchester branch is nearest
}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """The runtime over the project's plugins; its audit log in ``tmp_path``."""
    settings = Settings(port=0, audit_file=tmp_path / "audit.jsonl")
    with serve_in_thread(create_app(settings, callbacks=[]), settings) as address:
        yield f"http://{address}"


def scenario(url: str, *steps: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"url": url, "threadId": uuid.uuid4().hex, "steps": list(steps), **extra}


def types(run: dict[str, Any]) -> list[str]:
    return [e["type"] for e in run["events"]]


def of_type(run: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [e for e in run["events"] if e["type"] == kind]


def spoken(run: dict[str, Any]) -> str:
    (line,) = [e["value"]["text"] for e in of_type(run, "CUSTOM") if e["name"] == "voice.say"]
    return str(line)


def said(run: dict[str, Any]) -> str:
    return "".join(e["delta"] for e in of_type(run, "TEXT_MESSAGE_CONTENT"))


def screen(run: dict[str, Any], plugin_id: str) -> list[dict[str, Any]]:
    """The surface's A2UI operations, checked: createSurface first, valid components."""
    (activity,) = of_type(run, "ACTIVITY_SNAPSHOT")
    assert activity["activityType"] == "a2ui-surface"
    assert activity["messageId"] == f"a2ui-surface-{plugin_id}"
    operations: list[dict[str, Any]] = activity["content"]["a2ui_operations"]
    assert operations[0]["createSurface"] == {"surfaceId": plugin_id, "catalogId": CATALOG_ID}
    for operation in operations:
        assert operation["version"] == "v0.9"
        if "updateComponents" in operation:
            components = operation["updateComponents"]["components"]
            assert validate_components(components, plugin_id=plugin_id) == []
    return operations


def test_a_mortgage_conversation_over_two_runs(server: str, agui_client: AguiClient) -> None:
    report = agui_client(
        scenario(
            f"{server}/agui/mortgage",
            {"say": "my house is worth 400k"},
            {"say": "I owe 250k, 5 year fix over 25 years"},
        )
    )
    first, second = report["runs"]
    for run in (first, second):
        assert types(run)[0] == "RUN_STARTED"
        assert types(run)[-1] == "RUN_FINISHED"
        assert {"TEXT_MESSAGE_START", "ACTIVITY_SNAPSHOT", "STATE_SNAPSHOT"} <= set(types(run))
        screen(run, "mortgage")
    # the thread is the session: the second run knows the first run's value
    assert spoken(second).startswith("At 62.5% loan-to-value, the best value is")
    assert said(second).startswith("At 62.5% loan-to-value")
    state = report["state"]
    assert "messages" not in state
    assert report["messages"][-1]["role"] == "assistant"


def test_a_button_press_is_an_a2ui_action_in_forwarded_props(
    server: str, agui_client: AguiClient
) -> None:
    report = agui_client(
        scenario(
            f"{server}/agui/mortgage",
            {"say": "my house is worth 400k"},
            {"click": {"name": "mortgage.launch_rockets"}},
            {"say": "I owe 250k, 5 year fix over 25 years"},
            {"click": {"name": "mortgage.start_over", "sourceComponentId": "start_over"}},
        )
    )
    _, refused, answered, restarted = report["runs"]
    assert refused["outcome"] == "error"
    (error,) = of_type(refused, "RUN_ERROR")
    assert error["code"] == "action_rejected" and "launch_rockets" in error["message"]
    assert not of_type(refused, "ACTIVITY_SNAPSHOT")  # nothing ran
    # the refused press left the session as it was: the value said before still counts
    assert spoken(answered).startswith("At 62.5% loan-to-value, the best value is")
    assert spoken(restarted).startswith(STARTING_AGAIN)
    assert restarted["outcome"] == "success"


def test_a_malformed_a2ui_action_is_refused_naming_the_field(server: str) -> None:
    thread, url = uuid.uuid4().hex, f"{server}/agui/mortgage"
    post_run(url, thread)  # the welcome
    events = post_run(url, thread, forwardedProps={"a2uiAction": {"name": "mortgage.start_over"}})
    assert [e["type"] for e in events] == ["RUN_STARTED", "RUN_ERROR"]
    assert events[-1]["code"] == "action_rejected"
    assert "forwardedProps.a2uiAction.surfaceId: Field required" in events[-1]["message"]


def test_voice_lines_are_left_out_in_text_mode(server: str, agui_client: AguiClient) -> None:
    steps = [{"say": "my house is worth 400k"}]
    voiced = agui_client(scenario(f"{server}/agui/mortgage", *steps))
    text = agui_client(scenario(f"{server}/agui/mortgage", *steps, forwardedProps={"mode": "text"}))
    assert spoken(voiced["runs"][0])
    assert not of_type(text["runs"][0], "CUSTOM")
    assert said(text["runs"][0]) == said(voiced["runs"][0])


def test_a_frontend_location_tool_names_the_nearest_branch(
    server: str, agui_client: AguiClient
) -> None:
    report = agui_client(
        scenario(
            f"{server}/agui/lost_card",
            {"say": "where is my nearest branch?"},
            frontendTools=[GET_LOCATION],
        )
    )
    asked, answered = report["runs"]
    (start,) = of_type(asked, "TOOL_CALL_START")
    assert start["toolCallName"] == "get_location"
    assert asked["outcome"] == "success"
    assert asked["pendingToolCallIds"] == [start["toolCallId"]]
    assert not of_type(asked, "ACTIVITY_SNAPSHOT")  # nothing drawn while the device is asked
    assert spoken(answered).startswith("Your nearest branch is Manchester King Street")
    operations = screen(answered, "lost_card")
    data = next(op["updateDataModel"]["value"] for op in operations if "updateDataModel" in op)
    assert data["branch_name"] == "Manchester King Street"
    assert report["state"]["branch_name"] == "Manchester King Street"


def test_a_lost_card_asks_for_a_yes_as_an_interrupt_and_the_resume_freezes_it(
    server: str, agui_client: AguiClient
) -> None:
    report = agui_client(
        scenario(
            f"{server}/agui/lost_card",
            {"say": "I've lost my card"},
            {"resume": {"status": "resolved", "payload": True}},
        )
    )
    asked, frozen = report["runs"]
    assert asked["outcome"] == "interrupt"
    (question,) = asked["interrupts"]
    assert question["message"] == "Shall I freeze your card now?"
    assert "confirm_button" in {
        c["id"]
        for op in screen(asked, "lost_card")
        if "updateComponents" in op
        for c in op["updateComponents"]["components"]
    }
    assert spoken(frozen).startswith("Done, your card is frozen")


def test_the_lost_card_buttons_answer_its_question_as_the_press(
    server: str, agui_client: AguiClient
) -> None:
    # The client sends a press of a button the interrupt lists as the resume payload; a button
    # drawn for another question still confirms nothing.
    report = agui_client(
        scenario(
            f"{server}/agui/lost_card",
            {"say": "I've lost my card"},
            {"click": {"name": "lost_card.confirm", "context": {"step": "replace"}}},
            {"click": {"name": "lost_card.confirm", "context": {"step": "freeze"}}},
        )
    )
    asked, stale, frozen = report["runs"]
    (question,) = asked["interrupts"]
    assert question["metadata"] == {"answeredBy": ["lost_card.confirm", "lost_card.cancel"]}
    assert spoken(stale).startswith("That button was for an earlier question.")
    assert stale["outcome"] == "interrupt"  # and the question waits again
    assert spoken(frozen).startswith("Done, your card is frozen")


def test_a_press_the_interrupt_does_not_list_or_a_raw_value_is_refused_and_it_still_waits(
    server: str,
) -> None:
    thread, url = uuid.uuid4().hex, f"{server}/agui/lost_card"
    said = [{"id": "u1", "role": "user", "content": "I've lost my card"}]
    press = {
        "name": "lost_card.find_branch",
        "surfaceId": "lost_card",
        "sourceComponentId": "branch_button",
        "timestamp": "2026-11-23T12:00:00Z",
        "context": {},
    }
    (waiting,) = post_run(url, thread, messages=said)[-1]["outcome"]["interrupts"]
    resume = {"interruptId": waiting["id"], "status": "resolved"}
    # a click made up as the answer would skip the plugin's check of its data
    made_up = {"id": "lost_card.confirm", "data": {"step": "delete_account"}}

    unlisted = post_run(
        url, thread, messages=said, resume=[{**resume, "payload": {"a2uiAction": press}}]
    )
    raw = post_run(url, thread, messages=said, resume=[{**resume, "payload": made_up}])
    answered = post_run(url, thread, messages=said, resume=[resume])

    for refused in (unlisted, raw):
        assert [e["type"] for e in refused] == ["RUN_STARTED", "RUN_ERROR"]
        assert refused[-1]["code"] == "action_rejected"
    assert (
        f"lost_card.find_branch does not answer interrupt {waiting['id']}"
        in (unlisted[-1]["message"])
    )
    assert f"interrupt {waiting['id']} is answered by true, false or" in raw[-1]["message"]
    spoken_text = "".join(e["delta"] for e in answered if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert spoken_text.startswith("Done, your card is frozen")


def test_without_the_tool_the_agent_asks_for_a_town(server: str, agui_client: AguiClient) -> None:
    report = agui_client(
        scenario(f"{server}/agui/lost_card", {"say": "find a branch"}, {"say": "Cardiff"})
    )
    asked, found = report["runs"]
    assert not of_type(asked, "TOOL_CALL_START")
    assert spoken(asked) == "Which town or postcode are you near? I'll find your nearest branch."
    assert spoken(found).startswith("Your nearest branch is Cardiff Queen Street")


def test_a_tool_result_sent_again_runs_nothing_again(server: str) -> None:
    """Loop prevention: the client replays its history; an answered call id is never resumed."""
    thread, url = uuid.uuid4().hex, f"{server}/agui/lost_card"
    user = {"id": "u1", "role": "user", "content": "nearest branch please"}
    tools = [{k: v for k, v in GET_LOCATION.items() if k != "result"}]
    first = post_run(url, thread, messages=[user], tools=tools)
    (call_id,) = [e["toolCallId"] for e in first if e["type"] == "TOOL_CALL_START"]
    history = [
        user,
        {"id": "a1", "role": "assistant", "toolCalls": [
            {"id": call_id, "type": "function",
             "function": {"name": "get_location", "arguments": "{}"}}]},
        {"id": "t1", "role": "tool", "toolCallId": call_id, "content": '{"lat":51.45,"lon":-2.6}'},
    ]  # fmt: skip
    answered = post_run(url, thread, messages=history, tools=tools)
    assert [e["name"] for e in answered if e["type"] == "CUSTOM"] == ["voice.say"]
    replayed = post_run(url, thread, messages=history, tools=tools)
    assert [e["type"] for e in replayed if e["type"] in ("CUSTOM", "TOOL_CALL_START")] == []
    assert replayed[-1]["type"] == "RUN_FINISHED"


def test_an_unknown_agent_is_a_404(server: str, agui_client: AguiClient) -> None:
    with pytest.raises(AssertionError, match="HTTP 404"):
        agui_client(scenario(f"{server}/agui/no_such_agent", {"say": "hello"}))
    reply = httpx.post(f"{server}/agui/no_such_agent", json={})
    assert reply.status_code == 404
    assert "unknown agent 'no_such_agent'; available: lost_card, mortgage" in reply.text


def test_a_bad_run_input_is_refused_with_what_is_wrong(server: str) -> None:
    reply = httpx.post(f"{server}/agui/mortgage", json={"threadId": "t"})
    assert reply.status_code == 422
    assert "runId: Field required" in reply.text
    bad_thread = {"threadId": "../etc", "runId": "r", "messages": []}
    reply = httpx.post(f"{server}/agui/mortgage", json=bad_thread)
    assert reply.status_code == 422
    assert "threadId must match" in reply.text
