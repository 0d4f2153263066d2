"""``LostCardPlugin``: the lost-card agent as the runtime sees it."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Annotated, Any, Literal

from langgraph.graph import StateGraph
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from runtime.contract.plugin import PluginBase
from runtime.contract.policy import RunPolicy
from runtime.plugins.lost_card import DESCRIPTION, PLUGIN_ID, TITLE
from runtime.plugins.lost_card.graph import build_graph
from runtime.plugins.lost_card.state import LostCardState, Step


class _ActionData(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class _Report(_ActionData):
    reason: Literal["lost", "stolen"] | None = None


class _Found(_ActionData):
    reason: Literal["found"] | None = None


class _Confirm(_ActionData):
    #: The step the confirm button was drawn for; a stale button confirms nothing.
    step: Step | None = None


class _Place(_ActionData):
    #: A town or postcode to find the nearest branch to; without it, the device's location.
    place: Annotated[str, Field(min_length=1, max_length=100)] | None = None


class _Digits(_ActionData):
    last4: Annotated[str, Field(pattern=r"^\d{4}$")]


#: What each action's ``data`` may hold (short action name → model).
ACTION_DATA: dict[str, type[_ActionData]] = {
    "freeze_card": _Report,
    "unfreeze_card": _Found,
    "order_replacement": _ActionData,
    "report_fraud": _ActionData,
    "view_transactions": _ActionData,
    "find_branch": _Place,
    "reset": _ActionData,
    "confirm": _Confirm,
    "cancel": _ActionData,
    "verify_identity": _Digits,
}


class LostCardPlugin(PluginBase):
    plugin_id = PLUGIN_ID
    title = TITLE
    # Its nodes only compute: no model, no network (see runtime.turns.runs).
    run_policy = RunPolicy(on_event_loop=True)
    description = DESCRIPTION
    actions = tuple(ACTION_DATA)

    def __init__(self, today: Callable[[], date] = date.today) -> None:
        """``today`` dates the bank's answers (replacement ETAs, payment dates); tests fix it."""
        self.today = today

    def initial_domain_state(self) -> dict[str, Any]:
        return LostCardState().dump()

    def build_graph(self) -> StateGraph[Any]:
        return build_graph(today=self.today)

    def validate_action(self, action_id: str, data: dict[str, Any]) -> str | None:
        """Known actions only, each with the data it expects (``verify_identity``: four digits)."""
        refusal = super().validate_action(action_id, data)
        if refusal is not None:
            return refusal
        try:
            ACTION_DATA[action_id.partition(".")[2]].model_validate(data)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(map(str, e['loc'])) or 'data'}: {e['msg']}" for e in exc.errors()
            )
            return f"{action_id}: {problems}"
        return None
