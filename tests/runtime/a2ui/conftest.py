"""Shared fixtures: a known-good screen to break one rule at a time, and the official validator."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from runtime.a2ui import load_catalog

EXAMPLES = Path(__file__).parents[3] / "runtime" / "a2ui" / "examples"


@pytest.fixture
def example_screen() -> Callable[[str], dict[str, Any]]:
    """Load a fresh copy of a shipped example screen (their actions use plugin ``example``)."""

    def load(name: str) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))
        return data

    return load


@pytest.fixture
def confirm_screen(example_screen: Callable[[str], dict[str, Any]]) -> dict[str, Any]:
    """The confirm example: Column root, DataCard, Timeline, two Buttons with Text children."""
    return example_screen("confirm")


@pytest.fixture
def component_of() -> Callable[[dict[str, Any], str], dict[str, Any]]:
    """Find a component by id in a screen, to mutate it."""

    def find(screen: dict[str, Any], component_id: str) -> dict[str, Any]:
        return next(c for c in screen["components"] if c["id"] == component_id)

    return find


@pytest.fixture(scope="session")
def official_catalog() -> Any:
    """Our catalog as the official a2ui-agent-sdk loads it (test-time only; never in runtime/)."""
    from a2ui.core import Catalog

    return Catalog.from_json(copy.deepcopy(load_catalog()))
