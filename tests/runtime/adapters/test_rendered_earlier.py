"""A plugin rendered by an earlier template keeps working with this runtime, unchanged.

``tests/fixtures/rendered/template-<commit>/`` holds a plugin folder exactly as ``agent-import
import --offline`` rendered it at that commit of ``copier-template/`` from ``examples/<agent>``,
but for its ``src/``, the example vendored verbatim, which the test copies in. A runtime that
moved a module such a plugin imports must keep the old path working (``runtime._moved``) until
``agent-import update --template-only`` re-renders the plugin.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from runtime.testing.client import RuntimeClient
from tests.runtime.conftest import runtime_process

ROOT = Path(__file__).resolve().parents[3]
RENDERED = ROOT / "tests" / "fixtures" / "rendered"
#: The example each rendered plugin vendors in ``src/``.
VENDORED = {"savings": ROOT / "examples" / "savings_helper"}
IGNORED = shutil.ignore_patterns("__pycache__")


@pytest.mark.parametrize("template", sorted(p.name for p in RENDERED.iterdir()))
def test_a_plugin_rendered_by_an_earlier_template_answers(tmp_path: Path, template: str) -> None:
    plugins = tmp_path / "plugins"
    for folder in (RENDERED / template).iterdir():
        shutil.copytree(folder, plugins / folder.name)
        shutil.copytree(VENDORED[folder.name], plugins / folder.name / "src", ignore=IGNORED)
    serve = ("--plugins-dir", str(plugins), "--offline-models")
    with runtime_process(*serve) as address, RuntimeClient(address, agent="savings") as client:
        welcome = client.receive_turn()
        answer = client.say("What is an ISA?")
    spoken = [f["payload"]["text"] for f in [*welcome, *answer] if f["type"] == "server.voice.say"]
    assert spoken[0].startswith("Hello, this is Savings helper")
    assert spoken[-1].startswith("An ISA lets you save")
    assert not [f for f in answer if f["type"] == "server.error"]
