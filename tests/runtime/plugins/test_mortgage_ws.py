"""The whole mortgage conversation over a real uvicorn on 127.0.0.1 and a WebSocket client.

The client mirrors the surface as a renderer would (templates expanded, bindings resolved), so the
product buttons are clicked with the product id the template binds, not one the test made up.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from runtime.plugins.mortgage.dialogue import NOT_ON_OFFER, STARTING_AGAIN
from runtime.serving.app import create_app
from runtime.serving.launch import serve_in_thread
from runtime.settings import Settings
from runtime.testing.client import RuntimeClient, Surface
from tests.runtime.plugins.turns import check_frames, voice

HEADLINE = "my house is worth 400k and I owe 250k, 5 year fix over 25 years"


@pytest.fixture
def server() -> Iterator[str]:
    """A runtime with its default settings: the project's plugins, mortgage the default agent."""
    settings = Settings(port=0)
    with serve_in_thread(create_app(settings, callbacks=[]), settings) as address:
        yield address


def shown(surface: Surface, component_type: str, prop: str) -> list[Any]:
    """What a renderer would show for ``prop`` of every ``component_type``, templates expanded."""
    return [
        surface.resolve(component[prop], scope)
        for _, component, scope in surface.walk()
        if component["component"] == component_type
    ]


def test_the_mortgage_conversation(server: str) -> None:
    with RuntimeClient(server) as client:  # mortgage is the default agent
        welcome = check_frames("mortgage", client.receive_turn())
        assert "Tell me what your home is worth" in voice(welcome)
        assert [f["type"] for f in welcome][:2] == ["server.agent.thinking", "server.a2ui.patch"]
        surface = client.surfaces["mortgage"]

        check_frames("mortgage", client.say("my house is worth 400k"))
        assert shown(surface, "DataCard", "value")[0] == "How much would you like to borrow?"

        frames = check_frames("mortgage", client.say("I owe 250k, 5 year fix over 25 years"))
        assert voice(frames).startswith("At 62.5% loan-to-value, the best value is")
        titles = shown(surface, "ProductCard", "title")
        assert titles == [p["name"] for p in surface.data["products"]]
        buttons = [c for c in surface.clickables() if c.name == "mortgage.select_product"]
        assert [b.context for b in buttons] == [
            {"productId": p["id"]} for p in surface.data["products"]
        ]

        frames = check_frames("mortgage", client.click(buttons[1]))
        assert voice(frames).startswith(f"Good choice: the {titles[1]} at")
        assert shown(surface, "ProductCard", "title") == [titles[1]]
        (start_over,) = surface.clickables()
        assert start_over.name == "mortgage.start_over"

        frames = check_frames("mortgage", client.click(start_over))
        assert voice(frames).startswith(STARTING_AGAIN)
        assert surface.components["root"]["children"] == ["heading", "intro", "example", "needs"]


def test_choosing_by_voice_and_the_transcript_pane(server: str) -> None:
    with RuntimeClient(server, agent="mortgage", mode="text") as client:
        client.receive_turn()
        client.say(HEADLINE)
        frames = check_frames("mortgage", client.say("the first one"))
    assert "server.voice.say" not in [f["type"] for f in frames]  # text mode
    (transcript,) = [f["payload"]["text"] for f in frames if f["type"] == "server.transcript.final"]
    assert transcript.startswith("Good choice: the 5-Year Fixed 75")


def test_clicks_outside_the_offer(server: str) -> None:
    with RuntimeClient(server, agent="mortgage") as client:
        client.receive_turn()
        client.say(HEADLINE)
        client.send("client.ui.action", actionId="mortgage.select_product", data={"productId": "x"})
        refused = client.receive()  # refused by validate_action: no turn runs
        client.send(
            "client.ui.action", actionId="mortgage.select_product", data={"productId": "fix2-60"}
        )
        # ours, but not a 5-year fix: said in words
        frames = check_frames("mortgage", client.receive_turn())
    assert refused["type"] == "server.error"
    assert "needs the productId" in refused["payload"]["message"]
    assert voice(frames).startswith(NOT_ON_OFFER)
