"""AG-UI with the fixture plugins: tokens as the model streams them, backend tool calls, an
approval (an interrupt outcome, then a resume or a press on its screen), a failing plugin
(``RUN_ERROR``) and CORS, through the official client over a real uvicorn."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import httpx
import pytest

from runtime.serving.app import create_app
from runtime.serving.launch import serve_in_thread
from runtime.settings import Settings
from tests.runtime.serving.agui.official_client import AguiClient
from tests.runtime.serving.agui.wire import post_run

FIXTURE_PLUGINS = Path(__file__).parents[2] / "plugin_fixtures"
Serve = Callable[..., AbstractContextManager[str]]


@pytest.fixture
def serve(tmp_path: Path) -> Serve:
    """``serve(**settings)``: the runtime over the ``chatty``, ``boom`` and ``payee`` fixtures."""
    for name in ("chatty", "boom", "payee"):
        shutil.copytree(FIXTURE_PLUGINS / name, tmp_path / "plugins" / name)

    def start(**overrides: Any) -> AbstractContextManager[str]:
        settings = Settings(port=0, plugins_dir=tmp_path / "plugins", **overrides)
        return serve_in_thread(create_app(settings, callbacks=[]), settings)

    return start


@pytest.fixture
def server(serve: Serve) -> Iterator[str]:
    with serve() as address:
        yield f"http://{address}"


def run_once(agui_client: AguiClient, url: str, text: str) -> dict[str, Any]:
    report = agui_client({"url": url, "threadId": uuid.uuid4().hex, "steps": [{"say": text}]})
    (run,) = report["runs"]
    return dict(run)


def test_tokens_and_backend_tool_calls_stream_as_they_happen(
    server: str, agui_client: AguiClient
) -> None:
    run = run_once(agui_client, f"{server}/agui/chatty", "what is the fixed rate?")
    kinds = [e["type"] for e in run["events"]]
    start = kinds.index("TOOL_CALL_START")
    assert kinds[start : start + 5] == [
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",
    ]
    events = run["events"]
    assert events[start]["toolCallName"] == "lookup_rate"
    args = "".join(e["delta"] for e in events if e["type"] == "TOOL_CALL_ARGS")
    assert args == '{"product": "fixed"}'
    (result,) = [e for e in events if e["type"] == "TOOL_CALL_RESULT"]
    assert result["content"] == '{"product": "fixed", "rate": 4}'
    deltas = [e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT"]
    assert deltas[:4] == ["The", " fixed", " rate", " is"]  # one per token the model streamed
    assert deltas[4] == " 4 percent."  # but " 4", which may begin a card number, waits for a letter
    assert "".join(deltas) == "The fixed rate is 4 percent."
    assert kinds[-1] == "RUN_FINISHED"


@pytest.mark.parametrize(
    ("answer", "reply"),
    [
        ({"status": "resolved", "payload": True}, "Added Alex Smith as a payee."),
        ({"status": "cancelled"}, "Cancelled: Alex Smith was not added."),
    ],
)
def test_an_approval_ends_the_run_with_an_interrupt_and_the_resume_answers_it(
    server: str, agui_client: AguiClient, answer: dict[str, Any], reply: str
) -> None:
    report = agui_client(
        {
            "url": f"{server}/agui/payee",
            "threadId": uuid.uuid4().hex,
            "steps": [{"say": "add alex smith"}, {"resume": answer}],
        }
    )
    asked, answered = report["runs"]
    assert asked["outcome"] == "interrupt"
    (pending,) = asked["interrupts"]
    assert pending["reason"] == "approval"
    assert pending["message"] == "Add Alex Smith as a payee?"
    assert answered["outcome"] == "success"
    said = "".join(e["delta"] for e in answered["events"] if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert said == reply


@pytest.mark.parametrize(
    ("button", "reply"),
    [
        ("payee.approve", "Added Alex Smith as a payee."),
        ("payee.reject", "Cancelled: Alex Smith was not added."),
    ],
)
def test_a_press_on_the_approval_screen_answers_the_interrupt(
    server: str, button: str, reply: str
) -> None:
    # The official client only resumes an interrupt with ``resume``; a client that reports the
    # approval screen's button press instead (``forwardedProps.a2uiAction``) answers it too.
    url, thread = f"{server}/agui/payee", uuid.uuid4().hex
    said = {"id": "u1", "role": "user", "content": "add alex smith"}
    asked = post_run(url, thread, messages=[said])
    (pending,) = asked[-1]["outcome"]["interrupts"]
    press = {"name": button, "surfaceId": "payee", "sourceComponentId": "approve"}
    press |= {"timestamp": "2026-11-23T10:00:00Z", "context": {"interruptId": pending["id"]}}
    answered = post_run(url, thread, messages=[said], forwardedProps={"a2uiAction": press})
    assert answered[-1]["type"] == "RUN_FINISHED"
    text = "".join(e["delta"] for e in answered if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert text == reply


OFFER_ANN = {"id": "u1", "role": "user", "content": "offer ann"}
APPROVE_OR_REJECT = "Add Ann as a payee? Say yes to approve or no to reject."
YES_OR_NO = [("yes", "Added Ann as a payee.", ["Ann"]), ("no", "Cancelled: Ann was not added.", [])]


def text_of(events: list[dict[str, Any]]) -> str:
    return "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")


def voice_of(events: list[dict[str, Any]]) -> list[str]:
    return [
        e["value"]["text"] for e in events if e["type"] == "CUSTOM" and e["name"] == "voice.say"
    ]


@pytest.mark.parametrize(("answer", "reply", "payees"), YES_OR_NO)
def test_a_message_answers_an_approve_or_reject_question_with_its_option(
    server: str, answer: str, reply: str, payees: list[str]
) -> None:
    # The agent takes only "approve" or "reject" (the payee fixture's "offer"); a user message
    # while it waits is read as on the WebSocket.
    url, thread = f"{server}/agui/payee", uuid.uuid4().hex
    asked = post_run(url, thread, messages=[OFFER_ANN])
    (pending,) = asked[-1]["outcome"]["interrupts"]
    assert voice_of(asked) == [APPROVE_OR_REJECT]
    both = {"id": "u2", "role": "user", "content": "approve, no, reject"}
    again = post_run(url, thread, messages=[OFFER_ANN, both])  # neither: nothing runs, asked again
    assert again[-1]["outcome"]["interrupts"] == [pending]
    assert voice_of(again) == [APPROVE_OR_REJECT]
    said = {"id": "u3", "role": "user", "content": answer}
    answered = post_run(url, thread, messages=[OFFER_ANN, both, said])
    assert answered[-1]["type"] == "RUN_FINISHED"
    assert answered[-1]["outcome"]["type"] == "success"
    assert text_of(answered) == reply
    (snapshot,) = [e["snapshot"] for e in answered if e["type"] == "STATE_SNAPSHOT"]
    assert snapshot["state"]["payees"] == payees


@pytest.mark.parametrize(("answer", "reply", "payees"), YES_OR_NO)
def test_words_as_the_resume_payload_answer_an_approve_or_reject_question(
    server: str, agui_client: AguiClient, answer: str, reply: str, payees: list[str]
) -> None:
    # @ag-ui/client sends nothing but a resume while an interrupt waits: a frontend passes what
    # the customer typed as its payload. Words that say both are refused and the question waits.
    report = agui_client(
        {
            "url": f"{server}/agui/payee",
            "threadId": uuid.uuid4().hex,
            "steps": [
                {"say": "offer ann"},
                {"resume": {"status": "resolved", "payload": "yes no"}},
                {"resume": {"status": "resolved", "payload": answer}},
            ],
        }
    )
    asked, refused, answered = report["runs"]
    assert asked["outcome"] == "interrupt"
    assert refused["outcome"] == "error"
    (error,) = [e for e in refused["events"] if e["type"] == "RUN_ERROR"]
    assert error["code"] == "action_rejected"
    assert error["message"].endswith(
        f"does not answer interrupt {asked['interrupts'][0]['id']}: "
        + "Say yes to approve or no to reject."
    )
    assert answered["outcome"] == "success"
    assert text_of(answered["events"]) == reply
    assert report["state"]["state"]["payees"] == payees


def test_a_plugin_that_raises_ends_the_run_with_run_error(
    server: str, agui_client: AguiClient
) -> None:
    run = run_once(agui_client, f"{server}/agui/boom", "boom")
    last = run["events"][-1]
    assert last["type"] == "RUN_ERROR"
    assert last["code"] == "agent_error"
    assert "4929" not in last["message"]  # the exception's details stay in the server log
    assert run["outcome"] == "error"


def test_cors_allows_only_the_listed_origins(serve: Serve) -> None:
    preflight = {"Access-Control-Request-Method": "POST", "Origin": "https://app.example"}
    with serve() as address:  # by default, no origin is allowed
        reply = httpx.options(f"http://{address}/agui/chatty", headers=preflight)
        assert "access-control-allow-origin" not in reply.headers
    with serve(cors_origins=["https://app.example"]) as address:
        allowed = httpx.options(f"http://{address}/agui/chatty", headers=preflight)
        assert allowed.status_code == 200
        assert allowed.headers["access-control-allow-origin"] == "https://app.example"
        other = {**preflight, "Origin": "https://evil.example"}
        refused = httpx.options(f"http://{address}/agui/chatty", headers=other)
        assert refused.status_code == 400
        assert "access-control-allow-origin" not in refused.headers


def test_a_wildcard_origin_is_refused_as_a_setting() -> None:
    with pytest.raises(ValueError, match="not '\\*'"):
        Settings(cors_origins=["*"])
