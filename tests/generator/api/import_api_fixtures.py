"""Fixtures for the import API: a runtime serving a temporary clone's plugins on real uvicorn.

Imports go into ``runtime_repo`` (a fresh git repository with the template), never into this
working tree. The helpers of the generator's tests (``plugin_repo``, ``fake_bedrock``) live next
to those tests. A module, not a conftest, so that the wizard's browser test (next to the browser
fixtures) imports the same fixtures.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from runtime.contract.layout import PLUGINS_FOLDER
from runtime.extensions import IMPORT_API
from runtime.serving.app import create_app
from runtime.serving.launch import serve_in_thread
from runtime.settings import Settings
from tests.generator.design.fake_bedrock import FakeBedrock, no_aws_configuration
from tests.generator.plugin_repo import ROOT, runtime_repo

#: The example agent the tests import (read in place, never written).
SAVINGS_HELPER = str(ROOT / "examples" / "savings_helper")

Server = Callable[..., AbstractContextManager[httpx.Client]]


def api_settings(repo: Path, **overrides: Any) -> Settings:
    """A runtime serving ``repo``'s plugins and the import API (``serve --import-api``)."""
    return Settings.model_validate(
        {"plugins_dir": repo / PLUGINS_FOLDER, "extensions": [IMPORT_API], **overrides}
    )


@pytest.fixture(autouse=True)
def no_aws(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Designs never reach a real AWS account."""
    no_aws_configuration(monkeypatch, tmp_path)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return runtime_repo(tmp_path / "repo")


@pytest.fixture
def server(repo: Path) -> Server:
    """``with server(**settings) as client:`` ``api_settings`` served on real uvicorn."""

    @contextmanager
    def start(**overrides: Any) -> Iterator[httpx.Client]:
        settings = api_settings(repo, port=0, **overrides)
        with (
            serve_in_thread(create_app(settings, callbacks=[]), settings) as address,
            httpx.Client(base_url=f"http://{address}", timeout=120) as client,
        ):
            yield client

    return start


@pytest.fixture
def fake_bedrock(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., FakeBedrock]]:
    """Start a FakeBedrock with the given scripts; boto3 goes to it with dummy credentials."""
    yield from FakeBedrock.starter(monkeypatch)
