"""Mortgage conversations through the real server: what a client receives, turn by turn."""

from __future__ import annotations

from typing import Any

import pytest

from runtime.a2ui import validate_message
from runtime.testing.client import RuntimeClient, Surface

FULL_REQUEST = "my house is worth 400k and I owe 250k, 5 year fix over 25 years"


def voice(frames: list[dict[str, Any]]) -> list[str]:
    return [f["payload"]["text"] for f in frames if f["type"] == "server.voice.say"]


def components(surface: Surface) -> list[str]:
    return [component["component"] for _, component, _ in surface.walk()]


def assert_valid_patches(frames: list[dict[str, Any]]) -> None:
    for frame in frames:
        if frame["type"] == "server.a2ui.patch":
            assert validate_message(frame["payload"]) == []


def test_from_welcome_to_a_chosen_product(real_server: str) -> None:
    with RuntimeClient(real_server) as client:
        welcome = client.receive_turn()
        offer = client.say(FULL_REQUEST)
        surface = client.surfaces["mortgage"]
        first = surface.clickables()[0]
        assert "ProductCard" in components(surface)
        chosen = client.click(first)
    for frames in (welcome, offer, chosen):
        assert_valid_patches(frames)
        assert "server.error" not in [f["type"] for f in frames]
        assert len(voice(frames)) == 1
        assert len(voice(frames)[0].split()) < 40
    assert "62.5%" in voice(offer)[0]
    assert first.name == "mortgage.select_product"
    assert "£1,338.99" in voice(chosen)[0]


def test_missing_inputs_are_asked_for(real_server: str) -> None:
    with RuntimeClient(real_server) as client:
        client.receive_turn()
        frames = client.say("my house is worth 400k")
        assert_valid_patches(frames)
        assert "ProductCard" not in components(client.surfaces["mortgage"])
    assert voice(frames) and voice(frames)[0].endswith("?")


def test_text_mode_gets_transcripts_and_no_voice(real_server: str) -> None:
    with RuntimeClient(real_server, mode="text") as client:
        client.receive_turn()
        frames = client.say(FULL_REQUEST)
    types = [f["type"] for f in frames]
    assert "server.voice.say" not in types
    assert "server.transcript.final" in types


@pytest.mark.parametrize("action_id", ["mortgage.select_product", "select_product"])
def test_a_product_that_does_not_exist_is_refused(real_server: str, action_id: str) -> None:
    with RuntimeClient(real_server) as client:
        client.receive_turn()
        client.send("client.ui.action", actionId=action_id, data={"productId": "nope"})
        error = client.receive()
    assert error["payload"]["code"] == "action_rejected"
    assert "'nope'" in error["payload"]["message"]
