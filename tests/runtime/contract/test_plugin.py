"""The plugin contract, checked on every plugin discovered in ``runtime/plugins/``.

Parametrised by the plugin folders: a new one is covered without editing this file. Discovery
(which imports every plugin) runs once, when the first test needs it, not at collection.
"""

from __future__ import annotations

import pytest

from runtime.a2ui import load_screens, validate_components, validate_message
from runtime.contract.ids import is_plugin_folder
from runtime.contract.state import SERVER_EVENT_TYPES, CommonState
from runtime.discovery import DEFAULT_PLUGINS_DIR, Registry, discover
from runtime.turns.observability import run_config

PLUGIN_IDS = sorted(p.name for p in DEFAULT_PLUGINS_DIR.iterdir() if is_plugin_folder(p))


@pytest.fixture(scope="module")
def registry() -> Registry:
    return discover()


def test_every_plugin_folder_loads(registry: Registry) -> None:
    assert PLUGIN_IDS, "no plugin folder in runtime/plugins/"
    assert sorted(registry.plugins) == PLUGIN_IDS
    assert registry.broken == {}


@pytest.mark.parametrize("plugin_id", PLUGIN_IDS)
def test_identity_and_initial_state(plugin_id: str, registry: Registry) -> None:
    plugin = registry.plugins[plugin_id]
    assert plugin.title
    state = plugin.create_initial_state()
    assert set(state) == set(CommonState.__annotations__)
    assert plugin_id in state["domain"]
    assert state["state_version"] == plugin.state_version


@pytest.mark.parametrize("plugin_id", PLUGIN_IDS)
def test_screens_only_send_declared_actions(plugin_id: str, registry: Registry) -> None:
    """A button whose action the plugin does not declare would be refused on every click."""
    plugin = registry.plugins[plugin_id]
    sent = {
        component["action"]["event"]["name"]
        for screen in load_screens(plugin.folder / "screens", plugin_id=plugin_id).values()
        for component in screen.components
        if "action" in component
    }
    assert sent <= set(plugin.capabilities().actions)


@pytest.mark.parametrize("plugin_id", PLUGIN_IDS)
def test_the_first_turn_returns_a_valid_outbox(plugin_id: str, registry: Registry) -> None:
    plugin = registry.plugins[plugin_id]
    config = run_config(session_id=f"contract-{plugin_id}", plugin_id=plugin_id)
    state = registry.graph(plugin_id).invoke(
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
