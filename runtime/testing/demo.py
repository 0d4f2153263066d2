"""``a2ui-runtime demo``: a scripted conversation with a real server, printed as a client sees it.

The server runs in-process on a free port of 127.0.0.1; a WebSocket client plays the agent's script
from ``SCRIPTS`` and prints every voice line, transcript, error and the screens it receives. A new
agent's demo is one entry in ``SCRIPTS``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from websockets.exceptions import ConnectionClosed

from runtime.serving.app import create_app
from runtime.serving.launch import serve_in_thread
from runtime.settings import Settings
from runtime.testing.client import Clickable, RuntimeClient, Surface


@dataclass(frozen=True)
class Say:
    """The user says (or types) ``text``."""

    text: str


@dataclass(frozen=True)
class Click:
    """The user clicks the first control on screen, or the first whose action is ``action``."""

    action: str | None = None

    def pick(self, clickables: list[Clickable]) -> Clickable | None:
        wanted = [c for c in clickables if self.action in (None, c.name.partition(".")[2])]
        return wanted[0] if wanted else None


Step = Say | Click

SCRIPTS: dict[str, tuple[Step, ...]] = {
    "mortgage": (Say("my house is worth 400k and I owe 250k, 5 year fix over 25 years"), Click()),
    "lost_card": (Say("I've lost my card"), Click("confirm"), Say("yes please")),
}

#: Props that are structure, not content: left out of a screen summary.
STRUCTURAL_PROPS = frozenset({"id", "component", "child", "children", "action", "accessibility"})


class DemoFailed(Exception):
    """The conversation did not go as scripted."""


def run_demo(
    agent: str, *, text_mode: bool = False, settings: Settings | None = None, out: TextIO
) -> int:
    """Play ``agent``'s script against a fresh server on a free port; 0 when every turn went
    through cleanly. ``settings`` (plugins folder, log level, ...) default to quiet ones."""
    script = SCRIPTS.get(agent)
    if script is None:
        out.write(f"demo: no script for agent {agent!r}; scripts exist for {sorted(SCRIPTS)}\n")
        return 2
    settings = (settings or Settings(log_level="WARNING")).model_copy(update={"port": 0})
    printer = Printer(out)
    with serve_in_thread(create_app(settings), settings) as address:
        converse(address, agent, script, printer, text_mode=text_mode)
    return printer.summary()


def converse(
    address: str, agent: str, script: Sequence[Step], printer: Printer, *, text_mode: bool = False
) -> None:
    """Connect to the server at ``address`` and play ``script``; failures land on ``printer``."""
    client = RuntimeClient(address, agent=agent, mode="text" if text_mode else None)
    try:
        with client:
            printer.step(f"connect to {client.url}")
            printer.frames(client, client.receive_turn())
            for step in script:
                printer.frames(client, play(client, step, printer))
    except (ConnectionClosed, TimeoutError, DemoFailed) as exc:
        printer.failure(describe_failure(exc))


def play(client: RuntimeClient, step: Step, printer: Printer) -> list[dict[str, Any]]:
    """Perform one scripted step and return the frames of the turn it caused."""
    if isinstance(step, Say):
        printer.step(f"user says {json.dumps(step.text)}")
        return client.say(step.text)
    clickables = [c for s in client.surfaces.values() for c in s.clickables()]
    target = step.pick(clickables)
    if target is None:
        raise DemoFailed(f"nothing to click for {step} on the current screen")
    printer.step(
        f"user clicks {target.component['component']} {target.component['id']!r}"
        f" -> {target.name} {json.dumps(target.context)}"
    )
    return client.click(target)


def describe_failure(exc: Exception) -> str:
    if isinstance(exc, ConnectionClosed) and exc.rcvd is not None:
        return f"the server closed the connection ({exc.rcvd.code}: {exc.rcvd.reason})"
    if isinstance(exc, TimeoutError):
        return "no answer from the server in time"
    return str(exc) or type(exc).__name__


class Printer:
    """Writes a conversation the way a person would read it; counts turns and failures."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.turns = 0
        self.failures: list[str] = []

    def step(self, text: str) -> None:
        self.out.write(f"\n==> {text}\n")

    def frames(self, client: RuntimeClient, frames: list[dict[str, Any]]) -> None:
        self.turns += 1
        drawn: list[str] = []
        for frame in frames:
            payload = frame["payload"]
            if frame["type"] == "server.voice.say":
                self.line("voice", json.dumps(payload.get("text", ""), ensure_ascii=False))
            elif frame["type"] == "server.transcript.final":
                self.line("text", payload.get("text", ""))
            elif frame["type"] == "server.error":
                self.failure(f"{payload.get('message')} ({payload.get('code', 'error')})")
            elif frame["type"] == "server.a2ui.patch":
                drawn += [b["surfaceId"] for b in payload.values() if isinstance(b, dict)]
        for surface_id in dict.fromkeys(drawn):
            if surface_id in client.surfaces:
                self.screen(client.surfaces[surface_id])

    def screen(self, surface: Surface) -> None:
        self.line("screen", f"surface {surface.surface_id!r}")
        for depth, component, scope in surface.walk():
            self.line("", "  " * depth + summarise(surface, component, scope))

    def line(self, label: str, text: str) -> None:
        self.out.write(f"    {label:<7}{text}\n")

    def failure(self, text: str) -> None:
        self.failures.append(text)
        self.line("ERROR", text)

    def summary(self) -> int:
        if self.failures:
            self.out.write(
                f"\ndemo FAILED after {self.turns} turn(s): {len(self.failures)} error(s)\n"
            )
            return 1
        self.out.write(f"\ndemo passed: {self.turns} turn(s), no errors\n")
        return 0


def summarise(surface: Surface, component: dict[str, Any], scope: str) -> str:
    """``Type#id key=value ...`` with bindings resolved, and the action a click would send."""
    props = {
        key: surface.resolve(value, scope)
        for key, value in component.items()
        if key not in STRUCTURAL_PROPS
    }
    text = " ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in props.items())
    action = component.get("action", {}).get("event", {}).get("name")
    click = f" [click: {action}]" if action else ""
    return f"{component['component']}#{component['id']} {text}".rstrip() + click
