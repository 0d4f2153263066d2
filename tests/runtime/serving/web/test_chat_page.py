"""``/chat?agent=<id>`` in Chromium against a real runtime: a mortgage conversation typed and
clicked through, resumed after a reload; an unknown agent; an agent that fails a turn.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from runtime.plugins.lost_card import TITLE as LOST_CARD
from runtime.plugins.mortgage import TITLE as MORTGAGE
from tests.runtime.conftest import ServerFactory

#: Chromium against a real server.
pytestmark = pytest.mark.slow

HEADLINE = "my house is worth 400k and I owe 250k, 5 year fix over 25 years"


@pytest.fixture
def test_plugins(start_server: ServerFactory) -> Iterator[str]:
    """``http://host:port`` of a runtime over the test plugins (``echo``, ``boom``...)."""
    with start_server() as address:
        yield f"http://{address}"


def say(page: Page, text: str) -> None:
    page.get_by_label("Message").fill(text)
    page.get_by_role("button", name="Send").click()


def test_a_mortgage_conversation_resumes_after_a_reload(
    web_server: str, page: Page, page_errors: list[str]
) -> None:
    page.goto(f"{web_server}/chat?agent=mortgage")
    root = page.locator("#chat")
    transcript = page.locator("#transcript")
    surface = page.locator('a2ui-surface[data-surface-id="mortgage"]')
    expect(transcript).to_contain_text("Tell me what your home is worth")
    expect(root).to_have_attribute("data-state", "ready")

    say(page, HEADLINE)
    expect(transcript.locator("[data-speaker=user] .text")).to_have_text([HEADLINE])
    expect(transcript).to_contain_text("At 62.5% loan-to-value, the best value is")
    products = surface.locator("bank-product-card")
    expect(products.first).to_be_visible()
    expect(surface.locator("bank-gauge")).to_contain_text("62.5%")
    titles = products.locator("strong").all_inner_texts()
    assert len(titles) >= 2

    surface.get_by_role("button", name="Choose this deal").nth(1).click()
    expect(transcript).to_contain_text(f"Good choice: the {titles[1]} at")
    expect(products).to_have_count(1)
    expect(products).to_contain_text(titles[1])
    session_id = root.get_attribute("data-session-id")
    assert session_id and f"sessionId={session_id}" in page.url
    agent_lines = transcript.locator("[data-speaker=agent] .text").all_inner_texts()
    assert len(agent_lines) == 3  # each line once, though it came spoken and as transcript

    page.reload()
    expect(root).to_have_attribute("data-state", "ready")
    expect(root).to_have_attribute("data-session-id", session_id)
    expect(products).to_have_count(1)
    expect(products).to_contain_text(titles[1])
    expect(transcript.locator("[data-speaker=agent] .text")).to_have_text(agent_lines)
    assert page_errors == []


def test_new_conversation_forgets_the_session(web_server: str, page: Page) -> None:
    page.goto(f"{web_server}/chat?agent=mortgage")
    root = page.locator("#chat")
    expect(root).to_have_attribute("data-session-id", re.compile(r".+"))
    first = root.get_attribute("data-session-id")

    page.get_by_role("button", name="New conversation").click()
    expect(root).not_to_have_attribute("data-session-id", first or "")
    expect(page.locator("#transcript li")).to_have_count(1)  # the new welcome only
    assert f"sessionId={first}" not in page.url


def test_without_an_agent_the_page_offers_them(web_server: str, page: Page) -> None:
    page.goto(f"{web_server}/chat")
    expect(page.get_by_role("alert")).to_contain_text("No agent chosen")
    agents = page.get_by_role("navigation", name="Agents").get_by_role("link")
    expect(agents).to_have_text([LOST_CARD, MORTGAGE])
    expect(page.locator("#chat")).to_have_attribute("data-state", "closed")


