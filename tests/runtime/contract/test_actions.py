"""The action namespace: ``<plugin_id>.<action>``, legacy bare ids, foreign prefixes."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.graph import StateGraph

from runtime.contract.actions import ActionRejected, resolve_action
from runtime.contract.plugin import PluginBase
from runtime.contract.state import CommonState


class Shop(PluginBase):
    plugin_id = "shop"
    title = "Shop"
    actions = ("buy",)

    def build_graph(self) -> StateGraph[Any]:
        return StateGraph(CommonState)

    def validate_action(self, action_id: str, data: dict[str, Any]) -> str | None:
        if action_id == "shop.buy" and "sku" not in data:
            return "shop.buy needs a sku"
        return super().validate_action(action_id, data)


def test_a_namespaced_action_becomes_the_pending_action() -> None:
    assert resolve_action(Shop(), "shop.buy", {"sku": "a1"}) == {
        "id": "shop.buy",
        "data": {"sku": "a1"},
    }


def test_a_bare_id_is_namespaced_with_a_deprecation_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    action = resolve_action(Shop(), "buy", {"sku": "a1"})
    assert action["id"] == "shop.buy"
    assert "deprecated bare action id 'buy'" in caplog.text
    assert "'shop.buy'" in caplog.text


def test_another_plugins_prefix_is_rejected() -> None:
    with pytest.raises(ActionRejected, match="belongs to 'bank', not to agent 'shop'"):
        resolve_action(Shop(), "bank.buy", {"sku": "a1"})


@pytest.mark.parametrize(
    ("action_id", "data", "reason"),
    [
        ("shop.steal", {}, "unknown action 'shop.steal'"),
        ("shop.buy", {}, "needs a sku"),
        ("steal", {}, "unknown action 'shop.steal'"),
    ],
)
def test_the_plugin_can_refuse(action_id: str, data: dict[str, Any], reason: str) -> None:
    with pytest.raises(ActionRejected, match=reason):
        resolve_action(Shop(), action_id, data)
