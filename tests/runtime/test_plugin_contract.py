"""The plugin contract, checked on every plugin discovered in ``runtime/plugins/``.

Parametrised by discovery itself: a new plugin folder is covered without editing this file.
"""

from __future__ import annotations

import pytest

from runtime.a2ui import load_screens, validate_components, validate_message
from runtime.contracts import SERVER_EVENT_TYPES, CommonState
from runtime.discovery import discover
from runtime.observability import run_config

REGISTRY = discover()


def test_every_plugin_folder_loads() -> None:
    assert REGISTRY.plugins, "no plugin discovered in runtime/plugins/"
    assert REGISTRY.broken == {}


@pytest.mark.parametrize("plugin_id", sorted(REGISTRY.plugins))
def test_identity_and_initial_state(plugin_id: str) -> None:
    plugin = REGISTRY.plugins[plugin_id]
    assert plugin.title
    state = plugin.create_initial_state()
    assert set(state) == set(CommonState.__annotations__)
    assert plugin_id in state["domain"]
    assert state["state_version"] == plugin.state_version


@pytest.mark.parametrize("plugin_id", sorted(REGISTRY.plugins))
def test_screens_only_send_declared_actions(plugin_id: str) -> None:
    """A button whose action the plugin does not declare would be refused on every click."""
    plugin = REGISTRY.plugins[plugin_id]
    sent = {
        component["action"]["event"]["name"]
        for screen in load_screens(plugin.folder / "screens", plugin_id=plugin_id).values()
        for component in screen.components
        if "action" in component
    }
    assert sent <= set(plugin.capabilities().actions)


@pytest.mark.parametrize("plugin_id", sorted(REGISTRY.plugins))
def test_the_first_turn_returns_a_valid_outbox(plugin_id: str) -> None:
    plugin = REGISTRY.plugins[plugin_id]
    config = run_config(session_id=f"contract-{plugin_id}", agent_id=plugin_id)
    state = REGISTRY.graph(plugin_id).invoke(
        {**plugin.create_initial_state(), "outbox": None}, config
    )
    outbox = state["outbox"]
    assert outbox, "the first turn must say or show something"
    assert {item["type"] for item in outbox} <= set(SERVER_EVENT_TYPES)
    for item in outbox:
        if item["type"] == "server.a2ui.patch":
            assert validate_message(item["payload"]) == []
            update = item["payload"].get("updateComponents")
            if update is not None:
                assert validate_components(update["components"], plugin_id=plugin_id) == []
