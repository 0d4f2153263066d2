"""Fixtures for the design step: inspections of several agent shapes, and a clean AWS environment.

Every test runs with no AWS configuration of the machine it runs on (no env, no ~/.aws files, no
instance metadata) and with its own answer cache, so nothing reaches a real account or leaks
between tests.
"""

from __future__ import annotations

import os
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
from fake_bedrock import FakeBedrock, Step

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
) -> Iterator[Path]:
    """No AWS configuration from the machine; a private answer cache; returns the cache dir.

    Tests marked ``live`` keep the machine's AWS configuration: they are the ones meant to use it.
    """
    if request.node.get_closest_marker("live") is None:
        for name in list(os.environ):
            if name.startswith(("AWS_", "AGENT_IMPORT_")) or name == "BOTO_CONFIG":
                monkeypatch.delenv(name)
        monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
        monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
        monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    cache = tmp_path / "cache"
    monkeypatch.setenv("AGENT_IMPORT_CACHE_DIR", str(cache))
    yield cache


@pytest.fixture
def dummy_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    monkeypatch.setenv("AWS_REGION", "us-east-1")


@pytest.fixture
def endpoint(monkeypatch: pytest.MonkeyPatch, dummy_credentials: None) -> Iterator[Any]:
    """Start a FakeBedrock with the given scripts and point boto3 at it."""
    fakes: list[FakeBedrock] = []

    def start(**scripts: list[Step]) -> FakeBedrock:
        fake = FakeBedrock(scripts).__enter__()
        fakes.append(fake)
        monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", fake.url)
        return fake

    yield start
    for fake in fakes:
        fake.__exit__(None, None, None)
