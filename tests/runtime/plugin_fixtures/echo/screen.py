"""The echo screen, in a sibling module so discovery must support relative imports."""

from __future__ import annotations

from typing import Any


def screen_messages(heard: str, turns: int) -> list[dict[str, Any]]:
    components = [
        {"id": "root", "component": "Column", "children": ["card", "press"]},
        {"id": "card", "component": "DataCard", "title": "Heard", "value": {"path": "/heard"}},
        {
            "id": "press",
            "component": "Button",
            "child": "press_label",
            "action": {"event": {"name": "echo.press", "context": {"turn": {"path": "/turns"}}}},
        },
        {"id": "press_label", "component": "Text", "text": "Press"},
    ]
    return [
        {"version": "v0.9", "updateComponents": {"surfaceId": "echo", "components": components}},
        {
            "version": "v0.9",
            "updateDataModel": {"surfaceId": "echo", "value": {"heard": heard, "turns": turns}},
        },
    ]
