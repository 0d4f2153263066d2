"""The look of the pages' own controls in Chromium (``runtime/static/page.css``).

On a phone (360 px wide), ``/chat`` after a mortgage turn and the wizard's Try-it step never
scroll sideways, keep the conversation above the form, the label, the input and Send on one row,
and every button a touch target. On a system set to dark, the pages and their screens are drawn
as on a light one (the pages' colours are light).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, ViewportSize, expect
from pydantic import BaseModel

#: Chromium against a real server.
pytestmark = pytest.mark.slow

PHONE: ViewportSize = {"width": 360, "height": 780}
#: A mortgage turn whose answer is the widest screen: the deals, under a row of three cards.
HEADLINE = "my house is worth 400k and I owe 250k, 5 year fix over 25 years"
#: The smallest button height a finger can hit reliably.
TOUCH_PX = 40
#: How far apart the vertical centres of items on one row may be.
ROW_PX = 4

MEASURE = """({log, form, buttons}) => {
  const box = element => element.getBoundingClientRect();
  const centre = element => box(element).top + box(element).height / 2;
  const composer = document.querySelector(form);
  return {
    scroll_width: document.scrollingElement.scrollWidth,
    inner_width: innerWidth,
    row_centres: ['label', 'input', 'button[type=submit]'].map(
      selector => centre(composer.querySelector(selector)),
    ),
    log_bottom: box(document.querySelector(log)).bottom,
    form_top: box(composer).top,
    button_heights: Object.fromEntries(
      [...document.querySelectorAll(buttons)]
        .filter(button => button.checkVisibility())
        .map(button => [button.textContent.trim(), box(button).height]),
    ),
  };
}"""


class Layout(BaseModel):
    """Where a page put its conversation, its form and its buttons (CSS pixels)."""

    scroll_width: float
    inner_width: float
    row_centres: list[float]
    log_bottom: float
    form_top: float
    button_heights: dict[str, float]


def measure(page: Page, *, log: str, form: str, buttons: str) -> Layout:
    """The layout of the conversation ``log``, its ``form`` and the page's own ``buttons``."""
    return Layout.model_validate(
        page.evaluate(MEASURE, {"log": log, "form": form, "buttons": buttons})
    )


def assert_fits_a_phone(layout: Layout) -> None:
    assert layout.scroll_width <= layout.inner_width, "the page scrolls sideways"
    assert max(layout.row_centres) - min(layout.row_centres) <= ROW_PX, (
        f"label, input and Send are not on one row: centres at {layout.row_centres}"
    )
    assert layout.log_bottom <= layout.form_top, "the conversation is not above the form"
    assert layout.button_heights, "no button measured"
    short = {name: h for name, h in layout.button_heights.items() if h < TOUCH_PX}
    assert not short, f"buttons under {TOUCH_PX} px tall: {short}"


def test_the_chat_page_fits_a_phone(web_server: str, page: Page) -> None:
    page.set_viewport_size(PHONE)
    page.goto(f"{web_server}/chat?agent=mortgage")
    expect(page.locator("#chat")).to_have_attribute("data-state", "ready")
    page.get_by_label("Message").fill(HEADLINE)
    page.get_by_role("button", name="Send").click()
    expect(page.locator("#transcript")).to_contain_text("Which would you like?")  # the deals

    layout = measure(
        page, log="#transcript", form="#composer", buttons=".chat-header button, #composer button"
    )
    assert_fits_a_phone(layout)
    assert {"New conversation", "Send"} <= layout.button_heights.keys()


def test_the_wizards_try_it_form_fits_a_phone(web_server: str, page: Page) -> None:
    """The wizard's page with its Try-it step staged (no import runs): shown as the wizard
    shows a step, with a line from each side in the conversation."""
    page.set_viewport_size(PHONE)
    page.goto(f"{web_server}/static/transfer.html")
    expect(page.locator("#transfer")).to_have_attribute("data-step", "IDLE")
    page.evaluate(
        """lines => {
          for (const element of document.querySelectorAll('[data-steps]')) {
            element.hidden = !element.dataset.steps.split(' ').includes('VALIDATING');
          }
          for (const [speaker, text] of lines) {
            const line = document.createElement('li');
            line.className = 'line';
            for (const [className, textContent] of [['speaker', speaker], ['text', text]]) {
              line.append(Object.assign(document.createElement('span'), {className, textContent}));
            }
            document.getElementById('try-transcript').append(line);
          }
        }""",
        [
            ["You", "What is an ISA?"],
            ["Agent", "A savings account with no tax on the interest, up to 20,000 pounds a year."],
        ],
    )
    expect(page.get_by_role("button", name="Finish")).to_be_visible()

    layout = measure(page, log="#try-transcript", form="#try-form", buttons="#try button")
    assert_fits_a_phone(layout)
    assert {"Send", "Finish"} <= layout.button_heights.keys()


def test_a_dark_system_draws_the_page_as_a_light_one(web_server: str, page: Page) -> None:
    page.goto(f"{web_server}/chat?agent=mortgage")
    title = page.locator("a2ui-surface h2").first  # in the surface's shadow root
    expect(title).to_be_visible()
    restart = page.get_by_role("button", name="New conversation")

    def colours() -> list[str]:
        return [
            title.evaluate("element => getComputedStyle(element).color"),
            restart.evaluate("element => getComputedStyle(element).backgroundColor"),
        ]

    light = colours()
    page.emulate_media(color_scheme="dark")
    assert colours() == light
