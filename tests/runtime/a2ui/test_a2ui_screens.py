"""Screen files on disk, and the patch events a screen becomes."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from runtime.a2ui import (
    CATALOG_ID,
    InvalidScreenError,
    Screen,
    create_surface_message,
    load_screen,
    load_screens,
    screen_events,
    validate_message,
)
from runtime.a2ui.screens import plugin_id_for


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


@pytest.fixture
def screens_dir(tmp_path: Path, example_screen: Callable[[str], dict[str, Any]]) -> Path:
    """``<tmp>/example/screens`` holding the three example screens."""
    folder = tmp_path / "example" / "screens"
    for name in ("welcome", "result", "confirm"):
        write(folder / f"{name}.json", example_screen(name))
    return folder


def test_load_screens_by_name(screens_dir: Path) -> None:
    screens = load_screens(screens_dir)
    assert list(screens) == ["confirm", "result", "welcome"]
    assert all(isinstance(screen, Screen) for screen in screens.values())
    assert screens["result"].components[0]["id"] == "root"


def test_plugin_id_comes_from_the_layout(tmp_path: Path) -> None:
    assert plugin_id_for(tmp_path / "mortgage" / "screens" / "a.json") == "mortgage"
    assert plugin_id_for(tmp_path / "Mortgage" / "screens" / "a.json") is None
    assert plugin_id_for(tmp_path / "mortgage" / "views" / "a.json") is None


def test_the_action_namespace_is_checked_against_the_folder(
    tmp_path: Path, example_screen: Callable[[str], dict[str, Any]]
) -> None:
    path = write(tmp_path / "mortgage" / "screens" / "confirm.json", example_screen("confirm"))
    with pytest.raises(InvalidScreenError) as caught:
        load_screens(path.parent)
    assert str(caught.value).splitlines()[0] == (
        f"{path}: component 'cancel_btn' property 'action': "
        "action name 'example.cancel' must start with 'mortgage.'"
    )
    assert load_screen(path, plugin_id="example").voice_text  # an explicit id wins


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"components": [', "line 1 column 17: invalid JSON"),
        ('{"components": []}', "property 'voice_text': field required"),
        ('{"components": [], "voice_text": "Hi."}', "no component has id 'root'"),
    ],
)
def test_invalid_files_name_the_file(tmp_path: Path, content: str, message: str) -> None:
    path = write(tmp_path / "screens" / "bad.json", content)
    with pytest.raises(InvalidScreenError) as caught:
        load_screens(path.parent)
    assert str(caught.value).startswith(f"{path}: ")
    assert message in str(caught.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InvalidScreenError, match="cannot read"):
        load_screen(tmp_path / "nope.json")


def test_cached_until_the_file_changes(screens_dir: Path) -> None:
    path = screens_dir / "welcome.json"
    first = load_screen(path)
    assert load_screen(path) is first
    data = json.loads(path.read_text(encoding="utf-8"))
    data["voice_text"] = "Hello again."
    path.write_text(json.dumps(data), encoding="utf-8")
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert load_screen(path).voice_text == "Hello again."


def test_screen_events(screens_dir: Path) -> None:
    screen = load_screen(screens_dir / "result.json")
    components_event, data_event = screen_events("example", screen, {"answer": "1,250 EUR"})
    assert components_event == {
        "type": "server.a2ui.patch",
        "payload": {
            "version": "v0.9",
            "updateComponents": {"surfaceId": "example", "components": screen.components},
        },
    }
    assert data_event == {
        "type": "server.a2ui.patch",
        "payload": {
            "version": "v0.9",
            "updateDataModel": {
                "surfaceId": "example",
                "path": "/",
                "value": {"answer": "1,250 EUR"},
            },
        },
    }
    assert validate_message(components_event["payload"]) == []
    assert validate_message(data_event["payload"]) == []


def test_screen_events_without_data_and_copies(screens_dir: Path) -> None:
    screen = load_screen(screens_dir / "welcome.json")
    [only] = screen_events("example", screen)
    only["payload"]["updateComponents"]["components"][0]["id"] = "changed"
    assert screen.components[0]["id"] == "root"  # the cached screen is untouched


def test_create_surface_message() -> None:
    message = create_surface_message("mortgage")
    assert message == {
        "version": "v0.9",
        "createSurface": {"surfaceId": "mortgage", "catalogId": CATALOG_ID},
    }
    assert validate_message(message) == []
