"""The fixture corpus: each agent shape inspected and checked field by field against its
``expected.json`` (the Inspection without ``source``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from generator.models import Inspection

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "agents"
SHAPES = sorted(p.name for p in FIXTURES.iterdir() if (p / "expected.json").is_file())


def test_the_corpus_covers_at_least_fifteen_shapes() -> None:
    assert len(SHAPES) >= 15


@pytest.mark.parametrize("shape", SHAPES)
def test_shape_matches_expected(shape: str, inspect_folder: Callable[..., Inspection]) -> None:
    folder = FIXTURES / shape
    expected = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
    actual = inspect_folder(folder).model_dump(mode="json")
    assert_matches(expected, actual, shape)


def assert_matches(expected: Any, actual: Any, where: str) -> None:
    """Every key in ``expected`` equals ``actual``'s; lists match item by item, in order.

    Keys absent from ``expected`` are not checked, so fields added to the model later do not
    break the corpus; every field written in the fixture is checked.
    """
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: expected an object, got {actual!r}"
        for key, value in expected.items():
            assert key in actual, f"{where}: missing key {key!r}"
            assert_matches(value, actual[key], f"{where}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list), f"{where}: expected a list, got {actual!r}"
        assert len(actual) == len(expected), f"{where}: {len(actual)} items, expected {expected}"
        for index, (want, got) in enumerate(zip(expected, actual, strict=True)):
            assert_matches(want, got, f"{where}[{index}]")
    else:
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"


def test_the_matcher_itself_fails_on_a_difference() -> None:
    with pytest.raises(AssertionError, match=r"x\.y\[1\]"):
        assert_matches({"y": [1, 2]}, {"y": [1, 3], "z": 0}, "x")
    with pytest.raises(AssertionError, match="missing key"):
        assert_matches({"y": 1}, {}, "x")
