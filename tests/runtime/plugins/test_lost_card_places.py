"""Where a customer says they are: towns and postcodes, said in full or in part."""

from __future__ import annotations

import pytest

from runtime.plugins.lost_card.places import locate


@pytest.mark.parametrize(
    ("said", "town"),
    [
        ("Leeds", "Leeds"),
        ("i'm in york today", "York"),
        ("LS6 2AB", "Leeds"),
        ("my postcode is m2 4lq", "Manchester"),
        ("EC3V", "London"),
        ("near G1", "Glasgow"),
        ("sw1a 1aa", "London"),
    ],
)
def test_a_town_or_postcode_is_placed(said: str, town: str) -> None:
    place = locate(said)
    assert place is not None
    assert place.name == town


@pytest.mark.parametrize("said", ["", "somewhere nice", "card ending 4821", "ZZ9 9ZZ"])
def test_anything_else_is_nowhere(said: str) -> None:
    assert locate(said) is None