def test_an_unknown_agent_is_shown_with_the_agents_there_are(web_server: str, page: Page) -> None:
    page.goto(f"{web_server}/chat?agent=no_such_agent")
    root = page.locator("#chat")
    expect(root).to_have_attribute("data-state", "closed")
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("unknown agent 'no_such_agent'")
    expect(alert).to_contain_text("mortgage")
    expect(root).to_have_attribute("data-error-code", "close_4000")
    expect(page.locator("a2ui-surface")).to_have_count(0)
    expect(page.get_by_role("button", name="Send")).to_be_disabled()
    agents = page.get_by_role("navigation", name="Agents").get_by_role("link")
    expect(agents).to_have_text([LOST_CARD, MORTGAGE])  # the titles of GET /plugins
    agents.first.click()
    expect(page).to_have_url(re.compile(r"/chat\?agent=lost_card"))
    expect(root).to_have_attribute("data-state", "ready")
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Chat with {LOST_CARD}")


def test_a_failed_turn_shows_the_error_and_the_page_goes_on(test_plugins: str, page: Page) -> None:
    page.goto(f"{test_plugins}/chat?agent=boom")
    transcript = page.locator("#transcript")
    expect(transcript).to_contain_text("ok: ready")

    say(page, "boom")
    alert = page.get_by_role("alert")
    expect(alert).to_have_text("The Boom agent could not handle that. Please try again.")
    expect(page.locator("#chat")).to_have_attribute("data-error-code", "agent_error")

    say(page, "hello")
    expect(transcript).to_contain_text("ok: hello")
    expect(alert).to_be_hidden()


def test_a_button_sends_its_action_with_its_bound_context(test_plugins: str, page: Page) -> None:
    page.goto(f"{test_plugins}/chat?agent=echo")
    surface = page.locator('a2ui-surface[data-surface-id="echo"]')
    expect(surface.locator("bank-data-card")).to_contain_text("welcome")

    surface.get_by_role("button", name="Press").click()  # context {turn: {path: /turns}}
    expect(surface.locator("bank-data-card")).to_contain_text("pressed echo.press {'turn': 1}")


def test_what_an_agent_says_is_shown_as_text_never_run_as_markup(
    test_plugins: str, page: Page
) -> None:
    attack = '<img src=x onerror="document.body.dataset.pwned=1"><script>pwned=1</script>'
    page.goto(f"{test_plugins}/chat?agent=echo")  # echo repeats it in a screen and a line
    expect(page.locator("#chat")).to_have_attribute("data-state", "ready")
    say(page, attack)
    surface = page.locator('a2ui-surface[data-surface-id="echo"]')
    expect(surface.locator("bank-data-card .bank-value")).to_have_text(attack)
    expect(page.locator("#transcript [data-speaker=agent] .text").last).to_contain_text(attack)
    assert page.locator("img").count() == 0
    assert surface.locator("img").count() == 0
    assert page.evaluate("() => [document.body.dataset.pwned, window.pwned]") == [None, None]


def test_the_page_reconnects_to_a_restarted_server_and_resumes(
    start_server: ServerFactory, page: Page, tmp_path: Path
) -> None:
    settings = {"storage": f"sqlite:{tmp_path / 'sessions.db'}"}
    root = page.locator("#chat")
    surface = page.locator('a2ui-surface[data-surface-id="echo"]')
    with start_server(**settings) as address:
        page.goto(f"http://{address}/chat?agent=echo")
        say(page, "hello")
        expect(surface.locator("bank-data-card")).to_contain_text("hello")
        session_id = root.get_attribute("data-session-id")
    expect(root).to_have_attribute("data-state", "reconnecting")
    port = int(address.rsplit(":", 1)[1])
    with start_server(**settings, port=port):
        expect(root).to_have_attribute("data-state", "ready", timeout=10_000)
        expect(root).to_have_attribute("data-session-id", session_id or "")
        expect(surface).to_have_count(1)
        expect(surface.locator("bank-data-card")).to_contain_text("hello")
        expect(page.get_by_role("alert")).to_be_hidden()
        say(page, "again")
        expect(surface.locator("bank-data-card")).to_contain_text("again")
