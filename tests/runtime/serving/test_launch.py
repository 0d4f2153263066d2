"""Serving the app: what a serving process keeps out of the garbage collector once started."""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from runtime.serving.launch import YOUNG_COLLECTION_AFTER, freeze_after_startup


@pytest.fixture
def unfrozen() -> Iterator[None]:
    """Gives back to the collector whatever a test froze, and its thresholds (the rest of the
    run keeps its own)."""
    thresholds = gc.get_threshold()
    gc.unfreeze()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


def tracked(thing: object) -> bool:
    """Whether the collector's passes still walk ``thing`` (frozen objects are in none)."""
    return any(candidate is thing for candidate in gc.get_objects())


def test_what_the_app_loaded_at_startup_is_frozen_and_young_objects_wait_longer(
    unfrozen: None,
) -> None:
    loaded: dict[str, list[int]] = {}

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        loaded["plugins"] = [1, 2, 3]
        yield

    app = FastAPI(lifespan=lifespan)
    freeze_after_startup(app)
    with TestClient(app):
        later: dict[str, list[int]] = {"turn": [4]}
        assert gc.get_freeze_count() > 0
        assert not tracked(loaded["plugins"])
        assert tracked(later["turn"])
        assert gc.get_threshold()[0] == YOUNG_COLLECTION_AFTER
