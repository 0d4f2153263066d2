"""The plugin id rule is a security boundary (docs/architecture.md): try to get past it."""

from __future__ import annotations

import pytest

from runtime.a2ui import validate_components
from runtime.ids import is_plugin_id


@pytest.mark.parametrize("good", ["ab", "mortgage", "lost_card", "a1", "a" + "b" * 32])
def test_accepts_valid_ids(good: str) -> None:
    assert is_plugin_id(good)


@pytest.mark.parametrize(
    "bad",
    [
        "a",
        "X",
        "Mortgage",
        "1abc",
        "_abc",
        "../x",
        "a/b",
        "a.b",
        "a-b",
        "a b",
        "",
        "a" + "b" * 33,
        "abc\n",
        "abc\r\n",
        "\nabc",
        "abc\x00",
    ],
)
def test_rejects_invalid_ids(bad: str) -> None:
    assert not is_plugin_id(bad)


def test_action_name_with_trailing_newline_is_refused() -> None:
    components = [
        {"id": "root", "component": "Column", "children": ["card", "go"]},
        {"id": "card", "component": "DataCard", "title": "t", "value": "v"},
        {"id": "go_text", "component": "Text", "text": "Go"},
        {
            "id": "go",
            "component": "Button",
            "child": "go_text",
            "action": {"event": {"name": "demo.go\n"}},
        },
    ]
    issues = validate_components(components, plugin_id="demo")
    assert [(i.component_id, i.property) for i in issues] == [("go", "action")]
