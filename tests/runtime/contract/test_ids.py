"""The plugin id rule is a security boundary (docs/architecture.md): try to get past it."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from runtime.a2ui import validate_components
from runtime.contract.ids import PLUGIN_ID_PATTERN, is_plugin_id

ROOT = Path(__file__).resolve().parents[3]


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


class _PluginIdInput(HTMLParser):
    """The ``pattern`` attribute of the page's ``plugin_id`` input."""

    pattern: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "input" and ("name", "plugin_id") in attrs:
            self.pattern = dict(attrs).get("pattern")


def test_the_template_and_the_wizard_copy_the_rule_exactly() -> None:
    """Copier's validator and the browser's form check run where ``runtime.contract.ids`` cannot:
    each holds one copy of its pattern, which must be the same rule."""
    question = yaml.safe_load((ROOT / "copier.yml").read_text(encoding="utf-8"))["plugin_id"]
    in_template = re.findall(r"\{% set pattern = '([^']*)' %\}", question["validator"])
    page = _PluginIdInput()
    page.feed((ROOT / "runtime" / "static" / "transfer.html").read_text(encoding="utf-8"))

    assert in_template == [PLUGIN_ID_PATTERN.pattern]
    assert page.pattern is not None
    assert f"^{page.pattern}$" == PLUGIN_ID_PATTERN.pattern  # an HTML pattern is anchored
