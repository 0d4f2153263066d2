"""Commit before telling: after a crash, a session is never behind what its customer was told.

Real ``a2ui-runtime serve`` processes on 127.0.0.1 with a SQLite checkpointer and an audit file,
killed with SIGKILL: at the exact point between a turn's commit and its delivery
(``tests/runtime/crash_server.py``), and at random moments under load. Each session is then
reconnected to a restarted server, and the screen it redraws is compared with the last one its
client received.
"""

from __future__ import annotations

import json
import random
import signal
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed

from runtime.testing.client import RuntimeClient
from tests.runtime.conftest import runtime_process, runtime_server

pytestmark = pytest.mark.slow

#: lost_card, turn after turn: the card is frozen, a replacement declined, the card unfrozen.
SCRIPT = ("freeze", "yes", "no", "unfreeze", "yes")
FROZEN = "Done, your card is frozen"
#: Kills, and the sessions each interrupts: sixty sessions, as many kills as the suite affords.
ROUNDS, CUSTOMERS = 4, 15
#: How long a reconnected client waits for more of the redraw.
REDRAW_QUIET_S = 1.0


def told(client: RuntimeClient) -> str:
    """The message of the screen the client shows now (every lost_card screen has one)."""
    for surface in client.surfaces.values():
        for _, component, scope in surface.walk():
            if component["id"] == "message":
                return str(surface.resolve(component.get("text"), scope))
    raise AssertionError("no lost_card screen was received")


def redrawn(address: str, session_id: str) -> str:
    """What a session shows when its client reconnects."""
    with RuntimeClient(address, agent="lost_card", session_id=session_id, mode="text") as client:
        client.timeout = REDRAW_QUIET_S
        with suppress(TimeoutError):
            while True:
                client.receive()
        return told(client)


def audited(audit_file: Path, session_id: str) -> list[str]:
    lines = audit_file.read_text().splitlines() if audit_file.exists() else []
    entries = [json.loads(line) for line in lines]
    return [e["event"]["action"] for e in entries if e["sessionId"] == session_id]


@pytest.mark.parametrize("point", ["audited", "delivered"])
def test_a_crash_while_a_turn_is_delivered_keeps_the_turn(
    point: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed after the turn that froze the card was audited (nothing sent yet), or after it
    was sent: the database holds the frozen card, and the reconnected client sees it."""
    store = ("--storage", f"sqlite:{tmp_path / 'sessions.db'}")
    audit_file = tmp_path / "audit.jsonl"
    audit = ("--audit-file", str(audit_file))
    monkeypatch.setenv("CRASH_AT", f"{point}:3")  # the welcome, "freeze", then "yes"
    with runtime_process(*store, *audit, module="tests.runtime.crash_server") as address:
        with RuntimeClient(address, agent="lost_card", mode="text") as client:
            client.receive_turn()
            client.say("freeze")
            client.send("client.transcript.final", text="yes")
            with suppress(ConnectionClosed):
                while True:
                    client.receive()
        session_id = client.session_id
        assert session_id is not None
    if point == "delivered":
        assert told(client).startswith(FROZEN)
    assert "lost_card.card_frozen" in audited(audit_file, session_id)
    with runtime_process(*store, *audit) as address:
        assert redrawn(address, session_id).startswith(FROZEN)


class Customer:
    """A new session playing ``SCRIPT`` in a loop until its server dies; what it was told."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.session_id: str | None = None
        #: The message of every screen it received in full, in order.
        self.screens: list[str] = []
        self.thread = threading.Thread(target=self.play, daemon=True)

    def play(self) -> None:
        client = RuntimeClient(self.address, agent="lost_card", mode="text")
        with suppress(ConnectionClosed, OSError, TimeoutError), client:
            client.receive_turn()
            self.session_id = client.session_id
            self.screens.append(told(client))
            for text in iter_script():
                client.say(text)
                self.screens.append(told(client))


def iter_script() -> Iterator[str]:
    while True:
        yield from SCRIPT


@pytest.mark.timeout(600)
def test_sessions_killed_at_random_moments_are_never_behind_what_they_showed(
    tmp_path: Path,
) -> None:
    """Four rounds of fifteen new sessions looping freeze / yes / no / unfreeze / yes, the server
    killed with SIGKILL at a random moment, restarted, every session reconnected: each comes back
    on the screen its client last showed in full or (a turn committed, its delivery cut short) on
    the one after it; never on an older one."""
    rng = random.Random(19)
    store = ("--storage", f"sqlite:{tmp_path / 'sessions.db'}")
    audit_file = tmp_path / "audit.jsonl"
    audit = ("--audit-file", str(audit_file))
    played: list[Customer] = []
    comebacks: dict[str, str] = {}
    for _ in range(ROUNDS):
        with runtime_server(*store, *audit) as (address, process):
            customers = [Customer(address) for _ in range(CUSTOMERS)]
            for customer in customers:
                customer.thread.start()
            time.sleep(rng.uniform(1.0, 4.0))
            process.send_signal(signal.SIGKILL)
            for customer in customers:
                customer.thread.join(timeout=30)
        seen = [c for c in customers if c.session_id is not None and c.screens]
        with runtime_server(*store, *audit) as (address, _), ThreadPoolExecutor(CUSTOMERS) as pool:
            shown = pool.map(lambda c: redrawn(address, str(c.session_id)), seen)
            comebacks.update(zip((str(c.session_id) for c in seen), shown, strict=True))
        played += seen
    # The script's screens in order, as the customers saw them: each screen's successor.
    after = {a: b for c in played for a, b in zip(c.screens, c.screens[1:], strict=False)}
    behind = [
        f"{c.session_id}: showed {c.screens[-1]!r}, came back on {comebacks[str(c.session_id)]!r}"
        for c in played
        if comebacks[str(c.session_id)] not in (c.screens[-1], after.get(c.screens[-1]))
    ]
    # And the audit file never records a change the database lost: its last change of the card
    # is the one the session came back with, or (that turn not yet audited) the one it showed.
    unheld = [
        f"{c.session_id}: audited {changes[-1]}, came back on {comebacks[str(c.session_id)]!r}"
        for c in played
        if (changes := card_changes(audit_file, str(c.session_id)))
        and changes[-1] not in {card_after(comebacks[str(c.session_id)]), card_after(c.screens[-1])}
    ]
    assert len(played) >= 50
    assert behind == []
    assert unheld == []


#: Each lost_card screen of the script, by its message's opening, and the audit event that left
#: the card as that screen shows it.
CARD_AFTER = {
    "Hello": "lost_card.card_unfrozen",
    "Shall I freeze": "lost_card.card_unfrozen",
    FROZEN: "lost_card.card_frozen",
    "No problem": "lost_card.card_frozen",
    "Shall I unfreeze": "lost_card.card_frozen",
    "Done, your card is working again": "lost_card.card_unfrozen",
}


def card_after(screen: str) -> str:
    return next(change for opening, change in CARD_AFTER.items() if screen.startswith(opening))


def card_changes(audit_file: Path, session_id: str) -> list[str]:
    """The session's audited freezes and unfreezes, or none (the card as it was: active)."""
    changes = ("lost_card.card_frozen", "lost_card.card_unfrozen")
    return [a for a in audited(audit_file, session_id) if a in changes] or [changes[1]]
