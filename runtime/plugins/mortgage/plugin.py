"""``MortgagePlugin``: the mortgage agent as the runtime sees it."""

from __future__ import annotations

from typing import Any

from langgraph.graph import StateGraph

from runtime.contract.plugin import PluginBase
from runtime.contract.policy import RunPolicy
from runtime.plugins.mortgage import DESCRIPTION, PLUGIN_ID, TITLE
from runtime.plugins.mortgage.dialogue import GREETING, Conversation
from runtime.plugins.mortgage.graph import build_graph
from runtime.plugins.mortgage.products import product_by_id


class MortgagePlugin(PluginBase):
    plugin_id = PLUGIN_ID
    title = TITLE
    # Its nodes only compute: no model, no network (see runtime.turns.runs).
    run_policy = RunPolicy(on_event_loop=True)
    description = DESCRIPTION
    actions = ("select_product", "start_over")

    def initial_domain_state(self) -> dict[str, Any]:
        return Conversation(notice=GREETING).model_dump(mode="json")

    def build_graph(self) -> StateGraph[Any]:
        return build_graph()

    def validate_action(self, action_id: str, data: dict[str, Any]) -> str | None:
        """Known actions only; ``select_product`` must name a product of ours.

        Whether that product is in the customer's *current* offer depends on the session's state,
        which the graph checks (and answers in words) when it handles the click.
        """
        refusal = super().validate_action(action_id, data)
        if refusal is not None or action_id != self.action_id("select_product"):
            return refusal
        product_id = data.get("productId")
        if not isinstance(product_id, str) or product_by_id(product_id) is None:
            return f"{action_id} needs the productId of one of our products, got {product_id!r}"
        return None
