"""An isolated plugin's worker shares the host's network, loopback included: while one may use
it, the import API answers no client without the admin token, loopback ones included."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from runtime.contract.layout import AGENT_FILE, PLUGINS_FOLDER
from tests.generator.api.import_api_fixtures import Server
from tests.runtime.conftest import FIXTURE_PLUGINS


def isolated_plugin(repo: Path, *, network: bool) -> None:
    folder = repo / PLUGINS_FOLDER / "legacy"
    shutil.copytree(FIXTURE_PLUGINS / "legacy", folder)
    spec = json.loads((folder / AGENT_FILE).read_text())
    (folder / AGENT_FILE).write_text(json.dumps(spec | {"network": network}))


@pytest.mark.parametrize("network", [True, False])
def test_with_a_networked_isolated_plugin_loopback_needs_the_token(
    server: Server, repo: Path, network: bool
) -> None:
    isolated_plugin(repo, network=network)
    with server() as client:
        answer = client.get("/api/import-agent/status/none")

    if network:
        assert answer.status_code == 403
        assert (
            "needs an admin token (A2UI_ADMIN_TOKEN) while isolated plugins run with the "
            "network (legacy)" in answer.json()["error"]
        )
    else:
        assert answer.status_code == 404  # answered: an unknown job


def test_with_the_token_a_networked_isolated_plugin_changes_nothing(
    server: Server, repo: Path
) -> None:
    isolated_plugin(repo, network=True)
    with server(admin_token="t0ken") as client:
        answer = client.get(
            "/api/import-agent/status/none", headers={"Authorization": "Bearer t0ken"}
        )

    assert answer.status_code == 404
