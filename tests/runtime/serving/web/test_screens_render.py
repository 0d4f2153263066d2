"""Every shipped screen, drawn by the renderer module in Chromium: no console error, every text it
binds or states on the page (inside the surface's shadow DOM), each bank component as its element.

The screen goes in as the runtime sends it (``createSurface``, ``updateComponents``,
``updateDataModel``), bound to data made from its own bindings (``screen_data``).
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from runtime.a2ui import create_surface_message, load_screen, screen_events
from runtime.a2ui.catalog import CATALOG_ID
from tests.runtime.serving.web.screen_data import ScreenData

#: Chromium renders every shipped screen.
pytestmark = pytest.mark.slow

PLUGINS = Path(__file__).parents[4] / "runtime" / "plugins"
SCREENS = sorted(PLUGINS.glob("*/screens/*.json"))

#: The texts of ``texts`` the page does not show, looking into shadow roots (``innerText`` does
#: not).
MISSING_TEXTS = """
texts => {
  function deepText(node) {
    let text = '';
    for (const child of node.childNodes) {
      if (child.nodeType === Node.TEXT_NODE) text += child.data;
      else if (child.nodeType === Node.ELEMENT_NODE) {
        if (child.shadowRoot) text += deepText(child.shadowRoot);
        text += deepText(child);
      }
    }
    return text;
  }
  const shown = deepText(document.body);
  return texts.filter(text => !shown.includes(text));
}
"""

MOUNT = """
async ([messages]) => {
  const { mountSurfaces } = await import('/static/js/renderer.js');
  const surfaces = mountSurfaces(document.getElementById('screen'));
  surfaces.process(messages);
}
"""


def open_renderer(page: Page, base: str) -> None:
    """A blank document on the runtime's origin, so the renderer module can be imported."""
    page.route("**/favicon.ico", lambda route: route.fulfill(status=204))  # /health has none
    page.goto(f"{base}/health")
    page.set_content('<!doctype html><html><body><div id="screen"></div></body></html>')


def missing_texts(page: Page, texts: list[str]) -> list[str]:
    """The texts the page does not show, once Lit and markdown had time to draw them."""
    with contextlib.suppress(PlaywrightTimeout):  # then say which texts are missing
        page.wait_for_function(f"t => ({MISSING_TEXTS})(t).length === 0", arg=texts, timeout=5000)
    missing: list[str] = page.evaluate(MISSING_TEXTS, texts)
    return missing


def test_every_plugin_ships_screens() -> None:
    assert {path.parent.parent.name for path in SCREENS} >= {"mortgage", "lost_card"}


@pytest.mark.parametrize("path", SCREENS, ids=lambda p: f"{p.parent.parent.name}/{p.stem}")
def test_screen_renders(path: Path, web_server: str, page: Page, page_errors: list[str]) -> None:
    screen = load_screen(path)
    sample = ScreenData(screen.components)
    surface_id = path.parent.parent.name
    messages = [
        create_surface_message(surface_id),
        *(event["payload"] for event in screen_events(surface_id, screen, sample.data)),
    ]
    assert messages[0]["createSurface"]["catalogId"] == CATALOG_ID
    open_renderer(page, web_server)
    page.evaluate(MOUNT, [messages])

    surface = page.locator(f'a2ui-surface[data-surface-id="{surface_id}"]')
    assert missing_texts(page, sample.texts) == []
    assert surface.get_by_text("Loading surface").count() == 0
    tags: dict[str, str] = page.evaluate(
        """async () => {
          const { catalog } = await import('/static/js/renderer.js');
          return Object.fromEntries([...catalog.components.values()].map(c => [c.name, c.tagName]));
        }"""
    )
    for component in screen.components:
        tag = tags[component["component"]]
        assert surface.locator(tag).count() >= 1, f"{component['id']}: no <{tag}> drawn"
    assert page_errors == []
