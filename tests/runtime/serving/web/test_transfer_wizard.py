"""The `/transfer` wizard in Debian's Chromium: every step of importing examples/savings_helper.

Once with the offline designer and once with the fake Bedrock endpoint streaming its answer
slowly (the reasoning must be seen growing). Each run edits a screen (the edit must reach the
written screen file), tries invalid JSON and an unknown property (Write stays disabled), writes,
chats with the plugin in the wizard and then on ``/chat``. Screenshots of every step go to
``test-artifacts/browser/``. Imports go into a temporary clone of the repository.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from runtime.contract.layout import PLUGINS_FOLDER
from tests.generator.api.import_api_fixtures import (
    SAVINGS_HELPER,
    Server,
    fake_bedrock,
    no_aws,
    repo,
    server,
)

__all__ = ["fake_bedrock", "no_aws", "repo", "server"]  # fixtures used here

#: Chromium walks the whole wizard, imports included.
pytestmark = pytest.mark.slow

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

#: Long enough to arrive in many pieces of the stream.
REASONING = " ".join(
    f"Point {n}: savers ask short questions and want the answer first, so the result screen "
    "leads with the answer in a card and offers to start again."
    for n in range(1, 13)
)
EDITED_TITLE = "Hello from the wizard"


def _design_with_the_fake(fake_bedrock: Callable[..., Any]) -> None:
    """Sonnet answers slowly, in many pieces, so the page shows the reasoning as it grows."""
    from generator.inspect import inspect_source
    from generator.models import Source
    from tests.generator.design.design_helpers import model_answer
    from tests.generator.design.fake_bedrock import text_answer

    inspection = inspect_source(Source(url=SAVINGS_HELPER, path=SAVINGS_HELPER))
    answer = model_answer(inspection, "savings")
    answer["reasoning"] = REASONING
    sonnet = text_answer(json.dumps(answer))
    sonnet.chunks, sonnet.chunk_delay = 60, 0.04
    fake_bedrock(haiku=[text_answer("no mapping today")], sonnet=[sonnet])


@pytest.mark.timeout(600)
@pytest.mark.parametrize("designer", ["offline", "bedrock"])
def test_the_wizard_imports_an_agent_through_every_step(
    designer: str,
    server: Server,
    repo: Path,
    fake_bedrock: Callable[..., Any],
    page: Any,
    page_errors: list[str],
    request: pytest.FixtureRequest,
) -> None:
    folder = request.config.rootpath / "test-artifacts" / "browser"
    folder.mkdir(parents=True, exist_ok=True)

    def shot(step: str) -> None:
        page.screenshot(path=folder / f"transfer-{designer}-{step}.png", full_page=True)

    if designer == "bedrock":
        _design_with_the_fake(fake_bedrock)
    root = page.locator("#transfer")
    with server() as client:
        page.goto(f"{client.base_url}/transfer")
        expect(root).to_have_attribute("data-step", "IDLE")
        shot("1-idle")

        # FETCHING → PARSED: the repository's files, its graph, the state schema.
        page.get_by_label("Repository URL").fill(SAVINGS_HELPER)
        page.get_by_label("Plugin id").fill("savings")
        page.get_by_role("button", name="Fetch").click()
        expect(root).to_have_attribute("data-step", "PARSED", timeout=60_000)
        expect(page.locator("#file-tree")).to_contain_text("langgraph.json")
        expect(page.locator("#file-tree")).to_contain_text("savings_helper/graph.py")
        expect(page.get_by_label("Graph", exact=True)).to_have_value("savings_helper")
        expect(page.get_by_label("Strategy", exact=True)).to_have_value("wrapper")
        expect(page.locator("#state-fields")).to_contain_text("messages")
        shot("2-parsed")

        # DESIGNING: the reasoning streams in; PREVIEW: screens, files, dependencies.
        page.get_by_label("Designer", exact=True).select_option(designer)
        page.get_by_role("button", name="Design screens").click()
        expect(root).to_have_attribute("data-step", "DESIGNING")
        reasoning = page.locator("#reasoning")
        if designer == "bedrock":  # seen part-way, while the model still writes
            page.wait_for_function(
                """length => {
                    const text = document.getElementById('reasoning').textContent;
                    const step = document.getElementById('transfer').dataset.step;
                    return step === 'DESIGNING' && text.length > 20 && text.length < length;
                }""",
                arg=len(REASONING),
                timeout=60_000,
            )
            shot("3-designing")
            partial = reasoning.inner_text()
            assert REASONING.startswith(partial.strip()), partial
        expect(root).to_have_attribute("data-step", "PREVIEW", timeout=90_000)
        if designer == "bedrock":
            expect(reasoning).to_have_text(REASONING)
        else:
            expect(reasoning).not_to_be_empty()
        expect(page.get_by_role("tab", name="welcome", exact=True)).to_have_attribute(
            "aria-selected", "true"
        )
        for name in ("collecting", "result", "error", "plugin.py", "agent.json", "README.md"):
            expect(page.get_by_role("tab", name=name, exact=True)).to_be_visible()
        expect(page.locator("#deps")).to_contain_text("langgraph")
        write = page.get_by_role("button", name="Write plugin")
        expect(write).to_be_enabled()
        page.get_by_role("tab", name="agent.json", exact=True).click()
        expect(page.locator("#file-view")).to_contain_text('"graph_spec"')
        shot("4-preview")

        # A live edit re-renders the preview; invalid JSON and an unknown property block writing.
        editor = page.get_by_label("Screen JSON")
        screen = json.loads(editor.input_value())
        title = next(c for c in screen["components"] if c["component"] == "Text")
        title["text"] = EDITED_TITLE
        edited = json.dumps(screen, indent=2)
        editor.fill(edited)
        expect(page.locator("#surface")).to_contain_text(EDITED_TITLE)
        expect(write).to_be_enabled()
        shot("5-edited")

        editor.fill(edited[:-3])
        issues = page.locator("#screen-issues")
        expect(issues).to_contain_text("Screen JSON:")
        expect(write).to_be_disabled()
        expect(page.get_by_role("tab", name="welcome", exact=True)).to_have_attribute(
            "aria-invalid", "true"
        )
        shot("6-invalid-json")

        title["colour"] = "red"
        editor.fill(json.dumps(screen, indent=2))
        expect(issues).to_contain_text(f"component '{title['id']}' property 'colour'")
        expect(write).to_be_disabled()
        expect(page.locator("#surface")).to_contain_text(EDITED_TITLE)  # the last good drawing
        shot("7-invalid-property")

        editor.fill(edited)
        expect(issues).to_be_empty()
        expect(write).to_be_enabled()

        # WRITING → VALIDATING: the checks, then a chat with the written plugin.
        write.click()
        expect(root).to_have_attribute("data-step", "VALIDATING", timeout=90_000)
        checks = page.locator("#checks")
        expect(checks).to_contain_text("import check: passed", timeout=90_000)
        expect(checks).to_contain_text("smoke test: passed")
        page.get_by_label("Message", exact=True).fill("What is an ISA?")
        page.get_by_role("button", name="Send").click()
        transcript = page.locator("#try-transcript")
        expect(transcript.locator("li[data-speaker=agent]").last).to_contain_text("ISA")
        expect(page.locator("#try-screen")).to_contain_text("ISA")
        shot("8-validating")

        # DONE: links to the plugin's chat page and its WebSocket.
        page.get_by_role("button", name="Finish").click()
        expect(root).to_have_attribute("data-step", "DONE")
        expect(page.locator("#served")).to_contain_text("served now")
        link = page.get_by_role("link", name="Open the chat")
        expect(link).to_have_attribute("href", "/chat?agent=savings")
        address = str(client.base_url).removeprefix("http://")
        expect(page.locator("#ws-url")).to_have_text(f"ws://{address}/ws?agent=savings")
        shot("9-done")

        written = repo / PLUGINS_FOLDER / "savings" / "screens" / "welcome.json"
        assert EDITED_TITLE in written.read_text()

        link.click()
        expect(page.locator("#chat")).to_have_attribute("data-state", "ready")
        page.get_by_label("Message", exact=True).fill("How much can I save in an ISA?")
        page.get_by_role("button", name="Send").click()
        expect(page.locator("#transcript li[data-speaker=agent]").last).to_contain_text("ISA")
        shot("10-chat")

    assert page_errors == []


@pytest.mark.timeout(600)
def test_a_failed_validation_shows_its_diagnosis_in_the_validating_step(
    server: Server,
    repo: Path,
    tmp_path: Path,
    page: Any,
    page_errors: list[str],
    request: pytest.FixtureRequest,
) -> None:
    from tests.generator.plugin_repo import agent_repo, echo_agent

    files = echo_agent("echo_wizard_input")
    files["echo_wizard_input/replies.py"] = (
        "def reply(text, number):\n    state = {}\n    return state['topic']\n"
    )
    agent = agent_repo(tmp_path / "agent", files)
    root = page.locator("#transfer")
    with server() as client:
        page.goto(f"{client.base_url}/transfer")
        page.get_by_label("Repository URL").fill(str(agent))
        page.get_by_label("Plugin id").fill("needs_input")
        page.get_by_role("button", name="Fetch").click()
        expect(root).to_have_attribute("data-step", "PARSED", timeout=60_000)
        page.get_by_label("Designer", exact=True).select_option("offline")
        page.get_by_role("button", name="Design screens").click()

        # The dry run's checks failed: the validating step says why and how to fix it.
        expect(root).to_have_attribute("data-step", "VALIDATING", timeout=90_000)
        expect(page.locator("#checks")).to_contain_text("smoke test: FAILED")
        diagnosis = page.locator("#diagnosis")
        expect(diagnosis).to_have_attribute("data-kind", "needs_setting")
        expect(page.locator("#diagnosis-headline")).to_have_text(
            "Failed, needs setting: the agent needs a value for 'topic' "
            "(src/echo_wizard_input/replies.py:3)"
        )
        expect(page.locator("#diagnosis-explanation")).to_contain_text("'topic'")
        expect(page.locator("#diagnosis-fix")).to_have_text(
            'Fix: set agent.json "inputs": {"topic": ...}'
        )
        expect(page.locator("#try")).to_be_hidden()
        folder = request.config.rootpath / "test-artifacts" / "browser"
        folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=folder / "transfer-diagnosis.png", full_page=True)
        page.get_by_role("button", name="Start again").click()
        expect(root).to_have_attribute("data-step", "IDLE")

    assert not (repo / PLUGINS_FOLDER / "needs_input").exists()
    assert page_errors == []
