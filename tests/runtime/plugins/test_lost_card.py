"""The lost_card scaffold: a valid plugin that says it is coming soon, on every turn."""

from __future__ import annotations

from runtime.plugins.lost_card.plugin import LostCardPlugin
from tests.runtime.plugins.turns import Turns, screen_ids, voice


def test_every_turn_says_coming_soon_with_one_valid_screen() -> None:
    turns = Turns(LostCardPlugin())
    for events in (turns.start(), turns.say("I lost my card"), turns.say("")):
        assert voice(events) == "Lost Card Agent coming soon."
        assert "root" in screen_ids(events)
        assert turns.state["ui"]["lost_card"]


def test_capabilities_list_the_screen_and_no_actions() -> None:
    capabilities = LostCardPlugin().capabilities()
    assert "coming_soon" in capabilities.screens
    assert capabilities.actions == []
    assert LostCardPlugin().validate_action("lost_card.freeze", {}) is not None
