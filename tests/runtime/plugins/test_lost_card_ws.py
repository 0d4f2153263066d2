"""The lost-card scenarios over a real uvicorn on 127.0.0.1, driven as a client would drive them.

The client mirrors the surface as a renderer would, so buttons are clicked with the context their
bindings resolve to. Every A2UI message received is validated. The last test runs the real
``a2ui-runtime serve`` process at DEBUG and reads its log.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.request import urlopen

import pytest
from websockets.sync.client import connect

from runtime.serving.app import create_app
from runtime.serving.launch import serve_in_thread
from runtime.settings import Settings
from runtime.testing.client import RuntimeClient, Surface
from runtime.testing.demo import run_demo
from tests.runtime.plugins.turns import check_frames, voice

AGENT = "lost_card"
STARTUP_TIMEOUT_S = 30.0


@pytest.fixture
def audit_file(tmp_path: Path) -> Path:
    return tmp_path / "audit.jsonl"


@pytest.fixture
def server(audit_file: Path) -> Iterator[str]:
    """The runtime over the project's plugins, writing its audit trail to ``audit_file``."""
    settings = Settings(port=0, audit_file=audit_file)
    with serve_in_thread(create_app(settings, callbacks=[]), settings) as address:
        yield address


def press(client: RuntimeClient, action: str) -> list[dict[str, Any]]:
    """Click the button on screen that sends ``lost_card.<action>``."""
    (button,) = [c for c in client.surfaces[AGENT].clickables() if c.name == f"{AGENT}.{action}"]
    return check_frames(AGENT, client.click(button))


def say(client: RuntimeClient, text: str) -> list[dict[str, Any]]:
    return check_frames(AGENT, client.say(text))


def card_values(surface: Surface) -> dict[str, Any]:
    """What each DataCard on screen shows: title → value, bindings resolved."""
    return {
        surface.resolve(c["title"], scope): surface.resolve(c["value"], scope)
        for _, c, scope in surface.walk()
        if c["component"] == "DataCard"
    }


def audit_trail(audit_file: Path, session_id: str | None) -> list[str]:
    lines = [json.loads(line) for line in audit_file.read_text().splitlines()]
    return [entry["event"]["action"] for entry in lines if entry["sessionId"] == session_id]


def test_lost_card_frozen_then_replaced(server: str, audit_file: Path) -> None:
    with RuntimeClient(server, agent=AGENT) as client:
        check_frames(AGENT, client.receive_turn())
        surface = client.surfaces[AGENT]
        assert card_values(surface)["Visa debit card ending 4821"] == "Active"

        offered = say(client, "I've lost my card")
        assert "Shall I freeze your card now?" in voice(offered)
        frozen = press(client, "confirm")
        assert voice(frozen).startswith("Done, your card is frozen")
        assert surface.data["step"] == "replace"
        ordered = press(client, "confirm")
        assert "should arrive by" in voice(ordered)
        eta = card_values(surface)["Arriving by"]
        assert re.fullmatch(r"(Monday|Tuesday|Wednesday|Thursday|Friday) \d{1,2} \w+", eta)
        session_id = client.session_id
    assert audit_trail(audit_file, session_id) == [
        "lost_card.risk_assessed",
        "lost_card.card_frozen",
        "lost_card.replacement_ordered",
    ]


def test_the_confirmation_waits_in_an_interrupt_answered_by_voice_even_after_a_reconnect(
    server: str, audit_file: Path
) -> None:
    with RuntimeClient(server, agent=AGENT) as client:
        check_frames(AGENT, client.receive_turn())
        assert "Shall I freeze your card now?" in voice(say(client, "I've lost my card"))
    with RuntimeClient(server, agent=AGENT, session_id=client.session_id) as again:
        redraw = [again.receive() for _ in range(3)]  # the question, on the plugin's own screen
        assert again.surfaces[AGENT].data["step"] == "freeze"
        assert all(f["type"] == "server.a2ui.patch" for f in redraw)
        frozen = say(again, "yes please")
        assert voice(frozen).startswith("Done, your card is frozen")
        assert again.surfaces[AGENT].data["step"] == "replace"
        kept = say(again, "no thanks")
        assert voice(kept).startswith("No problem, I'll leave it there.")
    assert audit_trail(audit_file, client.session_id) == [
        "lost_card.risk_assessed",
        "lost_card.card_frozen",
    ]


