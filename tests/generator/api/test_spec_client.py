"""A client written from the API contract alone (docs/wizard.md) imports an agent through
``a2ui-runtime serve --import-api``, a real server process.

The client sends the contract's request (``url``, ``plugin_id``, ``strategy``, ``graph_id``,
``dry_run``) and reads only the contract's answer: ``status`` ``"ok"``, ``plugin_id``,
``files_written``, ``validation {import_ok, smoke_test_ok}``, ``llm_reasoning`` and ``screens``;
for a dry run, the files' contents as strings. No AWS configuration is reachable, so the design
is the deterministic designer's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from runtime.contract.layout import PLUGINS_FOLDER
from runtime.testing.client import RuntimeClient
from tests.generator.api.import_api_fixtures import SAVINGS_HELPER
from tests.runtime.conftest import runtime_process

#: What the contract's answer holds, besides extra fields a client ignores.
SPEC_FIELDS = ("status", "plugin_id", "files_written", "validation", "llm_reasoning", "screens")

#: Two real imports through a server process: slow on a busy box.
pytestmark = pytest.mark.timeout(600)


class ImportFailed(Exception):
    pass


def spec_import(address: str, url: str, plugin_id: str, *, dry_run: bool = False) -> Any:
    """``POST /api/import-agent`` as docs/wizard.md describes it; its answer, or why not."""
    request = {
        "url": url,
        "plugin_id": plugin_id,
        "strategy": "wrapper",
        "graph_id": "savings_helper",
        "dry_run": dry_run,
    }
    answer = httpx.post(f"http://{address}/api/import-agent", json=request, timeout=300)
    body = answer.json()
    if answer.status_code != 200 or body.get("status") != "ok":
        raise ImportFailed(f"{answer.status_code}: {body}")
    return body


def test_a_client_written_from_the_api_contract_imports_an_agent(repo: Path) -> None:
    plugins = repo / PLUGINS_FOLDER
    with runtime_process("--import-api", "--plugins-dir", str(plugins)) as address:
        preview = spec_import(address, SAVINGS_HELPER, "savings", dry_run=True)
        written = spec_import(address, SAVINGS_HELPER, "savings")
        with RuntimeClient(address, agent="savings") as chat:
            chat.receive_turn()
            frames = chat.say("What is an ISA?")

    for body in (preview, written):
        assert all(field in body for field in SPEC_FIELDS), body
        assert body["plugin_id"] == "savings"
        assert body["validation"] == {"import_ok": True, "smoke_test_ok": True}
        assert isinstance(body["llm_reasoning"], str) and body["llm_reasoning"]
        assert set(body["screens"]) == {"welcome", "collecting", "result", "error"}
    assert preview["files_written"] == []
    assert all(isinstance(text, str) for text in preview["files"].values())
    assert json.loads(preview["files"]["screens/welcome.json"]) == preview["screens"]["welcome"]
    assert "plugins/savings/plugin.py" in " ".join(written["files_written"])
    assert all((repo / path).is_file() for path in written["files_written"])
    assert any(frame["type"] == "server.voice.say" for frame in frames)
