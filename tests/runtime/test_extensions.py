"""The runtime's one extension point (``runtime.extensions``) and the rule it keeps: the runtime
never imports the generator, unless asked to serve the import API (``serve --import-api``).

The servers are real ``a2ui-runtime serve`` processes; what one imported is read from its own
``sys.modules`` as it exits (``tests/runtime/modules_server.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from pydantic import ValidationError

from runtime.cli import main
from runtime.serving.quotes import describe
from runtime.settings import Settings
from runtime.testing.client import RuntimeClient
from tests.runtime.conftest import runtime_process

#: What a runtime serving plugins never loads: the generator and the libraries only it needs.
GENERATOR_ONLY = frozenset({"generator", "libcst", "copier", "jinja2", "boto3", "botocore"})
#: A screen the validator finds fault with.
SCREEN = {
    "components": [{"id": "root", "component": "Text", "text": "Hello"}],
    "voice_text": "Hello.",
}


def _modules_of_a_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], use: Callable[[str], None]
) -> set[str]:
    """The top-level packages a ``serve ARGS`` process imported while ``use(address)`` ran."""
    modules_file = tmp_path / "modules.txt"
    monkeypatch.setenv("MODULES_FILE", str(modules_file))
    with runtime_process(*args, module="tests.runtime.modules_server") as address:
        use(address)
    return {line.split(".")[0] for line in modules_file.read_text(encoding="utf-8").split()}


def test_a_runtime_serving_plugins_never_loads_the_generator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def use(address: str) -> None:
        base = f"http://{address}"
        assert sorted(httpx.get(f"{base}/plugins").json()["plugins"]) == ["lost_card", "mortgage"]
        assert httpx.get(f"{base}/chat").status_code == 200
        assert httpx.get(f"{base}/transfer").status_code == 404
        assert httpx.get(f"{base}/api/import-agent/status/x").status_code == 404
        with RuntimeClient(address, agent="mortgage") as client:
            client.receive_turn()
            frames = client.say("my house is worth 400k and I owe 250k, 5 year fix over 25 years")
        assert any(frame["type"] == "server.a2ui.patch" for frame in frames)

    loaded = _modules_of_a_server(tmp_path, monkeypatch, [], use)

    assert {"runtime", "fastapi", "langgraph", "uvicorn"} <= loaded
    assert loaded & GENERATOR_ONLY == set()


def test_with_import_api_the_wizard_and_the_api_are_served(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def use(address: str) -> None:
        base = f"http://{address}"
        page = httpx.get(f"{base}/transfer")
        assert (page.status_code, page.headers["content-type"]) == (200, "text/html; charset=utf-8")
        assert '<main id="transfer"' in page.text
        assert httpx.get(f"{base}/static/js/transfer.js").status_code == 200
        checked = httpx.post(
            f"{base}/api/import-agent/validate-screen",
            json={"plugin_id": "savings", "screen": SCREEN},
        )
        assert checked.json()["issues"][0]["message"] == "the root must be a Column, not 'Text'"

    loaded = _modules_of_a_server(tmp_path, monkeypatch, ["--import-api"], use)

    assert "generator" in loaded  # the same probe sees the generator once it is asked for


def test_import_api_is_named_in_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    assert "--import-api" in capsys.readouterr().out


def test_an_extension_that_is_not_installed_is_refused_in_one_line() -> None:
    with pytest.raises(ValidationError) as caught:
        Settings(extensions=("nope",))
    assert describe(caught.value) == (
        "extensions.0: Value error, no runtime extension 'nope' is installed "
        "(installed: import-api)"
    )
