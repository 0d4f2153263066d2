"""A2UI ``Row``s on a phone, in Chromium: the renderer's stylesheet (``surface-styles.js``) wraps a
row whose children do not fit, so at 360 px nothing on the screen runs past its right edge; at
1024 px the same rows keep their children on one line.

The screens go in as ``test_screens_render`` sends them, bound to data made from their bindings,
on the phone with one bound text in a row made a long unbroken word (it must break rather than
widen its card).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, ViewportSize
from pydantic import BaseModel

from runtime.a2ui import create_surface_message, load_screen, screen_events
from tests.runtime.serving.web.screen_data import ScreenData
from tests.runtime.serving.web.test_page_style import PHONE
from tests.runtime.serving.web.test_screens_render import (
    MOUNT,
    PLUGINS,
    missing_texts,
    open_renderer,
)

#: Chromium renders screens.
pytestmark = pytest.mark.slow

WIDE: ViewportSize = {"width": 1024, "height": PHONE["height"]}
#: The mortgage result screens (rows of cards) and lost_card screens with rows of buttons: without
#: the stylesheet each runs past the edge of a phone.
SCREENS = [
    PLUGINS / "mortgage" / "screens" / "product_list.json",
    PLUGINS / "mortgage" / "screens" / "selection.json",
    PLUGINS / "lost_card" / "screens" / "safety_checklist.json",
    PLUGINS / "lost_card" / "screens" / "confirmation.json",
]
#: A word no screen width holds on one line.
LONG_WORD = "Supercalifragilistic" * 4

#: Every element on the page and in its shadow roots whose right edge passes the viewport's,
#: and the tops of each row's children.
MEASURE = """() => {
  const elements = [];
  const walk = root => {
    for (const element of root.querySelectorAll('*')) {
      elements.push(element);
      if (element.shadowRoot) walk(element.shadowRoot);
    }
  };
  walk(document);
  const width = document.documentElement.clientWidth;
  const name = element =>
    element.tagName.toLowerCase() + (element.className ? `.${element.className}` : '');
  return {
    width,
    overflowing: elements
      .filter(element => element.getBoundingClientRect().right > width + 0.5)
      .map(element => `${name(element)} (right ${element.getBoundingClientRect().right})`),
    row_tops: elements
      .filter(element => element.tagName === 'A2UI-BASIC-ROW')
      .map(row => [...row.children].map(child => Math.round(child.getBoundingClientRect().top))),
  };
}"""


class Layout(BaseModel):
    """What ``MEASURE`` finds (CSS pixels)."""

    width: float
    overflowing: list[str]
    row_tops: list[list[int]]


def _in_rows(components: list[dict[str, Any]]) -> set[str]:
    """The ids of the components drawn inside a ``Row`` (its children and theirs)."""
    by_id = {component["id"]: component for component in components}
    found: set[str] = set()
    todo = [child for c in components if c["component"] == "Row" for child in c["children"]]
    while todo:
        component = by_id[todo.pop()]
        found.add(component["id"])
        children = component.get("children", [])
        todo += [component["child"]] if "child" in component else []
        todo += children if isinstance(children, list) else []
    return found


def _row_text(components: list[dict[str, Any]], sample: ScreenData) -> str | None:
    """A sample text bound at the top of the data model and shown inside a ``Row``, if any."""
    owners = {component_id.replace("_", "-") for component_id in _in_rows(components)}
    bound = {value for value in sample.data.values() if isinstance(value, str)}
    candidates = (text for text in sample.texts if text in bound)
    return next((text for text in candidates if text.split("-sample-")[0] in owners), None)


def show(page: Page, base: str, path: Path, *, long_word: bool) -> None:
    """Draw the screen at ``path`` with sample data; with ``long_word``, a bound text in a row is
    made ``LONG_WORD``."""
    screen = load_screen(path)
    sample = ScreenData(screen.components)
    word = _row_text(screen.components, sample) if long_word else None
    sample.data = {key: LONG_WORD if value == word else value for key, value in sample.data.items()}
    texts = [LONG_WORD if text == word else text for text in sample.texts]
    surface_id = path.parent.parent.name
    messages = [
        create_surface_message(surface_id),
        *(event["payload"] for event in screen_events(surface_id, screen, sample.data)),
    ]
    open_renderer(page, base)
    page.evaluate(MOUNT, [messages])
    assert missing_texts(page, texts) == []


def measure(page: Page) -> Layout:
    """Overflowing elements and row children's tops as the page is drawn now."""
    return Layout.model_validate(page.evaluate(MEASURE))


@pytest.mark.parametrize("path", SCREENS, ids=lambda p: f"{p.parent.parent.name}/{p.stem}")
def test_rows_wrap_on_a_phone(
    path: Path, web_server: str, page: Page, page_errors: list[str]
) -> None:
    page.set_viewport_size(PHONE)
    show(page, web_server, path, long_word=True)
    layout = measure(page)
    assert layout.width <= PHONE["width"]
    assert layout.overflowing == []
    assert any(len(set(tops)) > 1 for tops in layout.row_tops), layout.row_tops  # wrapped
    assert page_errors == []


@pytest.mark.parametrize("path", SCREENS, ids=lambda p: f"{p.parent.parent.name}/{p.stem}")
def test_rows_stay_on_one_line_when_wide(
    path: Path, web_server: str, page: Page, page_errors: list[str]
) -> None:
    page.set_viewport_size(WIDE)
    show(page, web_server, path, long_word=False)
    layout = measure(page)
    assert layout.row_tops, "the screen drew no Row"
    assert all(len(set(tops)) == 1 for tops in layout.row_tops), layout.row_tops
    assert layout.overflowing == []
    assert page_errors == []
