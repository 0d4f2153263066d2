"""Browser fixtures: a real uvicorn on 127.0.0.1 serving the runtime (pages included) and a page
in Debian's Chromium driven by Playwright (never a downloaded browser).

``page`` records the page's console errors and uncaught exceptions in ``page_errors`` and saves a
screenshot to ``test-artifacts/browser/<test>.png`` when the test ends, passed or failed.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, sync_playwright

from runtime.serving.app import create_app
from runtime.serving.launch import serve_in_thread
from runtime.settings import Settings

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path("test-artifacts") / "browser"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's ``chromium`` (``apt-get install chromium``), headless; skipped when absent.

    One per test module: Playwright's sync API keeps an event loop of its own, which should not
    outlive the module into tests that run asyncio themselves.
    """
    executable = shutil.which("chromium")
    if executable is None:
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def web_server() -> Iterator[str]:
    """``http://host:port`` of a runtime over the project's own plugins (memory checkpointer),
    shared by the session's tests: each page opens sessions of its own."""
    settings = Settings(port=0)
    with serve_in_thread(create_app(settings, callbacks=[]), settings) as address:
        yield f"http://{address}"


@pytest.fixture
def page_errors() -> list[str]:
    """Console errors and uncaught exceptions of ``page``, in order."""
    return []


@pytest.fixture
def page(
    browser: Browser, page_errors: list[str], request: pytest.FixtureRequest
) -> Iterator[Page]:
    """A fresh page (its own context: storage, cookies) in ``browser``."""
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)

    def record(message: ConsoleMessage) -> None:
        if message.type == "error":
            page_errors.append(f"console.error: {message.text}")

    page.on("console", record)
    page.on("pageerror", lambda error: page_errors.append(f"uncaught: {error}"))
    try:
        yield page
    finally:
        folder = request.config.rootpath / ARTIFACTS
        folder.mkdir(parents=True, exist_ok=True)
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
        try:
            page.screenshot(path=folder / f"{name}.png", full_page=True)
        finally:
            context.close()
