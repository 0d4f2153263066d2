"""Fixtures for the design step: inspections of several agent shapes, and a clean AWS environment.

Every test runs with no AWS configuration of the machine it runs on (no env, no ~/.aws files, no
instance metadata) and with its own answer cache, so nothing reaches a real account or leaks
between tests.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from design_helpers import (
    inspection_of,
    io_schema_graph,
    messages_graph,
    prebuilt_graph,
    structured_graph,
)
from fake_bedrock import FakeBedrock, dummy_credentials, no_aws_configuration

from generator.models import Graph, Inspection


@pytest.fixture
def structured() -> Inspection:
    return inspection_of(structured_graph())


@pytest.fixture
def chat() -> Inspection:
    return inspection_of(messages_graph(), readme="")


@pytest.fixture
def shapes() -> dict[str, Inspection]:
    """One inspection per agent shape the fallback must handle."""
    return {
        "structured": inspection_of(structured_graph()),
        "messages": inspection_of(messages_graph(), readme=""),
        "prebuilt": inspection_of(prebuilt_graph(), readme="A helpful assistant."),
        "io_schemas": inspection_of(
            io_schema_graph(), readme="# QA bot\n\nAnswers questions about policy documents."
        ),
        "unresolvable": inspection_of(
            Graph(graph_id="mystery", file="x.py", export="make", export_kind="unresolvable"),
            readme="",
        ),
    }


@pytest.fixture
def two_graphs() -> Inspection:
    return inspection_of(structured_graph("one"), structured_graph("two"))


@pytest.fixture(autouse=True)
def clean_aws(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Path:
    """No AWS configuration from the machine; a private answer cache; returns the cache dir.

    Tests marked ``live`` keep the machine's AWS configuration: they are the ones meant to use it.
    """
    if request.node.get_closest_marker("live") is None:
        no_aws_configuration(monkeypatch, tmp_path)
    cache = tmp_path / "cache"
    monkeypatch.setenv("AGENT_IMPORT_CACHE_DIR", str(cache))
    return cache


@pytest.fixture(name="dummy_credentials")
def dummy_credentials_fixture(monkeypatch: pytest.MonkeyPatch) -> None:
    dummy_credentials(monkeypatch)


@pytest.fixture
def endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Start a FakeBedrock with the given scripts and point boto3 at it."""
    yield from FakeBedrock.starter(monkeypatch)