def test_fraud_wrong_then_right_digits_escalates(server: str, audit_file: Path) -> None:
    with RuntimeClient(server, agent=AGENT) as client:
        check_frames(AGENT, client.receive_turn())
        surface = client.surfaces[AGENT]
        challenged = say(client, "I see transactions I don't recognise")
        assert voice(challenged).endswith("please tell me the last four digits of your card.")
        assert card_values(surface) == {"Last four digits of your card": "3 attempts left"}

        refused = say(client, "1234")
        assert voice(refused).startswith("Sorry, those digits don't match.")
        assert card_values(surface) == {"Last four digits of your card": "2 attempts left"}

        verified = say(client, "4 8 2 1")
        assert "passed this to our fraud team" in voice(verified)
        assert surface.data["step"] == "freeze"
        session_id = client.session_id
    assert audit_trail(audit_file, session_id) == [
        "lost_card.risk_assessed",
        "lost_card.identity_refused",
        "lost_card.identity_verified",
        "lost_card.escalated",
    ]


def test_a_found_card_after_a_freeze_is_offered_an_unfreeze(server: str) -> None:
    with RuntimeClient(server, agent=AGENT) as client:
        check_frames(AGENT, client.receive_turn())
        surface = client.surfaces[AGENT]
        say(client, "I've lost my card")
        press(client, "confirm")  # frozen
        press(client, "cancel")  # no replacement yet
        assert card_values(surface)["Visa debit card ending 4821"] == "Frozen"

        offered = say(client, "Found it, it was in my coat pocket")
        assert "Shall I unfreeze your card" in voice(offered)
        assert surface.data["step"] == "unfreeze"
        press(client, "confirm")
        assert card_values(surface)["Visa debit card ending 4821"] == "Active"


def test_mortgage_and_lost_card_actions_never_collide(server: str) -> None:
    with RuntimeClient(server, agent=AGENT) as client:
        check_frames(AGENT, client.receive_turn())
        client.send("client.ui.action", actionId="mortgage.select_product", data={})
        refused = client.receive()
        still_here = say(client, "freeze my card")  # the session goes on
    assert refused["type"] == "server.error"
    assert "belongs to 'mortgage'" in refused["payload"]["message"]
    assert "Shall I freeze your card now?" in voice(still_here)

    with RuntimeClient(server, agent="mortgage") as client:
        client.receive_turn()
        client.send("client.ui.action", actionId="lost_card.freeze_card", data={})
        refused = client.receive()
    assert refused["type"] == "server.error"
    assert "belongs to 'lost_card'" in refused["payload"]["message"]


CARD = "4929123456734821"  # Luhn-valid, as a real card number is
TYPED = ("4929 1234 5673 4821", "4929-1234-5673-4821", CARD)


@pytest.fixture
def served_log(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """``a2ui-runtime serve`` at DEBUG on a free port; yields its address and its log file."""
    log = tmp_path / "server.log"
    with log.open("w") as stream:
        process = subprocess.Popen(
            [sys.executable, "-m", "runtime.cli", "serve", "--port", "0", "--log-level", "DEBUG"],
            stdout=stream,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not (found := re.search(r"Uvicorn running on http://([\d.]+:\d+)", log.read_text())):
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)
        yield found.group(1), log
    finally:
        process.terminate()
        process.wait(timeout=STARTUP_TIMEOUT_S)


def test_a_typed_card_number_never_reaches_the_server_log(served_log: tuple[str, Path]) -> None:
    address, log = served_log
    with RuntimeClient(address, agent=AGENT) as client:
        client.receive_turn()
        for typed in TYPED:
            say(client, f"my card {typed} was stolen")
        client.send("client.ui.action", actionId="lost_card.verify_identity", data={"last4": CARD})
        client.send_raw(f'{{"type": "client.transcript.final", "payload": {CARD}')  # malformed
        assert [client.receive()["type"], client.receive()["type"]] == ["server.error"] * 2
    with connect(f"ws://{address}/ws?agent={AGENT}&ref={CARD}") as extra:  # uvicorn.error
        extra.recv(timeout=STARTUP_TIMEOUT_S)
    with urlopen(f"http://{address}/health?ref={CARD}", timeout=STARTUP_TIMEOUT_S):  # .access
        pass
    text = log.read_text()
    assert "heard 'my card ****4821 was stolen'" in text  # the words were logged, masked
    assert '"GET /health?ref=****4821 HTTP/1.1" 200' in text
    fragments = {CARD[start : start + 8] for start in range(len(CARD) - 7)}
    for line in text.splitlines():
        digits = re.sub(r"[\s-]", "", line)
        assert not [f for f in fragments if f in digits], line


def test_the_demo_plays_the_lost_card_conversation() -> None:
    printed = io.StringIO()
    assert run_demo(AGENT, out=printed) == 0
    out = printed.getvalue()
    assert "lost_card.confirm" in out
    assert "Your new card should arrive by" in out
    assert out.endswith("demo passed: 4 turn(s), no errors\n")
